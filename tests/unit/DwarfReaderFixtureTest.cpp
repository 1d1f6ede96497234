// Both DWARF loaders on fixtures written from a description of the DIEs (tests/support): every
// DWARF version, byte order and ELF class, odd forms, and the edge cases of bitfields, enums and
// array bounds. Expectations are what the described DIEs mean in C.
#include "DwarfSampler.h"
#include "FixtureLoading.h"

#include "btforge/ir/Types.h"

#include <doctest/doctest.h>

#include <dwarf.h>
#include <elf.h>
#include <set>
#include <string>

using namespace btforge;
using namespace btforge::test;
using ir::Kind;

namespace {

// A fixture of one C unit holding `dies`.
Fixture unitOf(std::vector<Die> dies, uint16_t version = 4) {
    Fixture f;
    f.dwarfVersion = version;
    f.units = {
        {DW_TAG_compile_unit,
         {{DW_AT_language, DW_FORM_data1, DW_LANG_C99}, {DW_AT_name, DW_FORM_string, "fixture.c"}},
         std::move(dies)}};
    return f;
}

Die baseType(const char* label, const char* name, uint8_t size, uint8_t encoding) {
    return {DW_TAG_base_type,
            {{DW_AT_name, DW_FORM_string, name},
             {DW_AT_byte_size, DW_FORM_data1, size},
             {DW_AT_encoding, DW_FORM_data1, encoding}},
            {},
            label};
}

ir::TypeGraph load(const std::string& loader, const Fixture& f, plugin::Options options = {}) {
    Loaded loaded = loadFixture(loader, f, options);
    INFO(loader << ": " << (loaded.graph ? "" : loaded.graph.error().message()));
    REQUIRE(loaded.graph);
    return std::move(*loaded.graph);
}

// What a type is after typedefs and qualifiers: its kind and name.
std::string spelled(const ir::TypeGraph& g, ir::TypeId id) {
    std::string out;
    for (;;) {
        Kind k = g.kind(id);
        if (k == Kind::Const)
            out += "const ";
        else if (k == Kind::Ptr)
            out += "* ";
        else if (k == Kind::Typedef)
            out += std::string(g.name(id)) + "=";
        else
            return out + std::string(g.name(id));
        id = g.target(id);
    }
}

int64_t signedValue(const ir::Enumerator& e, uint32_t size) {
    return size == 8 ? static_cast<int64_t>(e.value) : static_cast<int32_t>(e.value);
}

} // namespace

TEST_CASE("DWARF fixtures: the sampler unit, every version, byte order and class") {
    plugin::Options options;
    options.features = {"default", "global_var"};
    for (const std::string& loader : dwarfLoaders()) {
        for (uint16_t version = 2; version <= 5; ++version) {
            for (Endian endian : {Endian::Little, Endian::Big}) {
                for (bool elf64 : {false, true}) {
                    CAPTURE(loader);
                    CAPTURE(version);
                    CAPTURE(endian == Endian::Big);
                    CAPTURE(elf64);
                    ir::TypeGraph g = load(loader, sampler(version, endian, elf64), options);
                    const uint32_t pointer = elf64 ? 8 : 4;
                    CHECK(g.pointerSize() == pointer);
                    CHECK(g.byteOrder() ==
                          (endian == Endian::Big ? ir::ByteOrder::Big : ir::ByteOrder::Little));

                    auto i = g.getAs<ir::IntType>(findType(g, Kind::Int, "int"));
                    CHECK(i.size == 4);
                    CHECK(i.bits == 32);
                    CHECK(i.encoding == 1); // BTF_INT_SIGNED
                    auto uc = g.getAs<ir::IntType>(findType(g, Kind::Int, "unsigned char"));
                    CHECK(uc.size == 1);
                    CHECK((uc.encoding & 1) == 0);
                    CHECK(spelled(g, findType(g, Kind::Typedef, "i_t")) == "i_t=int");

                    auto s = g.getAs<ir::StructType>(findType(g, Kind::Struct, "s"));
                    CHECK(s.size == 16);
                    REQUIRE(s.members.size() == 3);
                    CHECK(g.str(s.members[0].name) == "a");
                    CHECK(s.members[0].bitOffset == 0);
                    CHECK(spelled(g, s.members[0].type) == "int");
                    CHECK(g.str(s.members[1].name) == "p");
                    CHECK(s.members[1].bitOffset == 8 * pointer);
                    CHECK(spelled(g, s.members[1].type) == "* int");
                    CHECK(g.str(s.members[2].name) == "bits");
                    CHECK(s.members[2].bitfieldSize == 3);
                    CHECK(s.members[2].bitOffset ==
                          (version < 4 && endian == Endian::Big ? 121u : 100u));

                    auto e = g.getAs<ir::EnumType>(findType(g, Kind::Enum, "e"));
                    CHECK(e.size == 4);
                    CHECK(e.isSigned);
                    REQUIRE(e.values.size() == 2);
                    CHECK(signedValue(e.values[0], 4) == -2);
                    CHECK(signedValue(e.values[1], 4) == 0x7fffffff);

                    if (version >= 5) {
                        // DW_FORM_implicit_const; the data16 value: a test case of its own.
                        auto w = g.getAs<ir::Enum64Type>(findType(g, Kind::Enum64, "wide"));
                        CHECK(w.size == 8);
                        CHECK(w.values.size() == 1);
                    }

                    // unsigned char[10][3], flattened as pahole writes it.
                    bool array = false;
                    for (ir::TypeId id = g.firstId(); id < g.endId(); ++id) {
                        if (g.kind(id) != Kind::Array)
                            continue;
                        auto a = g.getAs<ir::ArrayType>(id);
                        array = a.count == 30 && spelled(g, a.elemType) == "unsigned char";
                    }
                    CHECK(array);

                    auto f = g.getAs<ir::FuncType>(findType(g, Kind::Func, "f"));
                    auto proto = g.getAs<ir::FuncProtoType>(f.proto);
                    CHECK(spelled(g, proto.returnType) == "int");
                    REQUIRE(proto.params.size() == 1);
                    CHECK(g.str(proto.params[0].name) == "x");
                    CHECK(spelled(g, proto.params[0].type) == "const i_t=int");

                    auto v = g.getAs<ir::VarType>(findType(g, Kind::Var, "v"));
                    CHECK(spelled(g, v.type) == "s");
                    auto data = g.getAs<ir::DatasecType>(findType(g, Kind::Datasec, ".data"));
                    REQUIRE(data.entries.size() == 1);
                    CHECK(data.entries[0].offset == 0);
                    CHECK(data.entries[0].size == 16);
                }
            }
        }
    }
}

