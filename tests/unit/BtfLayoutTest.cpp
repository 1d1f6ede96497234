// The 2026 BTF format: the kind-layout section (written with WriteOptions::layout, read always),
// 24-bit vlen, records of unknown kinds stepped over, and the FUNC address kind it describes.
#include "BtfTestSupport.h"

#include "btforge/btf/BtfFormat.h"
#include "btforge/btf/BtfReader.h"
#include "btforge/btf/BtfWriter.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace btforge;
using namespace btforge::test;
using ir::Kind;

namespace {

constexpr size_t kLayoutHeader = 32;

// Raw BTF in the 2026 arrangement: 32-byte header, types, layout entries, strings.
Bytes withLayout(const RawBtf& raw, const std::vector<btf::KindLayout>& layout) {
    Bytes out = {std::byte{0x9f}, std::byte{0xeb}, std::byte{1}, std::byte{0}};
    const auto typeLen = static_cast<uint32_t>(raw.words.size() * 4);
    const auto layoutLen = static_cast<uint32_t>(layout.size() * 4);
    for (uint32_t field : {uint32_t{kLayoutHeader}, 0u, typeLen, typeLen + layoutLen,
                           static_cast<uint32_t>(raw.strings.size()), typeLen, layoutLen})
        put32(out, field);
    for (uint32_t w : raw.words)
        put32(out, w);
    for (const btf::KindLayout& k : layout)
        put32(out, uint32_t{k.infoSize} | uint32_t{k.elemSize} << 8 | uint32_t{k.flags} << 16);
    for (char c : raw.strings)
        out.push_back(std::byte(c));
    return out;
}

// The standard kinds' entries, as every layout-aware producer writes them.
std::vector<btf::KindLayout> standardEntries() {
    std::vector<btf::KindLayout> out;
    for (uint32_t kind = 0; kind <= ir::kMaxKind; ++kind)
        out.push_back(btf::standardLayout(static_cast<Kind>(kind)));
    return out;
}

struct ReadResult {
    Expected<ir::TypeGraph> graph;
    std::vector<std::string> warnings;
};

ReadResult readWarned(const Bytes& blob, bool funcAddresses = false) {
    std::vector<std::string> warnings;
    btf::ReadOptions options{"test.btf", nullptr, funcAddresses,
                             [&](const std::string& m) { warnings.push_back(m); }};
    auto graph = btf::readBtf(blob, options);
    return {std::move(graph), std::move(warnings)};
}

} // namespace

TEST_CASE("layout: the writer's section matches the 2026 UAPI table and reads back") {
    const ir::TypeGraph graph = allKindsGraph();
    const Bytes classic = written(graph, ir::ByteOrder::Little);
    for (ir::ByteOrder order : {ir::ByteOrder::Little, ir::ByteOrder::Big}) {
        auto blob = btf::writeBtf(graph, {order, false, true});
        REQUIRE(blob);
        Bytes le = *blob;
        if (order == ir::ByteOrder::Little) {
            CHECK(get32(le, 4) == kLayoutHeader); // hdr_len
            const uint32_t typeLen = get32(le, 12);
            CHECK(typeLen == get32(classic, 12)); // the same records
            CHECK(get32(le, 24) == typeLen);      // layout_off: right after the types
            CHECK(get32(le, 28) == 80);           // layout_len: kinds 0-19
            CHECK(get32(le, 16) == typeLen + 80); // str_off: after the layout
            // UAPI btf.h: INT {4,0}, ARRAY {12,0}, STRUCT {0,12}, ENUM {0,8}, FUNC_PROTO {0,8},
            // VAR {4,0}, DATASEC {0,12}, DECL_TAG {4,0}, ENUM64 {0,12}, the rest {0,0}.
            const size_t at = kLayoutHeader + typeLen;
            const uint32_t expected[20] = {0, 4, 0, 12,     0x0c00, 0x0c00, 0x0800, 0, 0, 0,
                                           0, 0, 0, 0x0800, 4,      0x0c00, 0,      4, 0, 0x0c00};
            for (uint32_t kind = 0; kind < 20; ++kind)
                CHECK_MESSAGE(get32(le, at + 4 * kind) == expected[kind], "kind " << kind);
            // Types and strings are the classic bytes, moved.
            CHECK(std::equal(le.begin() + kLayoutHeader, le.begin() + kLayoutHeader + typeLen,
                             classic.begin() + 24));
            CHECK(std::equal(le.begin() + kLayoutHeader + typeLen + 80, le.end(),
                             classic.begin() + 24 + typeLen));
        }
        auto back = read(*blob);
        REQUIRE(back);
        CHECK(back->byteOrder() == order);
        CHECK(dump(*back) == dump(graph));
        auto again = btf::writeBtf(*back, {order, false, true});
        REQUIRE(again);
        CHECK(*again == *blob);
    }
}

