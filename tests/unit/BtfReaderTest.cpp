#include "btforge/btf/BtfReader.h"

#include "BtfTestSupport.h"

#include "btforge/btf/BtfWriter.h"

#include <doctest/doctest.h>

#include <string>

using namespace btforge;
using namespace btforge::test;
using ir::Kind;

namespace {

// The read fails with one line naming the source, `offset` and `what`.
void checkRejected(const Bytes& blob, const std::string& offset, const std::string& what,
                   std::shared_ptr<const ir::TypeGraph> base = nullptr) {
    auto graph = read(blob, std::move(base));
    REQUIRE_FALSE(graph);
    const std::string& message = graph.error().message();
    INFO(message);
    CHECK(graph.error().kind() == ErrorKind::BadInput);
    CHECK(message.rfind("test.btf: offset " + offset + ": ", 0) == 0);
    CHECK(message.find(what) != std::string::npos);
    CHECK(message.find('\n') == std::string::npos);
}

// A blob whose only type is an INT, for header and string section tests.
RawBtf oneInt() {
    RawBtf raw;
    raw.type(raw.str("int"), Kind::Int, 0, false, 4, {32});
    return raw;
}

} // namespace

TEST_CASE("BtfReader: reads every kind and keeps the input's byte order") {
    const ir::TypeGraph original = allKindsGraph();
    for (ir::ByteOrder order : {ir::ByteOrder::Little, ir::ByteOrder::Big}) {
        auto graph = read(written(original, order));
        REQUIRE(graph);
        CHECK(graph->byteOrder() == order);
        CHECK(dump(*graph) == dump(original));
    }
}

TEST_CASE("BtfReader: name offsets are the input's string offsets") {
    RawBtf raw;
    uint32_t intName = raw.str("int");
    raw.type(intName, Kind::Int, 0, false, 4, {32});
    raw.type(intName + 1, Kind::Typedef, 0, false, 1); // a suffix of "int": "nt"
    auto graph = read(raw.bytes());
    REQUIRE(graph);
    CHECK(graph->nameId(1) == intName);
    CHECK(graph->name(2) == "nt");
}

TEST_CASE("BtfReader: decodes flags and packed words") {
    RawBtf raw;
    uint32_t name = raw.str("s");
    raw.type(name, Kind::Int, 0, false, 1, {(4u << 24) | (2u << 16) | 5u}); // bool, off 2, 5 bits
    raw.type(name, Kind::Struct, 1, true, 4, {name, 1, (3u << 24) | 9u});
    raw.type(name, Kind::Union, 1, false, 4, {name, 1, 0xfffffff0u});
    raw.type(name, Kind::Enum, 1, true, 4, {name, 0x80000000u});
    raw.type(name, Kind::Enum64, 1, false, 8, {name, 0x89abcdefu, 0x01234567u});
    raw.type(name, Kind::Fwd, 0, true, 0);
    raw.type(name, Kind::Const, 0, true, 1);
    raw.type(name, Kind::FuncProto, 0, false, 0);
    raw.type(name, Kind::Func, 2, false, 8);
    raw.type(name, Kind::Var, 0, false, 1, {2});
    raw.type(name, Kind::DeclTag, 0, true, 2, {0});
    auto graph = read(raw.bytes());
    REQUIRE(graph);
    auto i = graph->getAs<ir::IntType>(1);
    CHECK(i.encoding == ir::int_encoding::kBool);
    CHECK(i.bitOffset == 2);
    CHECK(i.bits == 5);
    auto s = graph->getAs<ir::StructType>(2);
    CHECK(s.kindFlag);
    CHECK(s.members[0] == ir::Member{name, 1, 9, 3});
    auto u = graph->getAs<ir::UnionType>(3);
    CHECK_FALSE(u.kindFlag);
    CHECK(u.members[0] == ir::Member{name, 1, 0xfffffff0u, 0});
    auto e = graph->getAs<ir::EnumType>(4);
    CHECK(e.isSigned);
    CHECK(e.values[0].value == 0x80000000u); // zero-extended raw bits
    CHECK(graph->getAs<ir::Enum64Type>(5).values[0].value == 0x0123456789abcdefull);
    CHECK(graph->getAs<ir::FwdType>(6).isUnion);
    CHECK(graph->getAs<ir::ConstType>(7).kindFlag);
    CHECK(graph->getAs<ir::FuncType>(9).linkage == ir::FuncLinkage::Extern);
    CHECK(graph->getAs<ir::VarType>(10).linkage == ir::VarLinkage::GlobalExtern);
    CHECK(graph->getAs<ir::DeclTagType>(11).kindFlag);
}

