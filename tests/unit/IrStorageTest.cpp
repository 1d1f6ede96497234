// How the type graph stores what it holds: chunked arenas, lists across chunks, string interning.
#include "../../core/ir/TypeWalk.h"

#include "btforge/ir/ChunkedArena.h"
#include "btforge/ir/StringPool.h"
#include "btforge/ir/TypeGraph.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <memory>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

using namespace btforge::ir;

TEST_CASE("ChunkedArena: lists stay contiguous and in place, without doubling") {
    using Arena = ChunkedArena<uint32_t>;
    constexpr uint32_t kChunk = Arena::kChunk;
    Arena arena;
    std::vector<std::pair<uint32_t, std::vector<uint32_t>>> lists;
    size_t total = 0;
    // Lengths that leave a chunk's tail unused, fill a chunk exactly and need several.
    for (uint32_t length : {1u, kChunk - 100, 200u, 0u, kChunk, 3u, 3 * kChunk + 5, 7u}) {
        std::vector<uint32_t> items(length);
        std::iota(items.begin(), items.end(), length * 7);
        lists.emplace_back(arena.append(items), items);
        total += length;
    }
    uint32_t previousEnd = 0;
    for (const auto& [first, items] : lists) {
        const std::span<const uint32_t> list = arena.list(first, uint32_t(items.size()));
        CHECK(std::equal(list.begin(), list.end(), items.begin(), items.end()));
        CHECK(first >= previousEnd);
        previousEnd = first + uint32_t(items.size());
    }
    CHECK(arena.size() >= previousEnd);
    // At most one chunk allocated beyond what is used, and the tails lists did not fit in.
    CHECK(arena.memoryUsage() < (total + 3 * kChunk) * sizeof(uint32_t) + 1024);
}

TEST_CASE("ChunkedArena: single items are numbered densely and walked a chunk at a time") {
    ChunkedArena<uint64_t> arena;
    CHECK(arena.empty());
    bool dense = true;
    for (uint32_t i = 0; i < 10000; ++i)
        dense = dense && arena.push_back(i * 3ull) == i;
    CHECK(dense);
    CHECK(arena.size() == 10000);
    arena[4097] = 1;
    uint32_t seen = 0;
    bool inOrder = true;
    for (uint32_t i = 0; i < arena.size();) {
        for (uint64_t value : arena.run(i)) {
            inOrder = inOrder && value == (i == 4097 ? 1 : i * 3ull);
            ++i;
            ++seen;
        }
    }
    CHECK(inOrder);
    CHECK(seen == 10000);
}

TEST_CASE("TypeGraph: lists longer than a chunk, and visit() agrees with get()") {
    TypeGraph g;
    const TypeId i = g.add(IntType{g.intern("int"), 4, int_encoding::kSigned, 0, 32});
    std::vector<Member> members;
    std::vector<Param> params;
    for (uint32_t m = 0; m < 10000; ++m) {
        members.push_back({g.intern("m" + std::to_string(m)), i, m * 32, m % 3});
        params.push_back({g.intern("p" + std::to_string(m)), i});
    }
    const TypeId s = g.add(StructType{g.intern("s"), 40000, members, true});
    const TypeId proto = g.add(FuncProtoType{kNoName, i, params});
    const TypeId empty = g.add(EnumType{g.intern("e"), 4, {}});
    const auto st = g.getAs<StructType>(s);
    REQUIRE(st.members.size() == members.size());
    CHECK(std::equal(st.members.begin(), st.members.end(), members.begin()));
    const auto fp = g.getAs<FuncProtoType>(proto);
    CHECK(std::equal(fp.params.begin(), fp.params.end(), params.begin(), params.end()));
    CHECK(g.getAs<EnumType>(empty).values.empty());
    for (TypeId id = 0; id < g.endId(); ++id) {
        const size_t index = g.visit(id, [](const auto& t) { return TypeView(t).index(); });
        CHECK(index == g.get(id).index());
        CHECK(index == static_cast<size_t>(g.kind(id)));
    }
}