TEST_CASE("layout: split BTF has the 2026 header and no section of its own, as upstream's") {
    auto base = std::make_shared<ir::TypeGraph>(allKindsGraph());
    ir::TypeGraph split(base);
    split.add(ir::PtrType{ir::kNoName, 1});
    auto blob = btf::writeBtf(split, {ir::ByteOrder::Little, false, true});
    REQUIRE(blob);
    CHECK(get32(*blob, 4) == kLayoutHeader);
    CHECK(get32(*blob, 12) == 12); // type_len: the PTR
    CHECK(get32(*blob, 16) == 12); // str_off: right after it
    CHECK(get32(*blob, 24) == 0);  // layout_off
    CHECK(get32(*blob, 28) == 0);  // layout_len
    auto back = read(*blob, base);
    REQUIRE(back);
    CHECK(dump(*back) == dump(split));
}

TEST_CASE("layout: split BTF holding addressed FUNCs describes kind 20 itself") {
    // Its base (here one read from DWARF, or a standard vmlinux) need not know kind 20: without
    // a section of its own, no reader could size those records (found by btf-reader-fuzz).
    auto base = std::make_shared<ir::TypeGraph>(allKindsGraph());
    ir::TypeGraph split(base);
    const ir::Param params[] = {{split.intern("a"), 1}};
    const ir::TypeId proto = split.add(ir::FuncProtoType{ir::kNoName, 1, params});
    split.add(ir::FuncType{split.intern("f"), proto, ir::FuncLinkage::Global, 0x1000ull});
    auto blob = btf::writeBtf(split, {ir::ByteOrder::Little, true, true});
    REQUIRE(blob);
    CHECK(get32(*blob, 28) == 84); // layout_len: kinds 0-20
    auto back = btf::readBtf(*blob, {"split.btf", base, true});
    REQUIRE(back);
    CHECK(dump(*back) == dump(split));
}

TEST_CASE("layout: 24-bit vlen is written with the layout and read back") {
    ir::TypeGraph graph;
    graph.add(ir::IntType{graph.intern("int"), 4, 0, 0, 32});
    std::vector<ir::Enumerator> values(70000, {graph.intern("v"), 1});
    graph.add(ir::EnumType{graph.intern("e"), 4, values});
    auto blob = btf::writeBtf(graph, {std::nullopt, false, true});
    REQUIRE(blob);
    auto back = read(*blob);
    REQUIRE(back);
    CHECK(back->getAs<ir::EnumType>(2).values.size() == 70000);
}

TEST_CASE("layout: a record of an unknown kind is stepped over by its layout and dropped") {
    RawBtf raw;
    raw.type(raw.str("int"), Kind::Int, 0, false, 4, {32});           // [1]
    raw.record(raw.str("future"), 21u << 24 | 2, 1, {7, 1, 2, 8, 3}); // [2] kind 21: 4 + 2 * 8
    raw.type(0, Kind::Ptr, 0, false, 2);                              // [3] -> the unknown one
    raw.type(0, Kind::Ptr, 0, false, 1);                              // [4] -> int
    raw.type(raw.str("p"), Kind::Typedef, 0, false, 4);               // [5] -> [4]
    raw.type(raw.str("tag"), Kind::DeclTag, 0, false, 2, {0});        // [6] on the unknown one
    auto layout = standardEntries();
    layout.push_back({}); // kind 20: not used here
    layout.push_back({4, 8, 0});

    auto [graph, warnings] = readWarned(withLayout(raw, layout));
    REQUIRE(graph);
    CHECK(dump(*graph) == "[1] INT 'int' size=4 enc=0 off=0 bits=32\n"
                          "[2] PTR '' type=0 kflag=0\n"
                          "[3] PTR '' type=1 kflag=0\n"
                          "[4] TYPEDEF 'p' type=3 kflag=0\n");
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0] == "test.btf: dropped 1 types of kinds btforge does not know (kind 21: 1), "
                         "stepped over as the layout section describes them, and 1 DECL_TAGs on "
                         "them; 1 references to them read as void");

    // Without a layout entry for it, the record's length is unknown: an error naming the kind.
    layout.pop_back();
    auto undescribed = readWarned(withLayout(raw, layout));
    REQUIRE_FALSE(undescribed.graph);
    CHECK(undescribed.graph.error().message().find("type [2]: unknown kind 21") !=
          std::string::npos);
}

