// The address-carrying FUNC extension: its encoding through the writer and reader, and the
// conversions to standard BTF and to the RFC's DECL_TAG form, on graphs built here.
#include "btforge/btf/FuncAddrExtension.h"

#include "BtfTestSupport.h"

#include <doctest/doctest.h>

using namespace btforge;
using namespace btforge::test;

namespace {

constexpr uint64_t kHelperA = 0xffffffff81000130ull;
constexpr uint64_t kHelperB = 0x11b0;

// What the DWARF loader writes per address: types, then FUNCs by name (and address), each
// FUNC_PROTO before its first user, markers on the first FUNC of a name.
struct Extension {
    ir::TypeGraph graph;
    ir::TypeId intId, ptr, helperProto, helperA, helperB, differLong, differPtr, mainFunc, solo;

    Extension() {
        auto n = [&](std::string_view s) { return graph.intern(s); };
        intId = graph.add(ir::IntType{n("int"), 4, ir::int_encoding::kSigned, 0, 32});
        ptr = graph.add(ir::PtrType{ir::kNoName, intId});
        const ir::Param helperParams[] = {{n("p"), ptr}, {n("k"), intId}};
        helperProto = graph.add(ir::FuncProtoType{ir::kNoName, intId, helperParams});
        differLong =
            graph.add(ir::FuncType{n("differ"), helperProto, ir::FuncLinkage::Static, 0x1140});
        graph.add(ir::DeclTagType{n(btf::funcAddrBaseMarker("_text")), differLong, -1});
        const ir::Param ptrParam[] = {{n("s"), ptr}};
        ir::TypeId otherProto = graph.add(ir::FuncProtoType{ir::kNoName, intId, ptrParam});
        differPtr =
            graph.add(ir::FuncType{n("differ"), otherProto, ir::FuncLinkage::Static, 0x11c0});
        graph.add(
            ir::DeclTagType{n("func_addr:not-in-standard=ambiguous address"), differLong, -1});
        helperA =
            graph.add(ir::FuncType{n("helper"), helperProto, ir::FuncLinkage::Static, kHelperA});
        graph.add(ir::DeclTagType{n("hot"), helperA, -1});
        helperB =
            graph.add(ir::FuncType{n("helper"), helperProto, ir::FuncLinkage::Static, kHelperB});
        graph.add(ir::DeclTagType{n("hot"), helperB, -1});
        graph.add(ir::DeclTagType{n("func_addr:not-in-standard=ambiguous address"), helperA, -1});
        const ir::Param mainParams[] = {{n("argc"), intId}};
        ir::TypeId mainProto = graph.add(ir::FuncProtoType{ir::kNoName, intId, mainParams});
        mainFunc = graph.add(ir::FuncType{n("main"), mainProto, ir::FuncLinkage::Static, 0x11d0});
        graph.add(ir::DeclTagType{n("nonnull"), mainFunc, 0});
        solo = graph.add(ir::FuncType{n("solo"), mainProto, ir::FuncLinkage::Static});
        const ir::VarSecInfo none[] = {{graph.add(ir::VarType{n("v"), intId}), 0, 4}};
        graph.add(ir::DatasecType{n(".data"), 4, none});
    }
};

uint64_t get64(const Bytes& b, size_t at, ir::ByteOrder order) {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) {
        int k = order == ir::ByteOrder::Little ? 7 - i : i;
        v = v << 8 | std::to_integer<uint64_t>(b.at(at + k));
    }
    return v;
}

} // namespace

TEST_CASE("func-addr: FUNC kind_flag 1 carries 8 bytes of address in the BTF's byte order") {
    const Extension e;
    for (ir::ByteOrder order : {ir::ByteOrder::Little, ir::ByteOrder::Big}) {
        auto blob = btf::writeBtf(e.graph, {order, true});
        REQUIRE(blob);
        // Records: INT 16, PTR 12, FUNC_PROTO 12+16, then the first FUNC.
        const size_t func = 24 + 16 + 12 + 28;
        uint32_t info = get32(*blob, func + 4);
        if (order == ir::ByteOrder::Big)
            info = __builtin_bswap32(info);
        CHECK(info == (uint32_t{1} << 31 | static_cast<uint32_t>(ir::Kind::Func) << 24));
        CHECK(get64(*blob, func + 12, order) == 0x1140);

        auto back = btf::readBtf(*blob, {"ext.btf", nullptr, true});
        REQUIRE(back);
        CHECK(back->byteOrder() == order);
        CHECK(dump(*back) == dump(e.graph));
        CHECK(back->getAs<ir::FuncType>(e.helperA).address == kHelperA);
        CHECK_FALSE(back->getAs<ir::FuncType>(e.solo).address);
        auto again = btf::writeBtf(*back, {order, true});
        REQUIRE(again);
        CHECK(*again == *blob);

        // Without the option, the reader names the extension.
        auto strict = btf::readBtf(*blob, {"ext.btf", nullptr, false});
        REQUIRE_FALSE(strict);
        CHECK(strict.error().message().find("address-carrying FUNC extension") !=
              std::string::npos);
    }
}