TEST_CASE("DWARF fixtures: enums take their signedness from their values and their type") {
    Fixture f = unitOf({
        baseType("uint", "unsigned int", 4, DW_ATE_unsigned),
        baseType("u8", "unsigned char", 1, DW_ATE_unsigned_char),
        baseType("ulong", "unsigned long", 8, DW_ATE_unsigned),
        {DW_TAG_enumeration_type,
         {{DW_AT_name, DW_FORM_string, "flags"},
          {DW_AT_byte_size, DW_FORM_data1, 4},
          {DW_AT_type, DW_FORM_ref4, "uint"}},
         {{DW_TAG_enumerator,
           {{DW_AT_name, DW_FORM_string, "ALL"}, {DW_AT_const_value, DW_FORM_data4, 0xffffffffu}}},
          {DW_TAG_enumerator,
           {{DW_AT_name, DW_FORM_string, "ONE"}, {DW_AT_const_value, DW_FORM_udata, 1}}}}},
        {DW_TAG_enumeration_type,
         {{DW_AT_name, DW_FORM_string, "byte"},
          {DW_AT_byte_size, DW_FORM_data1, 1},
          {DW_AT_type, DW_FORM_ref4, "u8"}},
         {{DW_TAG_enumerator,
           {{DW_AT_name, DW_FORM_string, "TOP"}, {DW_AT_const_value, DW_FORM_data1, 0xff}}}}},
        // No DW_AT_type (DWARF 2 style): the sdata form says the value is negative.
        {DW_TAG_enumeration_type,
         {{DW_AT_name, DW_FORM_string, "sign"}, {DW_AT_byte_size, DW_FORM_data1, 4}},
         {{DW_TAG_enumerator,
           {{DW_AT_name, DW_FORM_string, "MINUS"}, {DW_AT_const_value, DW_FORM_sdata, -1}}}}},
        {DW_TAG_enumeration_type,
         {{DW_AT_name, DW_FORM_string, "big"},
          {DW_AT_byte_size, DW_FORM_data1, 8},
          {DW_AT_type, DW_FORM_ref4, "ulong"}},
         {{DW_TAG_enumerator,
           {{DW_AT_name, DW_FORM_string, "HIGH"},
            {DW_AT_const_value, DW_FORM_data8, 0x8000000000000000u}}}}},
    });
    for (const std::string& loader : dwarfLoaders()) {
        CAPTURE(loader);
        ir::TypeGraph g = load(loader, f);
        auto flags = g.getAs<ir::EnumType>(findType(g, Kind::Enum, "flags"));
        CHECK_FALSE(flags.isSigned);
        REQUIRE(flags.values.size() == 2);
        CHECK(flags.values[0].value == 0xffffffffu);
        CHECK(flags.values[1].value == 1);
        auto byte = g.getAs<ir::EnumType>(findType(g, Kind::Enum, "byte"));
        CHECK(byte.size == 1);
        CHECK_FALSE(byte.isSigned);
        REQUIRE(byte.values.size() == 1);
        CHECK(byte.values[0].value == 0xff);
        auto sign = g.getAs<ir::EnumType>(findType(g, Kind::Enum, "sign"));
        CHECK(sign.isSigned);
        REQUIRE(sign.values.size() == 1);
        CHECK(signedValue(sign.values[0], 4) == -1);
        auto big = g.getAs<ir::Enum64Type>(findType(g, Kind::Enum64, "big"));
        CHECK(big.size == 8);
        CHECK_FALSE(big.isSigned);
        REQUIRE(big.values.size() == 1);
        CHECK(big.values[0].value == 0x8000000000000000u);
    }
}

