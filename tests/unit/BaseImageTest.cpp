// A base image (ir/BaseImage.h) gives back the base it was written from, with the tables merging
// and function emission derive from it; an image of another key, or cut short anywhere, gives
// nothing.
#include "btforge/ir/BaseImage.h"

#include "../../core/dedup/BaseIndex.h"

#include "btforge/btf/BtfWriter.h"
#include "btforge/ir/FunctionAppender.h"
#include "btforge/ir/TypeGraph.h"

#include <doctest/doctest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

using namespace btforge;
using namespace btforge::ir;

namespace {

// A base with every list arena used, a list longer than a chunk (a block of its own) and lists
// that leave chunk tails unused, FUNCs with their prototypes and tags on them.
std::shared_ptr<const TypeGraph> sampleBase() {
    TypeGraph g;
    const TypeId i32 = g.add(IntType{g.intern("int"), 4, int_encoding::kSigned, 0, 32});
    const TypeId ptr = g.add(PtrType{kNoName, i32});
    g.add(ArrayType{kNoName, g.add(ArrayType{kNoName, i32, i32, 4}), i32, 3}); // int[3][4]
    std::vector<Enumerator> many;
    for (int i = 0; i < 1500; ++i)
        many.push_back({g.intern("E" + std::to_string(i)), static_cast<uint64_t>(i)});
    g.add(EnumType{g.intern("big"), 4, many, true});
    for (int s = 0; s < 60; ++s) {
        std::vector<Member> members;
        for (int m = 0; m < 100; ++m)
            members.push_back({g.intern("m" + std::to_string(m)), m % 2 ? i32 : ptr,
                               static_cast<uint32_t>(m) * 64, 0});
        g.add(StructType{g.intern("s" + std::to_string(s)), 800, members});
    }
    const std::vector<Param> params{{g.intern("a"), i32}, {g.intern("b"), ptr}};
    const TypeId proto = g.add(FuncProtoType{kNoName, i32, params});
    const TypeId func = g.add(FuncType{g.intern("f"), proto, FuncLinkage::Global});
    g.add(DeclTagType{g.intern("tag"), func, -1});
    const TypeId var = g.add(VarType{g.intern("v"), i32, VarLinkage::GlobalAllocated});
    const std::vector<VarSecInfo> entries{{var, 0, 4}};
    g.add(DatasecType{g.intern(".data"), 4, entries});
    return std::make_shared<const TypeGraph>(std::move(g));
}

// The image's bytes where an image lies in memory: 8-aligned.
struct Aligned {
    explicit Aligned(std::span<const std::byte> bytes) : words((bytes.size() + 7) / 8) {
        std::memcpy(words.data(), bytes.data(), bytes.size());
        size = bytes.size();
    }
    std::span<const std::byte> bytes(size_t n) const {
        return {reinterpret_cast<const std::byte*>(words.data()), n};
    }
    std::vector<uint64_t> words;
    size_t size;
};

std::vector<std::byte> btfOf(const TypeGraph& graph) {
    auto bytes = btf::writeBtf(graph);
    REQUIRE(bytes);
    return *bytes;
}

} // namespace

TEST_CASE("BaseImage: the base and its derived tables come back") {
    const auto base = sampleBase();
    const std::vector<std::byte> image = writeBaseImage(base, "key 1");
    auto buffer = std::make_shared<Aligned>(image);
    const auto loaded = readBaseImage(buffer->bytes(image.size()), "key 1", buffer);
    REQUIRE(loaded);
    CHECK(loaded->endId() == base->endId());
    CHECK(btfOf(*loaded) == btfOf(*base));
    for (const char* name : {"int", "big", "E1499", "s59", "m99", ".data"}) {
        CHECK(loaded->strings().find(name) == base->strings().find(name));
        CHECK(loaded->str(*loaded->strings().find(name)) == name);
    }
    CHECK_FALSE(loaded->strings().find("absent"));

    // The merge's index, as installed for the loaded base.
    const auto index = dedup::BaseIndex::of(loaded);
    std::vector<TypeId> found;
    index->forEachNamed(Kind::Struct, "s7", [&](TypeId id) {
        found.push_back(id);
        return false;
    });
    REQUIRE(found.size() == 1);
    CHECK(loaded->name(found[0]) == "s7");
    CHECK(index->nestedArrays());

    // The appender's tables: a FUNC and a tag the base has are the base's, over either graph.
    for (const auto& over : {base, loaded}) {
        TypeGraph module(over);
        FunctionAppender appender(module);
        const TypeId i32 = 1, ptr = 2; // sampleBase()'s first types
        const std::vector<Param> params{{module.intern("a"), i32}, {module.intern("b"), ptr}};
        const TypeId proto = appender.proto(i32, params);
        CHECK(proto < over->endId());
        const TypeId func = appender.addFunction("f", proto, FuncLinkage::Global);
        CHECK(func < over->endId());
        CHECK(appender.addTag("tag", func, -1) < over->endId());
        CHECK(module.ownCount() == 0);
    }
}

TEST_CASE("BaseImage: another key, or an image cut short, gives nothing") {
    const auto base = sampleBase();
    const std::vector<std::byte> image = writeBaseImage(base, "key 1");
    auto buffer = std::make_shared<Aligned>(image);
    CHECK_FALSE(readBaseImage(buffer->bytes(image.size()), "key 2", buffer));
    CHECK_FALSE(readBaseImage(buffer->bytes(image.size()), "key", buffer));
    // Cut in the header at every 8-byte boundary, then at 300 places over the rest, and a byte
    // short of the whole.
    for (size_t n = 0; n < 256; n += 8)
        CHECK_FALSE(readBaseImage(buffer->bytes(n), "key 1", buffer));
    for (size_t n = 256; n < image.size(); n += image.size() / 300 + 1)
        CHECK_FALSE(readBaseImage(buffer->bytes(n), "key 1", buffer));
    CHECK_FALSE(readBaseImage(buffer->bytes(image.size() - 1), "key 1", buffer));
    CHECK(readBaseImage(buffer->bytes(image.size()), "key 1", buffer));
}

TEST_CASE("BaseImage: the same bytes each time and a block at a time; a sink that fails stops it") {
    const auto base = sampleBase();
    const std::vector<std::byte> whole = writeBaseImage(base, "key 1");
    // The same bytes each time: padding is written as zeros (the sample's enumerators have some).
    CHECK(writeBaseImage(base, "key 1") == whole);
    for (size_t block : {size_t{1}, size_t{7}, size_t{4096}, whole.size(), whole.size() + 1}) {
        CAPTURE(block);
        std::vector<std::byte> joined;
        size_t calls = 0;
        const bool written = writeBaseImage(
            base, "key 1",
            [&](std::span<const std::byte> bytes) {
                ++calls;
                CHECK(bytes.size() <= block);
                joined.insert(joined.end(), bytes.begin(), bytes.end());
                return true;
            },
            block);
        CHECK(written);
        CHECK(joined == whole);
        CHECK(calls == (whole.size() + block - 1) / block);
    }
    size_t calls = 0;
    CHECK_FALSE(writeBaseImage(
        base, "key 1", [&](std::span<const std::byte>) { return ++calls < 3; }, 4096));
    CHECK(calls == 3);
}