TEST_CASE("TypeWalk: forEachReference and rewriteType meet the references in one order") {
    TypeGraph g;
    const TypeId i = g.add(IntType{g.intern("int"), 4, int_encoding::kSigned, 0, 32});
    const TypeId ptr = g.add(PtrType{kNoName, i});
    const TypeId array = g.add(ArrayType{kNoName, ptr, i, 4});
    const Member members[] = {{g.intern("a"), i, 0, 0}, {g.intern("b"), array, 64, 0}};
    const TypeId s = g.add(StructType{g.intern("s"), 40, members});
    const Param params[] = {{g.intern("x"), s}, {kNoName, ptr}};
    const TypeId proto = g.add(FuncProtoType{kNoName, array, params});
    const TypeId func = g.add(FuncType{g.intern("f"), proto});
    const TypeId var = g.add(VarType{g.intern("v"), s});
    const VarSecInfo entries[] = {{var, 0, 40}};
    g.add(DatasecType{g.intern(".data"), 40, entries});
    g.add(DeclTagType{g.intern("tag"), func, -1});
    const std::vector<std::vector<TypeId>> expected = {
        {}, {i}, {ptr, i}, {i, array}, {array, s, ptr}, {proto}, {s}, {var}, {func}};
    ListScratch scratch;
    for (TypeId id = g.firstId(); id < g.endId(); ++id) {
        std::vector<TypeId> read, mapped;
        forEachReference(g, id, [&](TypeId ref) { read.push_back(ref); });
        g.visit(id, [&](const auto& t) {
            rewriteType(
                t, [](StrId name) { return name; },
                [&](TypeId ref) {
                    mapped.push_back(ref);
                    return ref;
                },
                scratch);
        });
        CHECK(read == expected[id - g.firstId()]);
        CHECK(mapped == read);
    }
}

TEST_CASE("StringPool: interning cuts at NUL, finds through the base and survives growth") {
    auto base = std::make_shared<StringPool>();
    const StrId alpha = base->intern("alpha");
    StringPool pool(base);
    CHECK(pool.intern("alpha") == alpha);
    CHECK(pool.intern("") == kNoName);
    CHECK(pool.intern(std::string_view("beta\0gamma", 10)) == pool.intern("beta"));
    // A NUL past the first eight bytes, and one in the last few.
    CHECK(pool.intern(std::string_view("abcdefghij\0k", 12)) == pool.intern("abcdefghij"));
    CHECK(pool.intern(std::string_view("abcdefghijkl\0", 13)) == pool.intern("abcdefghijkl"));
    std::vector<StrId> ids;
    for (int i = 0; i < 50000; ++i)
        ids.push_back(pool.intern("name_" + std::to_string(i)));
    bool stable = true;
    for (int i = 0; i < 50000; ++i) {
        const std::string name = "name_" + std::to_string(i);
        stable = stable && pool.get(ids[i]) == name && pool.find(name) == ids[i] &&
                 pool.intern(name) == ids[i];
    }
    CHECK(stable);
    CHECK(!pool.find("name_50000"));
    CHECK(!pool.find("name_"));
}

TEST_CASE("StringPool: reserving keeps what is interned and changes no id") {
    StringPool reserved, grown;
    for (int i = 0; i < 100; ++i)
        CHECK(reserved.intern("early_" + std::to_string(i)) ==
              grown.intern("early_" + std::to_string(i)));
    reserved.reserve(20000);
    bool same = true;
    for (int i = 0; i < 20000; ++i) {
        const std::string name = "late_" + std::to_string(i % 15000);
        same = same && reserved.intern(name) == grown.intern(name);
    }
    for (int i = 0; i < 100; ++i)
        same = same && reserved.find("early_" + std::to_string(i)) ==
                           grown.find("early_" + std::to_string(i));
    CHECK(same);
    CHECK(std::equal(reserved.bytes().begin(), reserved.bytes().end(), grown.bytes().begin(),
                     grown.bytes().end()));
}

TEST_CASE("StringPool: internAll gives the ids one intern per string gives") {
    auto base = std::make_shared<StringPool>();
    base->intern("from_base");
    StringPool batched(base), single(base);
    std::vector<std::string> texts;
    for (int i = 0; i < 30000; ++i) // repeats, the base's string, empties and a NUL inside
        texts.push_back(i % 7 == 0    ? "from_base"
                        : i % 11 == 0 ? ""
                        : i % 13 == 0 ? std::string("cut\0here", 8)
                                      : "s" + std::to_string(i % 9000));
    std::vector<std::string_view> views(texts.begin(), texts.end());
    std::vector<StrId> ids(views.size());
    batched.internAll(views, ids);
    bool same = true;
    for (size_t i = 0; i < views.size(); ++i)
        same = same && ids[i] == single.intern(views[i]);
    CHECK(same);
    CHECK(std::equal(batched.bytes().begin(), batched.bytes().end(), single.bytes().begin(),
                     single.bytes().end()));
}