TEST_CASE("func-addr: an address cut off by the end of the type section is refused") {
    ir::TypeGraph g;
    ir::TypeId intId = g.add(ir::IntType{g.intern("int"), 4, 0, 0, 32});
    ir::TypeId proto = g.add(ir::FuncProtoType{ir::kNoName, intId, {}});
    g.add(ir::FuncType{g.intern("f"), proto, ir::FuncLinkage::Static, 0x10});
    auto blob = btf::writeBtf(g, {std::nullopt, true});
    REQUIRE(blob);
    Bytes cut = *blob;
    patch32(cut, 12, get32(cut, 12) - 4); // type_len: half of the address left
    auto read = btf::readBtf(cut, {"cut.btf", nullptr, true});
    REQUIRE_FALSE(read);
    CHECK(read.error().message().find("runs past the end of the type section") !=
          std::string::npos);
}

TEST_CASE("func-addr: to standard BTF keeps the names standard BTF has, without addresses") {
    const Extension e;
    ir::TypeGraph standard =
        btf::funcAddrToStandard(ir::TypeGraph(ir::TypeGraph(e.graph.sharedBase())));
    CHECK(standard.ownCount() == 0); // nothing to convert: returned as it was

    // Expected: the types, main with its prototype and tag, solo, the data section.
    ir::TypeGraph expected;
    auto n = [&](std::string_view s) { return expected.intern(s); };
    ir::TypeId intId = expected.add(ir::IntType{n("int"), 4, ir::int_encoding::kSigned, 0, 32});
    expected.add(ir::PtrType{ir::kNoName, intId});
    const ir::Param mainParams[] = {{n("argc"), intId}};
    ir::TypeId mainProto = expected.add(ir::FuncProtoType{ir::kNoName, intId, mainParams});
    ir::TypeId mainFunc = expected.add(ir::FuncType{n("main"), mainProto, ir::FuncLinkage::Static});
    expected.add(ir::DeclTagType{n("nonnull"), mainFunc, 0});
    expected.add(ir::FuncType{n("solo"), mainProto, ir::FuncLinkage::Static});
    const ir::VarSecInfo data[] = {{expected.add(ir::VarType{n("v"), intId}), 0, 4}};
    expected.add(ir::DatasecType{n(".data"), 4, data});

    ir::TypeGraph copy = btf::funcAddrToDeclTags(ir::TypeGraph()); // empty in, empty out
    CHECK(copy.ownCount() == 0);
    auto blob = btf::writeBtf(e.graph, {std::nullopt, true});
    REQUIRE(blob);
    auto graph = btf::readBtf(*blob, {"ext.btf", nullptr, true});
    REQUIRE(graph);
    ir::TypeGraph converted = btf::funcAddrToStandard(std::move(*graph));
    CHECK(dump(converted) == dump(expected));
    CHECK(btf::firstAddressedFunc(converted) == ir::kVoidType);
    CHECK(btf::writeBtf(converted)); // standard BTF now
}

TEST_CASE("func-addr: to the DECL_TAG form, one FUNC per name and prototype") {
    const Extension e;
    auto blob = btf::writeBtf(e.graph, {std::nullopt, true});
    REQUIRE(blob);
    auto graph = btf::readBtf(*blob, {"ext.btf", nullptr, true});
    REQUIRE(graph);
    ir::TypeGraph tagged = btf::funcAddrToDeclTags(std::move(*graph));
    std::vector<std::string> funcs, tags;
    for (ir::TypeId id = tagged.firstId(); id < tagged.endId(); ++id) {
        if (tagged.kind(id) == ir::Kind::Func)
            funcs.push_back(std::string(tagged.name(id)));
        if (tagged.kind(id) == ir::Kind::DeclTag)
            tags.push_back(std::string(tagged.name(tagged.target(id))) + " " +
                           std::string(tagged.name(id)));
    }
    CHECK(funcs == std::vector<std::string>{"differ", "differ", "helper", "main", "solo"});
    CHECK(tags == std::vector<std::string>{
                      "differ func_addr:base=_text",
                      "differ func_addr:not-in-standard=ambiguous address",
                      "differ address=0x1140",
                      "differ address=0x11c0",
                      "helper hot",
                      "helper func_addr:not-in-standard=ambiguous address",
                      "helper address=0xffffffff81000130",
                      "helper address=0x11b0",
                      "main nonnull",
                      "main address=0x11d0",
                  });
    CHECK(btf::firstAddressedFunc(tagged) == ir::kVoidType);
    CHECK(btf::writeBtf(tagged));
}