TEST_CASE("DWARF fixtures: array bounds as a count, an upper bound, none, -1, or a DIE") {
    auto arrayType = [](const char* label, std::vector<Attribute> bounds) {
        std::vector<Attribute> subrange = {{DW_AT_type, DW_FORM_ref4, "size"}};
        subrange.insert(subrange.end(), bounds.begin(), bounds.end());
        return Die{DW_TAG_array_type,
                   {{DW_AT_type, DW_FORM_ref4, "int"}},
                   {{DW_TAG_subrange_type, subrange}},
                   label};
    };
    // Each array type named through a typedef, so the test finds it by name.
    auto named = [](const char* name, const char* target) {
        return Die{DW_TAG_typedef,
                   {{DW_AT_name, DW_FORM_string, name}, {DW_AT_type, DW_FORM_ref4, target}}};
    };
    Fixture f = unitOf({
        baseType("int", "int", 4, DW_ATE_signed),
        baseType("size", "long unsigned int", 8, DW_ATE_unsigned),
        arrayType("by_count", {{DW_AT_count, DW_FORM_data1, 4}}),
        arrayType("by_bound", {{DW_AT_upper_bound, DW_FORM_data1, 3}}),
        arrayType("by_udata", {{DW_AT_upper_bound, DW_FORM_udata, 299}}),
        arrayType("flexible", {}),
        arrayType("zero", {{DW_AT_upper_bound, DW_FORM_sdata, -1}}),
        // A variable length array: its bound is a DIE (the compiler's variable), not a number.
        {DW_TAG_variable,
         {{DW_AT_type, DW_FORM_ref4, "size"}, {DW_AT_artificial, DW_FORM_flag_present}},
         {},
         "n"},
        arrayType("vla", {{DW_AT_upper_bound, DW_FORM_ref4, "n"}}),
        arrayType("vla_count", {{DW_AT_count, DW_FORM_ref4, "n"}}),
        named("count_t", "by_count"),
        named("bound_t", "by_bound"),
        named("udata_t", "by_udata"),
        named("flexible_t", "flexible"),
        named("zero_t", "zero"),
        named("vla_t", "vla"),
        named("vla_count_t", "vla_count"),
    });
    for (const std::string& loader : dwarfLoaders()) {
        CAPTURE(loader);
        ir::TypeGraph g = load(loader, f);
        auto count = [&](const char* typedefName) {
            ir::TypeId a = g.target(findType(g, Kind::Typedef, typedefName));
            REQUIRE(g.kind(a) == Kind::Array);
            auto view = g.getAs<ir::ArrayType>(a);
            CHECK(spelled(g, view.elemType) == "int");
            return view.count;
        };
        CHECK(count("count_t") == 4);
        CHECK(count("bound_t") == 4);
        CHECK(count("udata_t") == 300);
        CHECK(count("flexible_t") == 0);
        CHECK(count("zero_t") == 0);
        CHECK(count("vla_t") == 0); // no length known
        CHECK(count("vla_count_t") == 0);
    }
}

TEST_CASE("DWARF fixtures: DW_AT_bit_offset bitfields (DWARF 2-4), either byte order") {
    // struct b { unsigned a : 1; unsigned b : 7; unsigned short c : 4; };  as gcc before 11
    // describes it: DW_AT_bit_offset counts from the storage unit's most significant bit, which
    // on a big-endian target is the first bit in memory. The unit's place: a DW_OP_plus_uconst
    // block in DWARF 2 and 3, a constant in DWARF 4.
    for (uint16_t version : {2, 3, 4}) {
        auto bitfield = [&](const char* name, const char* type, uint8_t unitSize, uint8_t bitOffset,
                            uint8_t bitSize, uint8_t byteOffset) {
            return Die{DW_TAG_member,
                       {{DW_AT_name, DW_FORM_string, name},
                        {DW_AT_type, DW_FORM_ref_udata, type},
                        {DW_AT_byte_size, DW_FORM_data1, unitSize},
                        {DW_AT_bit_size, DW_FORM_data1, bitSize},
                        {DW_AT_bit_offset, DW_FORM_data1, bitOffset},
                        version < 4
                            ? Attribute{DW_AT_data_member_location, DW_FORM_block1,
                                        Bytes{{DW_OP_plus_uconst, byteOffset}}}
                            : Attribute{DW_AT_data_member_location, DW_FORM_data1, byteOffset}}};
        };
        for (Endian endian : {Endian::Big, Endian::Little}) {
            Fixture f = unitOf(
                {
                    baseType("uint", "unsigned int", 4, DW_ATE_unsigned),
                    baseType("ushort", "short unsigned int", 2, DW_ATE_unsigned),
                    {DW_TAG_structure_type,
                     {{DW_AT_name, DW_FORM_string, "b"}, {DW_AT_byte_size, DW_FORM_data1, 4}},
                     {bitfield("a", "uint", 4, 0, 1, 0), bitfield("b", "uint", 4, 1, 7, 0),
                      bitfield("c", "ushort", 2, 0, 4, 2)}},
                },
                version);
            f.elf64 = false;
            f.endian = endian;
            f.machine = endian == Endian::Big ? EM_PPC : EM_386;
            for (const std::string& loader : dwarfLoaders()) {
                CAPTURE(loader);
                CAPTURE(version);
                CAPTURE(endian == Endian::Big);
                ir::TypeGraph g = load(loader, f);
                CHECK(g.pointerSize() == 4);
                auto s = g.getAs<ir::StructType>(findType(g, Kind::Struct, "b"));
                REQUIRE(s.members.size() == 3);
                const bool big = endian == Endian::Big;
                // Big-endian: the offset from the first bit; little: unit - offset - width.
                CHECK(s.members[0].bitOffset == (big ? 0u : 31u));
                CHECK(s.members[0].bitfieldSize == 1);
                CHECK(s.members[1].bitOffset == (big ? 1u : 24u));
                CHECK(s.members[1].bitfieldSize == 7);
                CHECK(s.members[2].bitOffset == (big ? 16u : 16u + 12u));
                CHECK(s.members[2].bitfieldSize == 4);
            }
        }
    }
}