TEST_CASE("BtfReader: accepts a longer header and skips what it does not know") {
    RawBtf raw = oneInt();
    Bytes blob = raw.bytes(32);
    patch32(blob, 24, 0x1234); // e.g. layout_off, layout_len of a 2026 header
    auto graph = read(blob);
    REQUIRE(graph);
    CHECK(graph->name(1) == "int");
}

TEST_CASE("BtfReader: accepts sections in either order and padding before the types") {
    Bytes blob = oneInt().bytes(24, 8);
    REQUIRE(read(blob));
    // strings first, types after them
    RawBtf raw = oneInt();
    Bytes swapped = {blob.begin(), blob.begin() + 24};
    auto typeLen = static_cast<uint32_t>(raw.words.size() * 4);
    auto strLen = static_cast<uint32_t>(raw.strings.size());
    uint32_t typeOff = (strLen + 3) & ~3u;
    for (auto [at, value] : {std::pair{8, typeOff}, {12, typeLen}, {16, 0u}, {20, strLen}})
        patch32(swapped, at, value);
    for (char c : raw.strings)
        swapped.push_back(std::byte(c));
    swapped.resize(24 + typeOff);
    for (uint32_t w : raw.words)
        put32(swapped, w);
    auto graph = read(swapped);
    REQUIRE(graph);
    CHECK(graph->name(1) == "int");
}

TEST_CASE("BtfReader: looksLikeBtf") {
    const Bytes le = {std::byte{0x9f}, std::byte{0xeb}};
    const Bytes be = {std::byte{0xeb}, std::byte{0x9f}};
    const Bytes elf = {std::byte{0x7f}, std::byte{'E'}};
    CHECK(btf::looksLikeBtf(le));
    CHECK(btf::looksLikeBtf(be));
    CHECK_FALSE(btf::looksLikeBtf(elf));
    CHECK_FALSE(btf::looksLikeBtf(std::span(le).first(1)));
}

TEST_CASE("BtfReader: header errors") {
    const Bytes good = oneInt().bytes();
    Bytes blob;
    auto patched = [&](size_t at, uint32_t value) {
        blob = good;
        patch32(blob, at, value);
        return blob;
    };

    checkRejected(Bytes(good.begin(), good.begin() + 1), "0x0", "truncated header");
    checkRejected(Bytes(good.begin(), good.begin() + 23), "0x0", "truncated header");
    checkRejected(patched(0, 0x00010000), "0x0", "bad magic 0x0");
    checkRejected(patched(0, 0x0002eb9f), "0x2", "unsupported BTF version 2");
    checkRejected(patched(4, 20), "0x4", "header length 20");
    checkRejected(patched(4, static_cast<uint32_t>(good.size() + 1)), "0x4", "header length");
    checkRejected(patched(8, 0x100), "0x8", "type section [0x100, 0x110) runs past the end");
    checkRejected(patched(20, get32(good, 20) + 1), "0x10", "string section");
    checkRejected(patched(20, 0xffffffff), "0x10", "runs past the end");
    checkRejected(patched(16, 0), "0x10", "overlaps the type section");
    checkRejected(patched(12, 14), "0xc", "is not a multiple of 4");
    checkRejected(oneInt().bytes(24, 2), "0x8", "type section offset 0x2 is not 4-byte aligned");
}

TEST_CASE("BtfReader: string section errors") {
    RawBtf raw = oneInt();
    raw.strings[0] = 'x';
    checkRejected(raw.bytes(), "0x28", "does not start with a NUL");

    raw = oneInt();
    raw.strings += "tail";
    checkRejected(raw.bytes(), "0x30", "does not end with a NUL");

    raw = RawBtf{};
    raw.strings.clear();
    checkRejected(raw.bytes(), "0x14", "string section is empty");

    raw = RawBtf{};
    raw.type(5, Kind::Int, 0, false, 4, {32});
    checkRejected(raw.bytes(), "0x18", "type [1] INT: name offset 0x5 is past the end");

    raw = RawBtf{};
    uint32_t s = raw.str("s");
    raw.type(s, Kind::Struct, 2, false, 8, {0, 0, 0, 99, 0, 0});
    checkRejected(raw.bytes(), "0x30", "type [1] STRUCT 's': member 1 name offset 0x63");

    raw = RawBtf{};
    raw.type(0, Kind::Enum, 1, false, 4, {77, 1});
    checkRejected(raw.bytes(), "0x24", "enumerator 0 name offset 0x4d");
}

