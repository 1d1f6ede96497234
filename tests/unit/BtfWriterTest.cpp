#include "btforge/btf/BtfWriter.h"

#include "BtfTestSupport.h"

#include "btforge/btf/BtfReader.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace btforge;
using namespace btforge::test;

namespace {

std::string writeError(const ir::TypeGraph& g) {
    auto blob = btf::writeBtf(g);
    REQUIRE_FALSE(blob);
    CHECK(blob.error().kind() == ErrorKind::BadInput);
    return blob.error().message();
}

} // namespace

TEST_CASE("BtfWriter: header and section layout") {
    const Bytes blob = written(allKindsGraph(), ir::ByteOrder::Little);
    CHECK(blob[0] == std::byte{0x9f});
    CHECK(blob[1] == std::byte{0xeb});
    CHECK(blob[2] == std::byte{1}); // version
    CHECK(blob[3] == std::byte{0}); // flags
    CHECK(get32(blob, 4) == 24);
    CHECK(get32(blob, 8) == 0);
    CHECK(get32(blob, 16) == get32(blob, 12)); // strings right after the types
    CHECK(24 + get32(blob, 12) + get32(blob, 20) == blob.size());
}

TEST_CASE("BtfWriter: round trip is byte-identical in both byte orders") {
    const ir::TypeGraph graph = allKindsGraph();
    for (ir::ByteOrder order : {ir::ByteOrder::Little, ir::ByteOrder::Big}) {
        const Bytes first = written(graph, order);
        auto reread = read(first);
        REQUIRE(reread);
        CHECK(dump(*reread) == dump(graph));
        CHECK(written(*reread) == first); // the reread graph keeps the input's order
    }
    const Bytes little = written(graph, ir::ByteOrder::Little);
    const Bytes big = written(graph, ir::ByteOrder::Big);
    CHECK(big[0] == std::byte{0xeb});
    CHECK(big[1] == std::byte{0x9f});
    CHECK(little != big);
    auto fromBig = read(big);
    REQUIRE(fromBig);
    CHECK(written(*fromBig, ir::ByteOrder::Little) == little);
}

TEST_CASE("BtfWriter: byte order defaults to the graph's") {
    ir::TypeGraph graph = allKindsGraph();
    graph.setByteOrder(ir::ByteOrder::Big);
    CHECK(written(graph)[0] == std::byte{0xeb});
    graph.setByteOrder(ir::ByteOrder::Little);
    CHECK(written(graph)[0] == std::byte{0x9f});
}

TEST_CASE("BtfWriter: strings in first-use order, deduplicated, unused ones dropped") {
    ir::TypeGraph graph;
    graph.intern("unused");
    ir::TypeId intId = graph.add(ir::IntType{graph.intern("int"), 4, 0, 0, 32});
    const ir::Member members[] = {{graph.intern("b"), intId, 0, 0},
                                  {graph.intern("int"), intId, 32, 0},
                                  {graph.intern("a"), intId, 64, 0}};
    graph.add(ir::StructType{graph.intern("a"), 12, members});
    const Bytes blob = written(graph);
    CHECK(stringSection(blob) == std::string("\0int\0a\0b\0", 9));
    CHECK(get32(blob, 24) == 1); // INT 'int'
    CHECK(get32(blob, 40) == 5); // STRUCT 'a'
    CHECK(get32(blob, 52) == 7); // member 'b'
    CHECK(get32(blob, 64) == 1); // member 'int'
    CHECK(get32(blob, 76) == 5); // member 'a'

    ir::TypeGraph reordered; // same types, strings interned in another order
    for (const char* s : {"a", "b", "int"})
        reordered.intern(s);
    intId = reordered.add(ir::IntType{reordered.intern("int"), 4, 0, 0, 32});
    const ir::Member same[] = {{reordered.intern("b"), intId, 0, 0},
                               {reordered.intern("int"), intId, 32, 0},
                               {reordered.intern("a"), intId, 64, 0}};
    reordered.add(ir::StructType{reordered.intern("a"), 12, same});
    CHECK(written(reordered) == blob);
}

TEST_CASE("BtfWriter: bitfields set kind_flag and pack the member word") {
    ir::TypeGraph graph;
    ir::TypeId intId = graph.add(ir::IntType{graph.intern("int"), 4, 0, 0, 32});
    const ir::Member members[] = {{graph.intern("a"), intId, 0, 0},
                                  {graph.intern("b"), intId, 35, 5}};
    graph.add(ir::StructType{graph.intern("s"), 8, members}); // kindFlag not set by the builder
    const Bytes blob = written(graph);
    const size_t record = 24 + 16;
    CHECK(get32(blob, record + 4) == btf::makeInfo(4, 2, true));
    CHECK(get32(blob, record + 12 + 8) == 0);
    CHECK(get32(blob, record + 24 + 8) == (5u << 24 | 35u));

    const ir::Member plain[] = {{graph.intern("far"), intId, 1u << 24, 0}};
    graph.add(ir::UnionType{graph.intern("u"), 4, plain}); // no bitfield: any offset fits
    auto reread = read(written(graph));
    REQUIRE(reread);
    // Only the struct's flag differs: the writer set it for the bitfield.
    std::string expected = dump(graph);
    expected.replace(expected.find("kflag=0"), 7, "kflag=1");
    CHECK(dump(*reread) == expected);
}