TEST_CASE("DWARF fixtures: unions, qualifiers, floats, varargs prototypes, signed bitfields") {
    // union u { int i; float f; };
    // typedef const volatile int cvi;  typedef int *restrict rp;
    // typedef int fn(const char *, ...);
    // struct sb { int neg : 5; unsigned pos : 3; long tail; };   (DWARF 5: data_bit_offset)
    Fixture f = unitOf(
        {
            baseType("int", "int", 4, DW_ATE_signed),
            baseType("uint", "unsigned int", 4, DW_ATE_unsigned),
            baseType("float", "float", 4, DW_ATE_float),
            baseType("char", "char", 1, DW_ATE_signed_char),
            baseType("long", "long int", 8, DW_ATE_signed),
            {DW_TAG_union_type,
             {{DW_AT_name, DW_FORM_strp, "u"}, {DW_AT_byte_size, DW_FORM_data1, 4}},
             {{DW_TAG_member,
               {{DW_AT_name, DW_FORM_string, "i"}, {DW_AT_type, DW_FORM_ref4, "int"}}},
              {DW_TAG_member,
               {{DW_AT_name, DW_FORM_string, "f"}, {DW_AT_type, DW_FORM_ref4, "float"}}}}},
            {DW_TAG_volatile_type, {{DW_AT_type, DW_FORM_ref4, "int"}}, {}, "vol"},
            {DW_TAG_const_type, {{DW_AT_type, DW_FORM_ref4, "vol"}}, {}, "cv"},
            {DW_TAG_typedef,
             {{DW_AT_name, DW_FORM_string, "cvi"}, {DW_AT_type, DW_FORM_ref4, "cv"}}},
            {DW_TAG_pointer_type,
             {{DW_AT_byte_size, DW_FORM_data1, 8}, {DW_AT_type, DW_FORM_ref4, "int"}},
             {},
             "intp"},
            {DW_TAG_restrict_type, {{DW_AT_type, DW_FORM_ref4, "intp"}}, {}, "restrict"},
            {DW_TAG_typedef,
             {{DW_AT_name, DW_FORM_string, "rp"}, {DW_AT_type, DW_FORM_ref4, "restrict"}}},
            {DW_TAG_const_type, {{DW_AT_type, DW_FORM_ref4, "char"}}, {}, "cchar"},
            {DW_TAG_pointer_type,
             {{DW_AT_byte_size, DW_FORM_data1, 8}, {DW_AT_type, DW_FORM_ref4, "cchar"}},
             {},
             "string"},
            {DW_TAG_subroutine_type,
             {{DW_AT_prototyped, DW_FORM_flag_present}, {DW_AT_type, DW_FORM_ref4, "int"}},
             {{DW_TAG_formal_parameter, {{DW_AT_type, DW_FORM_ref4, "string"}}},
              {DW_TAG_unspecified_parameters, {}}},
             "proto"},
            {DW_TAG_typedef,
             {{DW_AT_name, DW_FORM_string, "fn"}, {DW_AT_type, DW_FORM_ref4, "proto"}}},
            {DW_TAG_structure_type,
             {{DW_AT_name, DW_FORM_string, "sb"}, {DW_AT_byte_size, DW_FORM_data1, 16}},
             {{DW_TAG_member,
               {{DW_AT_name, DW_FORM_string, "neg"},
                {DW_AT_type, DW_FORM_ref4, "int"},
                {DW_AT_bit_size, DW_FORM_data1, 5},
                {DW_AT_data_bit_offset, DW_FORM_data1, 0}}},
              {DW_TAG_member,
               {{DW_AT_name, DW_FORM_string, "pos"},
                {DW_AT_type, DW_FORM_ref4, "uint"},
                {DW_AT_bit_size, DW_FORM_data1, 3},
                {DW_AT_data_bit_offset, DW_FORM_data1, 5}}},
              {DW_TAG_member,
               {{DW_AT_name, DW_FORM_string, "tail"},
                {DW_AT_type, DW_FORM_ref4, "long"},
                {DW_AT_data_member_location, DW_FORM_data1, 8}}}}},
        },
        5);
    for (const std::string& loader : dwarfLoaders()) {
        CAPTURE(loader);
        ir::TypeGraph g = load(loader, f);
        auto u = g.getAs<ir::UnionType>(findType(g, Kind::Union, "u"));
        CHECK(u.size == 4);
        REQUIRE(u.members.size() == 2);
        CHECK(u.members[0].bitOffset == 0);
        CHECK(u.members[1].bitOffset == 0);
        CHECK(g.kind(u.members[1].type) == Kind::Float); // float is in the default features
        CHECK(g.getAs<ir::FloatType>(u.members[1].type).size == 4);

        ir::TypeId cvi = g.target(findType(g, Kind::Typedef, "cvi"));
        CHECK(g.kind(cvi) == Kind::Const);
        CHECK(g.kind(g.target(cvi)) == Kind::Volatile);
        CHECK(g.name(g.target(g.target(cvi))) == "int");
        ir::TypeId rp = g.target(findType(g, Kind::Typedef, "rp"));
        CHECK(g.kind(rp) == Kind::Restrict);
        CHECK(spelled(g, g.target(rp)) == "* int");

        ir::TypeId fn = g.target(findType(g, Kind::Typedef, "fn"));
        REQUIRE(g.kind(fn) == Kind::FuncProto);
        auto proto = g.getAs<ir::FuncProtoType>(fn);
        CHECK(spelled(g, proto.returnType) == "int");
        REQUIRE(proto.params.size() == 2);
        CHECK(spelled(g, proto.params[0].type) == "* const char");
        CHECK(proto.params[1].type == ir::kVoidType); // "..."

        auto sb = g.getAs<ir::StructType>(findType(g, Kind::Struct, "sb"));
        CHECK(sb.size == 16);
        REQUIRE(sb.members.size() == 3);
        CHECK(sb.members[0].bitOffset == 0);
        CHECK(sb.members[0].bitfieldSize == 5);
        CHECK(spelled(g, sb.members[0].type) == "int"); // signed: the type says so
        CHECK(sb.members[1].bitOffset == 5);
        CHECK(sb.members[1].bitfieldSize == 3);
        CHECK(spelled(g, sb.members[1].type) == "unsigned int");
        CHECK(sb.members[2].bitOffset == 64);
        CHECK(sb.members[2].bitfieldSize == 0);
    }
}