TEST_CASE("layout: a malformed layout section is refused with its offset") {
    RawBtf raw;
    raw.type(raw.str("int"), Kind::Int, 0, false, 4, {32});
    Bytes blob = withLayout(raw, standardEntries());
    SUBCASE("misaligned") {
        patch32(blob, 24, 2);
        auto r = read(blob);
        REQUIRE_FALSE(r);
        CHECK(r.error().message().find("offset 0x18: layout section offset 0x2") !=
              std::string::npos);
    }
    SUBCASE("overlapping the types") {
        patch32(blob, 24, 0);
        auto r = read(blob);
        REQUIRE_FALSE(r);
        CHECK(r.error().message().find("overlaps the type section") != std::string::npos);
    }
    SUBCASE("past the end") {
        patch32(blob, 28, 4000);
        auto r = read(blob);
        REQUIRE_FALSE(r);
        CHECK(r.error().message().find("runs past the end") != std::string::npos);
    }
    SUBCASE("a length not a multiple of 4") {
        patch32(blob, 28, 78);
        auto r = read(blob);
        REQUIRE_FALSE(r);
        CHECK(r.error().message().find("not a multiple of 4") != std::string::npos);
    }
}

TEST_CASE("layout: an addressed FUNC is kind 20, which the layout describes") {
    ir::TypeGraph graph;
    auto n = [&](std::string_view s) { return graph.intern(s); };
    ir::TypeId intId = graph.add(ir::IntType{n("int"), 4, 0, 0, 32});
    const ir::Param params[] = {{n("a"), intId}};
    ir::TypeId proto = graph.add(ir::FuncProtoType{ir::kNoName, intId, params});
    ir::TypeId addressed =
        graph.add(ir::FuncType{n("f"), proto, ir::FuncLinkage::Static, 0x1234567890ull});
    graph.add(ir::DeclTagType{n("hot"), addressed, 0});
    ir::TypeId plain = graph.add(ir::FuncType{n("g"), proto, ir::FuncLinkage::Global});

    auto blob = btf::writeBtf(graph, {ir::ByteOrder::Little, true, true});
    REQUIRE(blob);
    const uint32_t typeLen = get32(*blob, 12);
    CHECK(get32(*blob, 28) == 84);                          // kinds 0-20
    CHECK(get32(*blob, kLayoutHeader + typeLen + 80) == 8); // kind 20: info_sz 8, elem_sz 0
    const size_t func = kLayoutHeader + 16 + 20;            // after INT and the FUNC_PROTO
    CHECK(get32(*blob, func + 4) == (btf::kFuncAddrKind << 24 | 0)); // static, no kind_flag
    CHECK(get32(*blob, func + 12) == 0x34567890);
    CHECK(get32(*blob, func + 16) == 0x12);

    auto [back, warnings] = readWarned(*blob, true);
    REQUIRE(back);
    CHECK(warnings.empty());
    CHECK(dump(*back) == dump(graph));
    CHECK(back->getAs<ir::FuncType>(plain).address == std::nullopt);

    // A reader not asked for addresses steps over it as any unknown kind.
    auto [standard, dropped] = readWarned(*blob, false);
    REQUIRE(standard);
    CHECK(standard->endId() == graph.endId() - 2); // the FUNC and its tag
    REQUIRE(dropped.size() == 1);
    CHECK(dropped[0].find("(kind 20: 1), stepped over as the layout section describes them, and "
                          "1 DECL_TAGs on them") != std::string::npos);
}