TEST_CASE("BtfWriter: refuses what BTF cannot hold") {
    ir::TypeGraph graph;
    ir::TypeId intId = graph.add(ir::IntType{graph.intern("int"), 4, 0, 0, 32});

    SUBCASE("bit offset past 24 bits in a kind_flag struct") {
        const ir::Member members[] = {{graph.intern("m"), intId, 1u << 24, 1}};
        graph.add(ir::StructType{graph.intern("s"), 4, members});
        CHECK(writeError(graph).find("STRUCT [2] 's' member 0 'm' at bit 16777216 with bitfield "
                                     "size 1 does not fit") == 0);
    }
    SUBCASE("bitfield size past 8 bits") {
        const ir::Member members[] = {{graph.intern("m"), intId, 0, 256}};
        graph.add(ir::UnionType{graph.intern("u"), 64, members});
        CHECK(writeError(graph).find("UNION [2] 'u' member 0") == 0);
    }
    SUBCASE("vlen past 65535") {
        std::vector<ir::Enumerator> values(70000, {graph.intern("v"), 1});
        graph.add(ir::EnumType{graph.intern("e"), 4, values});
        CHECK(writeError(graph) == "ENUM [2] 'e' has 70000 enumerators: BTF allows at most 65535 "
                                   "(16777215 with the layout feature: --features "
                                   "default,layout)");
    }
    SUBCASE("a FUNC address") {
        ir::TypeId proto = graph.add(ir::FuncProtoType{ir::kNoName, intId, {}});
        graph.add(ir::FuncType{graph.intern("f"), proto, ir::FuncLinkage::Global, 0x1000});
        CHECK(writeError(graph) ==
              "FUNC [3] 'f' carries an address (the address-carrying FUNC extension): standard "
              "BTF cannot hold it; write it with -t btf-func-addr, or convert it with "
              "--func-addr=merge or --func-addr=decl-tag");
    }
}

TEST_CASE("BtfWriter: a VAR's address and section are beyond BTF: dropped, not refused") {
    ir::TypeGraph graph;
    ir::TypeId intId = graph.add(ir::IntType{graph.intern("int"), 4, 0, 0, 32});
    graph.add(ir::VarType{graph.intern("v"), intId, ir::VarLinkage::GlobalAllocated, 0x2000,
                          graph.intern(".data")});
    const Bytes blob = written(graph);
    CHECK(stringSection(blob) == std::string("\0int\0v\0", 7));
    auto reread = read(blob);
    REQUIRE(reread);
    CHECK_FALSE(reread->getAs<ir::VarType>(2).address);
}

TEST_CASE("BtfWriter: split BTF reuses the base's strings and continues its offsets") {
    auto base = std::make_shared<const ir::TypeGraph>(allKindsGraph());
    ir::TypeGraph split(base);
    ir::TypeId baseInt = 1;
    const ir::Member members[] = {{split.intern("x"), baseInt, 0, 0},             // in the base
                                  {split.intern("module_only"), baseInt, 32, 0}}; // new
    ir::TypeId own = split.add(ir::StructType{split.intern("mod_struct"), 8, members});
    split.add(ir::PtrType{ir::kNoName, own});

    const Bytes blob = written(split);
    const uint32_t baseEnd = base->strings().endId();
    CHECK(stringSection(blob) == std::string("mod_struct\0module_only\0", 23)); // no leading NUL
    CHECK(get32(blob, 24) == baseEnd);                                          // 'mod_struct'
    CHECK(get32(blob, 36) == *base->strings().find("x"));
    CHECK(get32(blob, 48) == baseEnd + 11); // 'module_only'
    CHECK(get32(blob, 24 + 36 + 8) == own);

    auto reread = read(blob, base);
    REQUIRE(reread);
    CHECK(reread->firstId() == base->endId());
    CHECK(dump(*reread) == dump(split));
    CHECK(written(*reread) == blob);

    ir::TypeGraph noNames(base);
    noNames.add(ir::PtrType{ir::kNoName, baseInt});
    const Bytes bare = written(noNames);
    CHECK(get32(bare, 20) == 0); // an empty string section
    CHECK(read(bare, base));
}

TEST_CASE("BtfWriter: withBase writes a split graph and its base as one, ids and offsets kept") {
    auto base = std::make_shared<const ir::TypeGraph>(allKindsGraph());
    ir::TypeGraph split(base);
    const ir::Member members[] = {{split.intern("x"), 1, 0, 0},
                                  {split.intern("module_only"), 1, 32, 0}};
    const ir::TypeId own = split.add(ir::StructType{split.intern("mod_struct"), 8, members});
    split.add(ir::PtrType{ir::kNoName, own});

    auto blob = btf::writeBtf(split, {.withBase = true});
    REQUIRE(blob);
    auto whole = read(*blob); // standalone: no base given
    REQUIRE(whole);
    CHECK(whole->firstId() == 1);
    CHECK(whole->endId() == split.endId());
    CHECK(dump(*whole) == dump(*base) + dump(split));
    for (ir::TypeId id = 1; id < split.endId(); ++id)
        CHECK(whole->nameId(id) == split.nameId(id)); // every name at the offset the graph gives it
    // A graph without a base is written as without the option.
    CHECK(*btf::writeBtf(*base, {.withBase = true}) == written(*base));
}

TEST_CASE("BtfWriter: output depends on the graph only") {
    CHECK(written(allKindsGraph()) == written(allKindsGraph()));
}