TEST_CASE("DWARF fixtures: the loaders' own options, as --plugin-opt gives them") {
    Fixture f = unitOf({
        baseType("int", "int", 4, DW_ATE_signed),
        {DW_TAG_array_type,
         {{DW_AT_type, DW_FORM_ref4, "int"}},
         {{DW_TAG_subrange_type, {{DW_AT_count, DW_FORM_data1, 3}}},
          {DW_TAG_subrange_type, {{DW_AT_count, DW_FORM_data1, 4}}}},
         "matrix"},
        {DW_TAG_typedef,
         {{DW_AT_name, DW_FORM_string, "m_t"}, {DW_AT_type, DW_FORM_ref4, "matrix"}}},
    });
    // The counts of the ARRAYs m_t names, outermost first.
    auto shape = [](const ir::TypeGraph& g) {
        std::vector<uint32_t> counts;
        for (ir::TypeId a = g.target(findType(g, Kind::Typedef, "m_t")); g.kind(a) == Kind::Array;
             a = g.getAs<ir::ArrayType>(a).elemType)
            counts.push_back(g.getAs<ir::ArrayType>(a).count);
        return counts;
    };
    for (const std::string& loader : dwarfLoaders()) {
        CAPTURE(loader);
        CHECK(shape(load(loader, f)) == std::vector<uint32_t>{12});
        Loaded nested = loadFixture(loader, f, {}, {{"nested-arrays", "true"}});
        REQUIRE(nested.graph);
        CHECK(shape(*nested.graph) == std::vector<uint32_t>{3, 4});
        Loaded excluded = loadFixture(loader, f, {}, {{"lang-exclude", "c99"}});
        REQUIRE(excluded.graph);
        CHECK_FALSE(hasType(*excluded.graph, Kind::Typedef, "m_t"));
        Loaded bad = loadFixture(loader, f, {}, {{"dedup", "maybe"}});
        REQUIRE_FALSE(bad.graph);
        CHECK(bad.graph.error().kind() == ErrorKind::Usage);
        CHECK(bad.graph.error().message().find("dedup") != std::string::npos);
    }
}

TEST_CASE(
    "DWARF fixtures: types-only leaves out FUNCs, VARs and DATASECs, with and without dedup") {
    // What -t layout asks for: without dedup nothing is merged, and the types are the same.
    plugin::Options options;
    options.features = {"default", "global_var"};
    const Fixture f = sampler(5, Endian::Little, true);
    for (const std::string& loader : dwarfLoaders()) {
        CAPTURE(loader);
        for (std::string dedup : {"true", "false"}) {
            CAPTURE(dedup);
            Loaded all = loadFixture(loader, f, options, {{"dedup", dedup}});
            Loaded types =
                loadFixture(loader, f, options, {{"dedup", dedup}, {"types-only", "true"}});
            REQUIRE(all.graph);
            REQUIRE(types.graph);
            // The types as spelled, each once: a FUNC's own prototype is not among them.
            std::set<std::string> kept, without;
            for (ir::TypeId id = all.graph->firstId(); id < all.graph->endId(); ++id) {
                const Kind k = all.graph->kind(id);
                if (k != Kind::Func && k != Kind::Var && k != Kind::Datasec)
                    kept.insert(spelled(*all.graph, id));
            }
            for (ir::TypeId id = types.graph->firstId(); id < types.graph->endId(); ++id) {
                const Kind k = types.graph->kind(id);
                CHECK(k != Kind::Func);
                CHECK(k != Kind::Var);
                CHECK(k != Kind::Datasec);
                without.insert(spelled(*types.graph, id));
            }
            CHECK(without == kept);
            CHECK(hasType(*all.graph, Kind::Func, "f")); // so the checks above can fail
        }
        Loaded bad = loadFixture(loader, f, {}, {{"types-only", "maybe"}});
        REQUIRE_FALSE(bad.graph);
        CHECK(bad.graph.error().message().find("types-only") != std::string::npos);
    }
}

TEST_CASE("DWARF fixtures: integers of sizes BTF has not are pahole's 4-byte stand-in") {
    // clang's DW_ATE_unsigned_24 (an operand of DW_OP_convert); a 2-byte one stays as it is.
    const Fixture f = unitOf({baseType("u24", "DW_ATE_unsigned_24", 3, DW_ATE_unsigned),
                              baseType("s48", "DW_ATE_signed_48", 6, DW_ATE_signed),
                              baseType("u16", "DW_ATE_unsigned_16", 2, DW_ATE_unsigned)});
    for (const std::string& loader : dwarfLoaders()) {
        CAPTURE(loader);
        ir::TypeGraph g = load(loader, f);
        CHECK_FALSE(hasType(g, Kind::Int, "DW_ATE_unsigned_24"));
        CHECK_FALSE(hasType(g, Kind::Int, "DW_ATE_signed_48"));
        std::multiset<std::pair<uint32_t, uint8_t>> fake; // size, encoding
        for (ir::TypeId id = g.firstId(); id < g.endId(); ++id) {
            if (g.kind(id) == Kind::Int && g.name(id) == "__SANITIZED_FAKE_INT__") {
                auto i = g.getAs<ir::IntType>(id);
                CHECK(i.bits == 32);
                fake.emplace(i.size, i.encoding);
            }
        }
        CHECK(fake == std::multiset<std::pair<uint32_t, uint8_t>>{{4, 0}, {4, 1}});
        CHECK(g.getAs<ir::IntType>(findType(g, Kind::Int, "DW_ATE_unsigned_16")).size == 2);
    }
}

