// What function emission appends: attributed pointers (arena kfuncs) shared with the graph and
// its base, as deduplication would share them.
#include "btforge/ir/FunctionAppender.h"

#include "btforge/ir/TypeGraph.h"

#include <doctest/doctest.h>

#include <memory>

using namespace btforge::ir;

TEST_CASE("FunctionAppender: an attributed pointer is the base's, else added once") {
    constexpr std::string_view kArena = "address_space(1)";
    auto base = std::make_shared<TypeGraph>();
    base->add(IntType{base->intern("int"), 4, int_encoding::kSigned, 0, 32}); // 1
    base->add(TypeTagType{base->intern(kArena), 1, false});                   // 2: not attribute
    base->add(PtrType{kNoName, 2});                                           // 3
    base->add(TypeTagType{base->intern(kArena), 1, true});                    // 4
    base->add(PtrType{kNoName, 4});                                           // 5
    base->add(TypeTagType{base->intern(kArena), kVoidType, true});            // 6, no PTR to it

    TypeGraph split(base);
    FunctionAppender appender(split);
    CHECK(appender.attributedPointer(kArena, 1) == 5);
    CHECK(split.ownCount() == 0);

    // The base's tag on void, a PTR of the split graph's own.
    const TypeId voidPointer = appender.attributedPointer(kArena, kVoidType);
    CHECK(voidPointer == 7);
    CHECK(split.getAs<PtrType>(7).type == 6);
    CHECK(appender.attributedPointer(kArena, kVoidType) == voidPointer);

    // A pointee (the base PTR 3) no attribute tags yet: a TYPE_TAG with kind_flag 1, then the
    // PTR, once.
    const TypeId pointerPointer = appender.attributedPointer(kArena, 3);
    CHECK(pointerPointer == 9);
    const auto tag = split.getAs<TypeTagType>(8);
    CHECK(tag.kindFlag);
    CHECK(tag.type == 3);
    CHECK(split.str(tag.name) == kArena);
    CHECK(split.getAs<PtrType>(9).type == 8);
    CHECK(appender.attributedPointer(kArena, 3) == pointerPointer);
    CHECK(split.ownCount() == 3);
}