TEST_CASE("BtfReader: record layout errors") {
    for (uint32_t kind : {0u, 20u, 127u}) {
        RawBtf raw;
        raw.record(0, kind << 24, 0);
        checkRejected(raw.bytes(), "0x1c", "type [1]: unknown kind " + std::to_string(kind));
    }

    RawBtf raw = oneInt();
    raw.type(0, Kind::Struct, 3, false, 4, {0, 1, 0}); // vlen 3, one member present
    checkRejected(raw.bytes(), "0x28",
                  "type [2] STRUCT: record of 48 bytes (vlen 3) runs past the end of the type "
                  "section (24 bytes left)");

    raw = oneInt();
    raw.type(0, Kind::Enum, 0xffff, false, 4);
    checkRejected(raw.bytes(), "0x28", "vlen 65535");

    raw = oneInt();
    raw.words.insert(raw.words.end(), {0, 0}); // 8 stray bytes
    checkRejected(raw.bytes(), "0x28", "type [2]: only 8 bytes left in the type section");

    raw = oneInt();
    raw.type(0, Kind::Array, 0, false, 0, {1, 1}); // ARRAY needs 12 more bytes
    checkRejected(raw.bytes(), "0x28", "type [2] ARRAY: record of 24 bytes");

    // vlen is 24 bits wide (2026 UAPI): bit 16 counts, it is not refused as reserved.
    raw = RawBtf{};
    raw.record(0, btf::makeInfo(uint32_t(Kind::Struct), 0, false) | 0x10000, 0);
    checkRejected(raw.bytes(), "0x18", "record of 786444 bytes (vlen 65536)");
}

TEST_CASE("BtfReader: field errors") {
    RawBtf raw = oneInt();
    raw.type(0, Kind::Ptr, 0, false, 5);
    checkRejected(raw.bytes(), "0x30",
                  "type [2] PTR: type refers to type [5], past the last "
                  "type [2]");

    raw = oneInt();
    raw.type(raw.str("f"), Kind::FuncProto, 1, false, 1, {0, 3});
    checkRejected(raw.bytes(), "0x38", "param 0 type refers to type [3]");

    raw = oneInt();
    raw.type(0, Kind::Array, 0, false, 0, {1, 9, 4});
    checkRejected(raw.bytes(), "0x38", "ARRAY: index type refers to type [9]");

    raw = oneInt();
    raw.type(raw.str("f"), Kind::FuncProto, 0, false, 1);
    raw.type(raw.str("f"), Kind::Func, 0, true, 2);
    checkRejected(raw.bytes(), "0x38",
                  "type [3] FUNC: FUNC with kind_flag set (address-carrying FUNC "
                  "extension) is not standard BTF");

    raw = oneInt();
    raw.type(raw.str("f"), Kind::Func, 3, false, 1);
    checkRejected(raw.bytes(), "0x2c", "linkage 3");

    raw = oneInt();
    raw.type(raw.str("v"), Kind::Var, 0, false, 1, {7});
    checkRejected(raw.bytes(), "0x34", "type [2] VAR 'v': linkage 7");

    raw = oneInt();
    raw.type(raw.str("f"), Kind::Func, 0, false, 1);
    checkRejected(raw.bytes(), "0x30", "refers to type [1] INT 'int', not a FUNC_PROTO");

    raw = RawBtf{};
    raw.type(0, Kind::Int, 0, false, 16, {129});
    checkRejected(raw.bytes(), "0x24", "exceed 128");
    raw = RawBtf{};
    raw.type(0, Kind::Int, 0, false, 2, {(4u << 16) | 16u});
    checkRejected(raw.bytes(), "0x24", "bit offset 4 + 16 bits do not fit in 2 bytes");

    // A hostile name cannot break the one-line message.
    raw = RawBtf{};
    raw.type(raw.str("a\nb'"), Kind::Ptr, 0, false, 9);
    checkRejected(raw.bytes(), "0x20", "PTR 'a\\x0ab\\x27'");
}