TEST_CASE("DWARF fixtures: references into a partial unit, declarations, every reference form") {
    // As dwz shares types: a partial unit holds them, compile units refer to them by ref_addr.
    Fixture f;
    f.dwarfVersion = 4;
    f.endian = Endian::Big;
    f.machine = EM_S390;
    f.units = {
        {DW_TAG_partial_unit,
         {{DW_AT_language, DW_FORM_data1, DW_LANG_C99}},
         {baseType("int", "int", 4, DW_ATE_signed),
          {DW_TAG_structure_type,
           {{DW_AT_name, DW_FORM_strp, "opaque"}, {DW_AT_declaration, DW_FORM_flag_present}}}}},
        {DW_TAG_compile_unit,
         {{DW_AT_language, DW_FORM_data2, DW_LANG_C11}, {DW_AT_name, DW_FORM_strp, "two.c"}},
         {{DW_TAG_typedef,
           {{DW_AT_name, DW_FORM_string, "across"}, {DW_AT_type, DW_FORM_ref_addr, "int"}}},
          {DW_TAG_typedef, {{DW_AT_name, DW_FORM_string, "r1"}, {DW_AT_type, DW_FORM_ref1, "ptr"}}},
          {DW_TAG_typedef, {{DW_AT_name, DW_FORM_string, "r2"}, {DW_AT_type, DW_FORM_ref2, "ptr"}}},
          {DW_TAG_typedef, {{DW_AT_name, DW_FORM_string, "r8"}, {DW_AT_type, DW_FORM_ref8, "ptr"}}},
          {DW_TAG_typedef,
           {{DW_AT_name, DW_FORM_string, "ru"}, {DW_AT_type, DW_FORM_ref_udata, "ptr"}}},
          {DW_TAG_pointer_type,
           {{DW_AT_byte_size, DW_FORM_data1, 8}, {DW_AT_type, DW_FORM_ref_addr, "int"}},
           {},
           "ptr"}}},
    };
    for (const std::string& loader : dwarfLoaders()) {
        CAPTURE(loader);
        Loaded loaded = loadFixture(loader, f);
        REQUIRE(loaded.graph);
        const ir::TypeGraph& g = *loaded.graph;
        CHECK(loaded.warnings.empty());
        CHECK(spelled(g, findType(g, Kind::Typedef, "across")) == "across=int");
        for (const char* name : {"r1", "r2", "r8", "ru"})
            CHECK(spelled(g, findType(g, Kind::Typedef, name)) == std::string(name) + "=* int");
        findType(g, Kind::Int, "int"); // exactly one
        auto fwd = g.getAs<ir::FwdType>(findType(g, Kind::Fwd, "opaque"));
        CHECK_FALSE(fwd.isUnion);
    }
}

TEST_CASE("DWARF fixtures: without dedup, references into partial units reach their own types") {
    // Two partial units each with an int (dedup makes them one), a compile unit referring to
    // the second one's struct: without dedup its typedef must still name that struct.
    Fixture f;
    f.units = {
        {DW_TAG_partial_unit,
         {{DW_AT_language, DW_FORM_data1, DW_LANG_C99}},
         {baseType("int", "int", 4, DW_ATE_signed),
          {DW_TAG_structure_type,
           {{DW_AT_name, DW_FORM_string, "one"}, {DW_AT_byte_size, DW_FORM_data1, 4}},
           {{DW_TAG_member,
             {{DW_AT_name, DW_FORM_string, "i"},
              {DW_AT_type, DW_FORM_ref4, "int"},
              {DW_AT_data_member_location, DW_FORM_data1, 0}}}}}}},
        {DW_TAG_partial_unit,
         {{DW_AT_language, DW_FORM_data1, DW_LANG_C99}},
         {baseType("int2", "int", 4, DW_ATE_signed),
          baseType("long", "long int", 8, DW_ATE_signed),
          {DW_TAG_structure_type,
           {{DW_AT_name, DW_FORM_string, "two"}, {DW_AT_byte_size, DW_FORM_data1, 8}},
           {{DW_TAG_member,
             {{DW_AT_name, DW_FORM_string, "l"},
              {DW_AT_type, DW_FORM_ref4, "long"},
              {DW_AT_data_member_location, DW_FORM_data1, 0}}}},
           "two"}}},
        {DW_TAG_compile_unit,
         {{DW_AT_language, DW_FORM_data1, DW_LANG_C99}},
         {{DW_TAG_typedef,
           {{DW_AT_name, DW_FORM_string, "t"}, {DW_AT_type, DW_FORM_ref_addr, "two"}}}}},
    };
    for (const std::string& loader : dwarfLoaders()) {
        CAPTURE(loader);
        for (std::string dedup : {"true", "false"}) {
            for (std::string typesOnly : {"false", "true"}) {
                CAPTURE(dedup);
                CAPTURE(typesOnly); // without dedup: no merger at all
                Loaded loaded =
                    loadFixture(loader, f, {}, {{"dedup", dedup}, {"types-only", typesOnly}});
                REQUIRE(loaded.graph);
                CHECK(spelled(*loaded.graph, findType(*loaded.graph, Kind::Typedef, "t")) ==
                      "t=two");
                CHECK(loaded.warnings.empty());
            }
        }
    }
}

