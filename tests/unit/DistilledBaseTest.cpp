// Distilled base BTF (btf/DistilledBase.h) on a hand-made base and module: where each kind of
// used base type goes, how ids are renumbered, and what refers to a kind it cannot hold.
#include "btforge/btf/DistilledBase.h"

#include "btforge/btf/BtfReader.h"
#include "btforge/btf/BtfWriter.h"

#include <doctest/doctest.h>

#include <memory>

namespace btforge {
namespace {

using namespace ir;

struct Fixture {
    std::shared_ptr<const TypeGraph> base;
    TypeGraph split;
};

// Base: [1] int, [2] struct task {int a; <anon> *b}, [3] anonymous struct {int x}, [4] task *,
// [5] enum64 big, [6] typedef int u, [7] int (void) proto, [8] FUNC f, [9] unused int,
// [10] anonymous union {int y}, [11] unused signed enum e.
Fixture makeModule() {
    auto g = std::make_shared<TypeGraph>();
    auto n = [&](std::string_view s) { return g->intern(s); };
    const TypeId i = g->add(IntType{n("int"), 4, int_encoding::kSigned, 0, 32});
    const Member task[] = {{n("a"), i, 0, 0}, {n("b"), 12, 64, 0}};
    g->add(StructType{n("task"), 16, task});
    const Member anon[] = {{n("x"), i, 0, 0}};
    g->add(StructType{kNoName, 4, anon});
    g->add(PtrType{kNoName, 2});
    const Enumerator big[] = {{n("A"), 1}};
    g->add(Enum64Type{n("big"), 8, big});
    g->add(TypedefType{n("u"), i});
    g->add(FuncProtoType{kNoName, i, {}});
    g->add(FuncType{n("f"), 7, FuncLinkage::Global});
    g->add(IntType{n("unused"), 4, 0, 0, 32});
    const Member unionMembers[] = {{n("y"), i, 0, 0}};
    g->add(UnionType{kNoName, 4, unionMembers});
    const Enumerator e[] = {{n("X"), 0}};
    g->add(EnumType{n("e"), 4, e, true});
    g->add(PtrType{kNoName, 3}); // [12], task.b

    Fixture f{g, TypeGraph(g)};
    auto m = [&](std::string_view s) { return f.split.intern(s); };
    // Split: [13] struct mod {task *p; u v; <anon union> w; enum64 big z}, [14] <anon struct> *.
    const Member mod[] = {
        {m("p"), 4, 0, 0}, {m("v"), 6, 64, 0}, {m("w"), 10, 96, 0}, {m("z"), 5, 128, 0}};
    f.split.add(StructType{m("mod"), 24, mod});
    f.split.add(PtrType{kNoName, 3});
    return f;
}

TEST_CASE("distillBase: named types to the base, the rest into the split BTF") {
    Fixture f = makeModule();
    auto d = btf::distillBase(f.split, "mod.ko");
    REQUIRE(d);
    const TypeGraph& base = *d->base;
    // Base order kept: int, task (memberless, its size), big (an ENUM of its size, no values).
    REQUIRE(base.endId() == 4);
    CHECK(base.kind(1) == Kind::Int);
    CHECK(base.name(1) == "int");
    CHECK(base.getAs<IntType>(1).encoding == int_encoding::kSigned);
    auto task = base.getAs<StructType>(2);
    CHECK(base.name(2) == "task");
    CHECK(task.size == 16);
    CHECK(task.members.empty());
    REQUIRE(base.kind(3) == Kind::Enum);
    CHECK(base.name(3) == "big");
    CHECK(base.getAs<EnumType>(3).size == 8);
    CHECK(base.getAs<EnumType>(3).values.empty());

    // Split: its own types first (mod, the pointer), then the copied ones in base order:
    // the anonymous struct, task *, typedef u, the anonymous union. task.b's pointer is not
    // copied: a memberless task needs nothing.
    const TypeGraph& split = d->split;
    REQUIRE(split.firstId() == 4);
    REQUIRE(split.endId() == 10);
    auto mod = split.getAs<StructType>(4);
    CHECK(split.name(4) == "mod");
    REQUIRE(mod.members.size() == 4);
    CHECK(mod.members[0].type == 7);
    CHECK(mod.members[1].type == 8);
    CHECK(mod.members[2].type == 9);
    CHECK(mod.members[3].type == 3);
    CHECK(split.getAs<PtrType>(5).type == 6);
    auto anon = split.getAs<StructType>(6);
    CHECK(anon.name == kNoName);
    REQUIRE(anon.members.size() == 1);
    CHECK(split.str(anon.members[0].name) == "x");
    CHECK(anon.members[0].type == 1);
    CHECK(split.getAs<PtrType>(7).type == 2);
    CHECK(split.name(8) == "u");
    CHECK(split.getAs<TypedefType>(8).type == 1);
    CHECK(split.getAs<UnionType>(9).members[0].type == 1);

    // Both read back as written, the split over the base.
    auto baseBytes = btf::writeBtf(base);
    auto splitBytes = btf::writeBtf(split);
    REQUIRE(baseBytes);
    REQUIRE(splitBytes);
    auto readBase = btf::readBtf(*baseBytes, {"base", nullptr, false, {}});
    REQUIRE(readBase);
    auto shared = std::make_shared<const TypeGraph>(std::move(*readBase));
    auto readSplit = btf::readBtf(*splitBytes, {"split", shared, false, {}});
    REQUIRE(readSplit);
    CHECK(readSplit->name(4) == "mod");
    CHECK(readSplit->name(8) == "u");
    CHECK(shared->name(readSplit->getAs<PtrType>(7).type) == "task");
}

TEST_CASE("relocateSplit: the distilled types stand for the base's, the rest moves up") {
    Fixture f = makeModule();
    auto d = btf::distillBase(f.split, "mod.ko");
    REQUIRE(d);
    auto r = btf::relocateSplit(d->split, f.base, "mod.ko");
    REQUIRE(r);
    // Over the original base: ids continue it; task, int and big are the base's own again.
    REQUIRE(r->firstId() == 13);
    REQUIRE(r->endId() == 19);
    auto mod = r->getAs<StructType>(13);
    CHECK(r->name(13) == "mod");
    CHECK(r->getAs<PtrType>(mod.members[0].type).type == 2);
    CHECK(r->getAs<TypedefType>(mod.members[1].type).type == 1);
    CHECK(mod.members[3].type == 5);
    CHECK(r->getAs<PtrType>(14).type == 15);
    CHECK(r->getAs<StructType>(15).members[0].type == 1);

    // A second 'task' of the same size in the base: which one is meant cannot be told.
    auto g = std::make_shared<TypeGraph>();
    g->add(IntType{g->intern("int"), 4, int_encoding::kSigned, 0, 32});
    g->add(StructType{g->intern("task"), 16, {}});
    g->add(UnionType{g->intern("task"), 8, {}}); // another kind: not a candidate
    g->add(StructType{g->intern("task"), 16, {}});
    g->add(Enum64Type{g->intern("big"), 8, {}});
    auto ambiguous = btf::relocateSplit(d->split, g, "mod.ko");
    REQUIRE_FALSE(ambiguous);
    CHECK(ambiguous.error().message().find("STRUCT 'task' matches several types") !=
          std::string::npos);
    // No 'big' of size 8: none stands for it.
    auto h = std::make_shared<TypeGraph>();
    h->add(IntType{h->intern("int"), 4, int_encoding::kSigned, 0, 32});
    h->add(StructType{h->intern("task"), 16, {}});
    h->add(EnumType{h->intern("big"), 4, {}, false});
    auto missing = btf::relocateSplit(d->split, h, "mod.ko");
    REQUIRE_FALSE(missing);
    CHECK(missing.error().message().find("ENUM 'big' matches no type of the base") !=
          std::string::npos);
}

TEST_CASE("distillBase: a base FUNC used by the module is refused; standalone BTF too") {
    Fixture f = makeModule();
    f.split.add(DeclTagType{f.split.intern("tag"), 8, -1, false});
    auto d = btf::distillBase(f.split, "mod.ko");
    REQUIRE_FALSE(d);
    CHECK(d.error().message().find("mod.ko: type [15] refers to base type [8], a FUNC") == 0);

    TypeGraph alone;
    alone.add(IntType{alone.intern("int"), 4, 0, 0, 32});
    CHECK_FALSE(btf::distillBase(alone, "vmlinux"));
}

} // namespace
} // namespace btforge