TEST_CASE("BtfReader: DECL_TAG component_idx") {
    auto withTag = [](int32_t component, bool onFunc) {
        RawBtf raw = oneInt();
        uint32_t name = raw.str("m");
        raw.type(name, Kind::Struct, 1, false, 4, {name, 1, 0});    // [2]
        raw.type(0, Kind::FuncProto, 2, false, 1, {name, 1, 0, 0}); // [3] (int, ...)
        raw.type(name, Kind::Func, 0, false, 3);                    // [4]
        raw.type(name, Kind::DeclTag, 0, false, onFunc ? 4 : 2, {uint32_t(component)});
        return raw.bytes();
    };
    CHECK(read(withTag(-1, false)));
    CHECK(read(withTag(0, false)));
    CHECK(read(withTag(1, true)));
    checkRejected(withTag(1, false), "0x74",
                  "type [5] DECL_TAG 'm': component_idx 1 is out of range for type [2] STRUCT "
                  "'m' (1 members or parameters)");
    checkRejected(withTag(2, true), "0x74", "for type [4] FUNC 'm' (2 members or parameters)");
    checkRejected(withTag(-2, false), "0x74", "component_idx -2 is negative but not -1");

    RawBtf raw = oneInt();
    raw.type(raw.str("t"), Kind::DeclTag, 0, false, 1, {0});
    checkRejected(raw.bytes(), "0x34", "out of range for type [1] INT 'int' (no members");
}

TEST_CASE("BtfReader: reference loops are rejected") {
    RawBtf raw;
    raw.type(raw.str("self"), Kind::Typedef, 0, false, 1);
    checkRejected(raw.bytes(), "0x18",
                  "type [1] TYPEDEF 'self' is on a reference loop that never reaches a type with "
                  "a size: [1] TYPEDEF -> [1]");

    raw = oneInt();
    raw.type(0, Kind::Ptr, 0, false, 3);
    raw.type(0, Kind::Ptr, 0, false, 2);
    checkRejected(raw.bytes(), "0x28", "[2] PTR -> [3] PTR -> [2]");

    raw = oneInt();
    raw.type(0, Kind::Const, 0, false, 3);
    raw.type(0, Kind::Array, 0, false, 0, {2, 1, 4});
    checkRejected(raw.bytes(), "0x28", "[2] CONST -> [3] ARRAY -> [2]");
}

TEST_CASE("BtfReader: a struct may point to itself but not contain itself") {
    RawBtf raw = oneInt();
    uint32_t name = raw.str("s");
    raw.type(name, Kind::Struct, 2, false, 16, {name, 3, 0, name, 1, 64}); // [2]
    raw.type(0, Kind::Ptr, 0, false, 2);                                   // [3]
    CHECK(read(raw.bytes()));

    raw = oneInt();
    name = raw.str("s");
    raw.type(name, Kind::Struct, 1, false, 16, {name, 2, 0});
    checkRejected(raw.bytes(), "0x28", "type [2] STRUCT 's' contains itself by value");

    // through a union, a typedef and an array; the loop is reported from the struct
    raw = oneInt();
    name = raw.str("s");
    raw.type(0, Kind::Typedef, 0, false, 4);                  // [2]
    raw.type(0, Kind::Array, 0, false, 0, {2, 1, 2});         // [3]
    raw.type(name, Kind::Union, 1, false, 16, {name, 5, 0});  // [4]
    raw.type(name, Kind::Struct, 1, false, 16, {name, 3, 0}); // [5]
    checkRejected(raw.bytes(), "0x4c",
                  "type [4] UNION 's' contains itself by value: [4] UNION -> [5] STRUCT -> [3] "
                  "ARRAY -> [2] TYPEDEF -> [4]");
}