TEST_CASE("DWARF fixtures: references between compile units are followed, every unit together") {
    // clang's link-time optimisation describes a type once, in one compile unit, and others
    // refer to it by ref_addr, backwards and forwards: such DWARF is mapped as one unit, as
    // pahole reads it. A unit of a language left out stays out: a reference into it is void,
    // and said so.
    auto twoUnits = [](uint16_t firstLanguage) {
        Fixture f = unitOf(
            {baseType("int", "int", 4, DW_ATE_signed),
             {DW_TAG_typedef,
              {{DW_AT_name, DW_FORM_string, "forward"}, {DW_AT_type, DW_FORM_ref_addr, "long"}}}});
        f.units[0].attributes[0] = {DW_AT_language, DW_FORM_data1, firstLanguage};
        f.units.push_back(
            {DW_TAG_compile_unit,
             {{DW_AT_language, DW_FORM_data1, DW_LANG_C99}},
             {baseType("long", "long int", 8, DW_ATE_signed),
              {DW_TAG_typedef,
               {{DW_AT_name, DW_FORM_string, "across"}, {DW_AT_type, DW_FORM_ref_addr, "int"}}}}});
        return f;
    };
    for (const std::string& loader : dwarfLoaders()) {
        for (const plugin::OptionValues& own :
             {plugin::OptionValues{}, plugin::OptionValues{{"dedup", "false"}},
              plugin::OptionValues{{"dedup", "false"}, {"types-only", "true"}}}) {
            CAPTURE(loader);
            CAPTURE(own.size());
            Loaded loaded = loadFixture(loader, twoUnits(DW_LANG_C99), {}, own);
            REQUIRE(loaded.graph);
            const ir::TypeGraph& g = *loaded.graph;
            CHECK(spelled(g, findType(g, Kind::Typedef, "across")) == "across=int");
            CHECK(spelled(g, findType(g, Kind::Typedef, "forward")) == "forward=long int");
            CHECK(loaded.warnings.empty());

            Loaded excluded = loadFixture(loader, twoUnits(DW_LANG_Rust), {}, own);
            REQUIRE(excluded.graph);
            CHECK(excluded.graph->target(findType(*excluded.graph, Kind::Typedef, "across")) ==
                  ir::kVoidType);
            REQUIRE(excluded.warnings.size() == 1);
            CHECK(excluded.warnings[0].find("1 reference(s)") != std::string::npos);
        }
    }
}

// A DW_FORM_data16 value (libdw reads none as a number; LLVM holds one as a block), in the
// target's byte order: its low 64 bits, signed when the upper half only extends a negative one.
TEST_CASE("DWARF fixtures: DW_FORM_data16 enumerator values") {
    for (Endian endian : {Endian::Little, Endian::Big}) {
        for (const std::string& loader : dwarfLoaders()) {
            CAPTURE(loader);
            CAPTURE(endian == Endian::Big);
            ir::TypeGraph g = load(loader, sampler(5, endian, true));
            auto w = g.getAs<ir::Enum64Type>(findType(g, Kind::Enum64, "wide"));
            CHECK(w.isSigned);
            REQUIRE(w.values.size() == 1);
            CHECK(signedValue(w.values[0], 8) == -3);
        }
    }
}

// A typedef whose DW_AT_type, in `form`, points past the unit and past .debug_info.
Fixture lostReference(uint16_t form) {
    return unitOf(
        {baseType("int", "int", 4, DW_ATE_signed),
         {DW_TAG_typedef, {{DW_AT_name, DW_FORM_string, "lost"}, {DW_AT_type, form, 0x7000}}}});
}

TEST_CASE("DWARF fixtures: a reference to no DIE is void, and said so") {
    for (uint16_t form : {DW_FORM_ref4, DW_FORM_ref_addr}) {
        for (const std::string& loader : dwarfLoaders()) {
            CAPTURE(loader);
            CAPTURE(form);
            Loaded loaded = loadFixture(loader, lostReference(form));
            REQUIRE(loaded.graph);
            CHECK(loaded.graph->target(findType(*loaded.graph, Kind::Typedef, "lost")) ==
                  ir::kVoidType);
            REQUIRE(loaded.warnings.size() == 1);
            CHECK(loaded.warnings[0].starts_with("/proc/self/fd/"));
            CHECK(loaded.warnings[0].find("1 reference(s)") != std::string::npos);
        }
    }
}

TEST_CASE("DWARF fixtures: a location list index past every table is no location") {
    // DW_FORM_loclistx: the reader finds the list's offset at DW_AT_loclists_base + 4 * index.
    // With this index that sum wraps around to just below zero.
    Fixture f = unitOf({baseType("int", "int", 4, DW_ATE_signed),
                        {DW_TAG_variable,
                         {{DW_AT_name, DW_FORM_string, "v"},
                          {DW_AT_type, DW_FORM_ref4, "int"},
                          {DW_AT_external, DW_FORM_flag_present},
                          {DW_AT_location, DW_FORM_loclistx, 0x3fffffffffffffffull}}}},
                       5);
    for (const std::string& loader : dwarfLoaders()) {
        CAPTURE(loader);
        ir::TypeGraph g = load(loader, f);
        CHECK(findType(g, Kind::Int, "int") != ir::kVoidType);
    }
}

TEST_CASE("DWARF fixtures: only the unit DIE says the unit's language") {
    // A DIE inside the unit naming another language (Rust units are skipped by default) does
    // not change the unit's.
    Fixture f = unitOf({baseType("int", "int", 4, DW_ATE_signed),
                        {DW_TAG_typedef,
                         {{DW_AT_name, DW_FORM_string, "t"},
                          {DW_AT_type, DW_FORM_ref4, "int"},
                          {DW_AT_language, DW_FORM_data1, DW_LANG_Rust}}}});
    for (const std::string& loader : dwarfLoaders()) {
        CAPTURE(loader);
        ir::TypeGraph g = load(loader, f);
        CHECK(findType(g, Kind::Typedef, "t") != ir::kVoidType);
    }
}

TEST_CASE(
    "DWARF fixtures: values LLVM would step over otherwise than it decodes them are refused") {
    // DW_FORM_LLVM_addrx_offset with a LEB128 too long for 64 bits: LLVM's skipping moves 4
    // bytes on, its decoding stays. The bytes after it then read differently: as a form of 0
    // for the DW_FORM_indirect that follows (LLVM's decoder would end the process), or as block
    // lengths that wrap the offset back to the DIE (the reader would read it forever).
    constexpr uint16_t kAddrxOffset = 0x2001; // DW_FORM_LLVM_addrx_offset
    const std::vector<uint8_t> tooLong = {0x80, 0x80, 0x80, 0x80};
    std::vector<uint8_t> formZero = tooLong;
    formZero.insert(formZero.end(), {0x8b, 0x80, 0x80, 0x80, 0x80, 0x02}); // data1 to a skip
    Die indirect = {DW_TAG_base_type,
                    {{DW_AT_name, kAddrxOffset, Bytes{formZero}, 0, true},
                     {DW_AT_byte_size, DW_FORM_indirect, Bytes{{0x04}}, 0, true}}};
    std::vector<uint8_t> wrapping = tooLong;
    wrapping.insert(wrapping.end(),
                    {0xff, 0x80, 0x80, 0x80, 0x80, 0x7f}); // block1 of 255 to a skip
    wrapping.resize(4 + 1 + 255);
    uint64_t back = ~uint64_t{0} - 139; // the decoding's second block: back to the DIE
    for (size_t at = 129; at < 139; ++at, back >>= 7)
        wrapping[at] = static_cast<uint8_t>((back & 0x7f) | (at < 138 ? 0x80 : 0));
    wrapping.push_back(0x00); // the skip's second block: empty
    Die blocks = {DW_TAG_base_type,
                  {{DW_AT_name, kAddrxOffset, Bytes{wrapping}, 0, true},
                   {0x2345, DW_FORM_block1, Bytes{}, 0, true},
                   {0x2346, DW_FORM_block, Bytes{}, 0, true}}};
    for (const Die& die : {indirect, blocks}) {
        for (const std::string& loader : dwarfLoaders()) {
            CAPTURE(loader);
            Loaded loaded =
                loadFixture(loader, unitOf({die, baseType("int", "int", 4, DW_ATE_signed)}, 5));
            REQUIRE_FALSE(loaded.graph);
            CHECK(loaded.graph.error().message().find("DIE") != std::string::npos);
        }
    }
}

TEST_CASE("DWARF fixtures: a DIE of 256 fixed-size values past its unit is refused") {
    // LLVM adds up an abbreviation's fixed sizes in 8-bit counters of addresses: 256
    // DW_FORM_addr values count as none, and the DIE would seem to end inside its unit.
    std::vector<Attribute> attributes = {{DW_AT_byte_size, DW_FORM_data1, 4}};
    for (uint16_t i = 0; i < 256; ++i)
        attributes.push_back({static_cast<uint16_t>(0x2345 + i), DW_FORM_addr, Bytes{}, 0, true});
    attributes.push_back({DW_AT_encoding, DW_FORM_data1, DW_ATE_signed});
    Fixture f = unitOf({{DW_TAG_base_type, attributes}, baseType("int", "int", 4, DW_ATE_signed)});
    for (const std::string& loader : dwarfLoaders()) {
        CAPTURE(loader);
        Loaded loaded = loadFixture(loader, f);
        REQUIRE_FALSE(loaded.graph);
        CHECK(loaded.graph.error().message().find("past") != std::string::npos);
    }
}

TEST_CASE("DWARF fixtures: both readers say which attribute has a form they do not know") {
    // Form 0x1f99 is in no DWARF version nor vendor range either reader knows: its value's size
    // is unknown, so nothing after it can be read.
    for (const bool kept : {true, false}) {
        // A base type is kept (decoded), a label skipped (stepped over): both paths say it.
        Die die = {static_cast<uint16_t>(kept ? DW_TAG_base_type : DW_TAG_label),
                   {{DW_AT_name, 0x1f99, Bytes{{'x', 0}}, 0, true}}};
        for (const std::string& loader : dwarfLoaders()) {
            CAPTURE(loader);
            CAPTURE(kept);
            Loaded loaded =
                loadFixture(loader, unitOf({die, baseType("int", "int", 4, DW_ATE_signed)}, 5));
            REQUIRE_FALSE(loaded.graph);
            const std::string message = loaded.graph.error().message();
            CAPTURE(message);
            CHECK(message.find("attribute 0x3 has an unknown form 0x1f99") != std::string::npos);
        }
    }
}