TEST_CASE("BtfReader: deep chains do not exhaust the stack") {
    RawBtf raw = oneInt();
    constexpr uint32_t kDepth = 200000;
    for (uint32_t id = 2; id < kDepth; ++id)
        raw.type(0, Kind::Const, 0, false, id - 1);
    uint32_t name = raw.str("s");
    raw.type(name, Kind::Struct, 1, false, 4, {name, kDepth - 1, 0});
    CHECK(read(raw.bytes()));
    constexpr size_t kSecondTarget = 6;    // words of [1] INT, then [2]'s name and info
    raw.words[kSecondTarget] = kDepth - 1; // the chain's far end leads back to its start
    checkRejected(raw.bytes(), "0x28", "reference loop");
    raw.words[kSecondTarget] = kDepth; // ... or to the struct holding the chain
    // reported at the struct: after [1] (16 bytes at 0x18) and 199998 CONSTs of 12 bytes
    checkRejected(raw.bytes(), "0x249f10", "type [200000] STRUCT 's' contains itself by value");
}

TEST_CASE("BtfReader: split BTF continues the base's ids and strings") {
    auto base = std::make_shared<const ir::TypeGraph>(allKindsGraph());
    const uint32_t baseStrings = base->strings().endId();
    const uint32_t firstId = base->endId();

    RawBtf raw;
    raw.strings.clear(); // a split section has no leading NUL
    uint32_t own = baseStrings + raw.str("module_thing");
    uint32_t intName = *base->strings().find("int");
    raw.type(own, Kind::Struct, 1, false, 4, {intName, 1, 0});
    raw.type(0, Kind::Ptr, 0, false, firstId);
    auto graph = read(raw.bytes(), base);
    REQUIRE(graph);
    CHECK(graph->firstId() == firstId);
    CHECK(graph->name(firstId) == "module_thing");
    CHECK(graph->str(graph->getAs<ir::StructType>(firstId).members[0].name) == "int");
    CHECK(graph->target(firstId + 1) == firstId);

    RawBtf empty; // no new strings at all: names are the base's
    empty.strings.clear();
    empty.type(0, Kind::Ptr, 0, false, 1);
    empty.type(intName, Kind::Typedef, 0, false, 1);
    auto noStrings = read(empty.bytes(), base);
    REQUIRE(noStrings);
    CHECK(noStrings->name(firstId + 1) == "int");

    raw.words[0] = baseStrings + 100;
    checkRejected(raw.bytes(), "0x18", "name offset", base);
    raw.words[0] = own;
    raw.words[8] = firstId + 2;
    checkRejected(raw.bytes(), "0x38", "past the last type", base);
    raw.words[8] = firstId;
    raw.strings.back() = 'x';
    checkRejected(raw.bytes(), "0x48", "does not end with a NUL", base);
}

TEST_CASE("BtfReader: without a source name messages still start with a location") {
    auto graph = btf::readBtf(Bytes(3), {});
    REQUIRE_FALSE(graph);
    CHECK(graph.error().message() == "BTF: offset 0x0: bad magic 0x0: not BTF (0xeb9f in either "
                                     "byte order)");
}

TEST_CASE("BtfReader: every truncation fails cleanly") {
    const ir::TypeGraph graph = allKindsGraph();
    for (ir::ByteOrder order : {ir::ByteOrder::Little, ir::ByteOrder::Big}) {
        const Bytes blob = written(graph, order);
        for (size_t size = 0; size < blob.size(); ++size) {
            auto result = btf::readBtf(std::span(blob).first(size), {"cut"});
            REQUIRE_FALSE(result);
            CHECK(result.error().message().find('\n') == std::string::npos);
        }
    }
    // Cut inside the type section with a header that agrees: every record boundary and every
    // word within a record.
    RawBtf full;
    const Bytes blob = written(graph);
    const uint32_t typeLen = get32(blob, 12);
    full.strings = stringSection(blob);
    for (uint32_t words = 0; words < typeLen / 4; ++words) {
        RawBtf cut = full;
        for (uint32_t w = 0; w < words; ++w)
            cut.words.push_back(get32(blob, 24 + 4 * w));
        auto result = read(cut.bytes());
        if (!result)
            CHECK(result.error().message().find('\n') == std::string::npos);
    }
}

TEST_CASE("BtfReader: corrupting any word never crashes") {
    const Bytes blob = written(allKindsGraph());
    for (size_t at = 0; at + 4 <= blob.size(); at += 4) {
        for (uint32_t value : {0u, 1u, 0x7fu, 0xffffu, 0x80000000u, 0xffffffffu}) {
            Bytes bad = blob;
            patch32(bad, at, value);
            auto result = read(bad);
            if (!result)
                CHECK(result.error().message().find('\n') == std::string::npos);
        }
    }
}
