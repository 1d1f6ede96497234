// What a DIE means in BTF terms, on units written out by hand (the shapes compilers emit).
#include "dwarf/UnitMapper.h"

#include "support/TextArena.h"

#include "btforge/Features.h"
#include "btforge/dwarf/LoaderOptions.h"

#include <doctest/doctest.h>

#include <dwarf.h>
#include <elf.h>
#include <string>
#include <vector>

using namespace btforge;
using namespace btforge::dwarf;

namespace {

// Builds a pre-order DIE array: add() appends a DIE under the current parent; open()/close()
// descend into and return from the last DIE's children.
class UnitBuilder {
public:
    UnitBuilder() {
        unit.dies.push_back(die(DW_TAG_compile_unit));
        unit.dies[0].parent = kNoIndex;
        parents_.push_back(0);
        last_.push_back(kNoIndex);
    }

    Die& add(uint16_t tag, std::string_view name = {}) {
        Die d = die(tag);
        d.name = name;
        d.parent = parents_.back();
        auto index = static_cast<uint32_t>(unit.dies.size());
        if (last_.back() == kNoIndex)
            unit.dies[d.parent].firstChild = index;
        else
            unit.dies[last_.back()].nextSibling = index;
        last_.back() = index;
        unit.dies.push_back(d);
        return unit.dies.back();
    }
    void open() {
        parents_.push_back(last_.back());
        last_.push_back(kNoIndex);
    }
    void close() {
        parents_.pop_back();
        last_.pop_back();
    }
    DieOffset offsetOf(uint32_t index) const { return unit.dies[index].offset; }
    uint32_t lastIndex() const { return static_cast<uint32_t>(unit.dies.size() - 1); }

    UnitDies unit;

private:
    Die die(uint16_t tag) {
        Die d;
        d.tag = tag;
        d.offset = 0x100 + 0x10 * unit.dies.size();
        return d;
    }
    std::vector<uint32_t> parents_;
    std::vector<uint32_t> last_;
};

Die& sized(Die& d, uint64_t size) {
    d.byteSize = size;
    d.flags |= kHasByteSize;
    return d;
}

// The id of the first own type with that kind and name.
ir::TypeId find(const ir::TypeGraph& g, ir::Kind kind, std::string_view name = {}) {
    for (ir::TypeId id = g.firstId(); id < g.endId(); ++id) {
        if (g.kind(id) == kind && g.name(id) == name)
            return id;
    }
    return ir::kVoidType;
}

} // namespace

TEST_CASE("base types, pointers, typedefs and qualifiers map to their BTF kinds") {
    UnitBuilder b;
    Die& intDie = sized(b.add(DW_TAG_base_type, "int"), 4);
    intDie.encoding = DW_ATE_signed;
    DieOffset intType = intDie.offset;
    Die& boolDie = sized(b.add(DW_TAG_base_type, "_Bool"), 1);
    boolDie.encoding = DW_ATE_boolean;
    Die& dbl = sized(b.add(DW_TAG_base_type, "double"), 8);
    dbl.encoding = DW_ATE_float;
    b.add(DW_TAG_const_type).type = intType;
    DieOffset constInt = b.offsetOf(b.lastIndex());
    b.add(DW_TAG_pointer_type).type = constInt;
    b.add(DW_TAG_typedef, "cint").type = constInt;
    b.add(DW_TAG_atomic_type).type = intType; // no BTF form: stands for int
    DieOffset atomic = b.offsetOf(b.lastIndex());
    b.add(DW_TAG_pointer_type).type = atomic;

    MappedUnit m = mapUnit(b.unit, 0, {});
    const ir::TypeGraph& g = m.graph;
    ir::TypeId i = find(g, ir::Kind::Int, "int");
    REQUIRE(i);
    auto intView = g.getAs<ir::IntType>(i);
    CHECK(intView.size == 4);
    CHECK(intView.bits == 32);
    CHECK(intView.encoding == ir::int_encoding::kSigned);
    CHECK(g.getAs<ir::IntType>(find(g, ir::Kind::Int, "_Bool")).encoding ==
          ir::int_encoding::kBool);
    CHECK(g.getAs<ir::FloatType>(find(g, ir::Kind::Float, "double")).size == 8);
    ir::TypeId c = find(g, ir::Kind::Const);
    CHECK(g.target(c) == i);
    CHECK(g.target(find(g, ir::Kind::Typedef, "cint")) == c);
    // Both pointers exist; the one to the atomic int points at int itself.
    int pointersToInt = 0;
    for (ir::TypeId id = g.firstId(); id < g.endId(); ++id)
        pointersToInt += g.kind(id) == ir::Kind::Ptr && g.target(id) == i;
    CHECK(pointersToInt == 1);
}

TEST_CASE("struct members: DWARF 5 bit offsets, DWARF 4 bitfields, unions, declarations") {
    UnitBuilder b;
    Die& u32 = sized(b.add(DW_TAG_base_type, "unsigned int"), 4);
    u32.encoding = DW_ATE_unsigned;
    DieOffset uint = u32.offset;
    sized(b.add(DW_TAG_structure_type, "s"), 8);
    b.open();
    Die& a = b.add(DW_TAG_member, "a");
    a.type = uint;
    a.dataMemberLocation = 0;
    a.flags |= kHasDataMemberLocation;
    Die& bf = b.add(DW_TAG_member, "bf5"); // DWARF 5: data_bit_offset
    bf.type = uint;
    b.unit.rareFor(bf).bitSize = 3;
    b.unit.rareFor(bf).dataBitOffset = 37;
    bf.flags |= kHasBitSize | kHasDataBitOffset;
    Die& old = b.add(DW_TAG_member, "bf4"); // DWARF 4: bit_offset from the storage unit's MSB
    old.type = uint;
    b.unit.rareFor(old).bitSize = 5;
    b.unit.rareFor(old).bitOffset = 32 - 5 - 10; // bits 10..14 of the second word, little-endian
    old.dataMemberLocation = 4;
    old.flags |= kHasBitSize | kHasBitOffset | kHasDataMemberLocation;
    b.add(DW_TAG_member, "static_member").flags |= kDeclaration | kExternal;
    b.close();
    b.add(DW_TAG_union_type, "declared").flags |= kDeclaration;

    MappedUnit m = mapUnit(b.unit, 0, {});
    const ir::TypeGraph& g = m.graph;
    auto s = g.getAs<ir::StructType>(find(g, ir::Kind::Struct, "s"));
    REQUIRE(s.members.size() == 3); // the static member is not part of the layout
    CHECK(s.size == 8);
    CHECK(s.members[0].bitOffset == 0);
    CHECK(s.members[0].bitfieldSize == 0);
    CHECK(s.members[1].bitOffset == 37);
    CHECK(s.members[1].bitfieldSize == 3);
    CHECK(s.members[2].bitOffset == 32 + 10);
    CHECK(s.members[2].bitfieldSize == 5);
    ir::TypeId fwd = find(g, ir::Kind::Fwd, "declared");
    REQUIRE(fwd);
    CHECK(g.getAs<ir::FwdType>(fwd).isUnion);
}

TEST_CASE("enums: signedness from the values, 64-bit ones as ENUM64") {
    UnitBuilder b;
    sized(b.add(DW_TAG_enumeration_type, "small"), 4);
    b.open();
    Die& neg = b.add(DW_TAG_enumerator, "NEG");
    neg.constValue = static_cast<uint64_t>(-3);
    neg.flags |= kHasConstValue | kConstValueSigned;
    b.close();
    sized(b.add(DW_TAG_enumeration_type, "wide"), 8);
    b.open();
    Die& big = b.add(DW_TAG_enumerator, "BIG");
    big.constValue = 0xffffffffffffffffull;
    big.flags |= kHasConstValue;
    b.close();

    MappedUnit m = mapUnit(b.unit, 0, {});
    auto small = m.graph.getAs<ir::EnumType>(find(m.graph, ir::Kind::Enum, "small"));
    CHECK(small.isSigned);
    REQUIRE(small.values.size() == 1);
    CHECK(small.values[0].value == 0xfffffffdu); // 32 bits, as BTF stores them
    auto wide = m.graph.getAs<ir::Enum64Type>(find(m.graph, ir::Kind::Enum64, "wide"));
    CHECK_FALSE(wide.isSigned);
    CHECK(wide.values[0].value == 0xffffffffffffffffull);
}

namespace {

// char m[3][4] and a flexible char f[].
UnitBuilder arrayUnit() {
    UnitBuilder b;
    Die& chr = sized(b.add(DW_TAG_base_type, "char"), 1);
    chr.encoding = DW_ATE_signed_char;
    DieOffset charType = chr.offset;
    b.add(DW_TAG_array_type).type = charType;
    b.open();
    Die& d0 = b.add(DW_TAG_subrange_type);
    d0.bound = 2; // upper bound: 3 elements
    d0.flags |= kHasUpperBound;
    Die& d1 = b.add(DW_TAG_subrange_type);
    d1.bound = 4; // count
    d1.flags |= kHasCount;
    b.close();
    b.add(DW_TAG_array_type).type = charType;
    b.open();
    b.add(DW_TAG_subrange_type); // no bound: a flexible array member
    b.close();
    return b;
}

std::vector<ir::ArrayType> arraysOf(const ir::TypeGraph& g) {
    std::vector<ir::ArrayType> arrays;
    for (ir::TypeId id = g.firstId(); id < g.endId(); ++id) {
        if (g.kind(id) == ir::Kind::Array)
            arrays.push_back(g.getAs<ir::ArrayType>(id));
    }
    return arrays;
}

} // namespace

TEST_CASE("multi-dimensional arrays nest, outermost first; flexible arrays have no elements") {
    UnitBuilder b = arrayUnit();
    MappedUnit m = mapUnit(b.unit, 0, {});
    const ir::TypeGraph& g = m.graph;
    std::vector<ir::ArrayType> arrays = arraysOf(g);
    REQUIRE(arrays.size() == 3);
    CHECK(arrays[0].count == 3);
    REQUIRE(g.kind(arrays[0].elemType) == ir::Kind::Array);
    CHECK(g.getAs<ir::ArrayType>(arrays[0].elemType).count == 4);
    CHECK(arrays[1].count == 0);
    CHECK(g.name(arrays[0].indexType) == "int");
}

TEST_CASE("flattened, a multi-dimensional array is one ARRAY of all its elements") {
    UnitBuilder b = arrayUnit();
    MappedUnit m = mapUnit(b.unit, 0, {.arrays = ArrayShape::Flattened});
    const ir::TypeGraph& g = m.graph;
    std::vector<ir::ArrayType> arrays = arraysOf(g);
    REQUIRE(arrays.size() == 2);
    CHECK(arrays[0].count == 12);
    CHECK(g.kind(arrays[0].elemType) == ir::Kind::Int);
    CHECK(arrays[1].count == 0);
}

TEST_CASE("type tags under a pointer tag the pointee; decl tags name their component") {
    UnitBuilder b;
    Die& i = sized(b.add(DW_TAG_base_type, "int"), 4);
    i.encoding = DW_ATE_signed;
    DieOffset intType = i.offset;
    b.add(DW_TAG_pointer_type).type = intType;
    b.open();
    Die& tag = b.add(kTagLlvmAnnotation, "btf_type_tag");
    b.unit.rareFor(tag).stringValue = "user";
    tag.flags |= kConstValueString | kHasConstValue;
    b.close();
    sized(b.add(DW_TAG_structure_type, "tagged"), 4);
    b.open();
    Die& m0 = b.add(DW_TAG_member, "m");
    m0.type = intType;
    m0.flags |= kHasDataMemberLocation;
    b.open();
    Die& decl = b.add(kTagLlvmAnnotation, "btf_decl_tag");
    b.unit.rareFor(decl).stringValue = "member_tag";
    decl.flags |= kConstValueString | kHasConstValue;
    b.close();
    b.close();

    MappedUnit m = mapUnit(b.unit, 0, {});
    const ir::TypeGraph& g = m.graph;
    ir::TypeId typeTag = find(g, ir::Kind::TypeTag, "user");
    REQUIRE(typeTag);
    CHECK(g.name(g.target(typeTag)) == "int");
    ir::TypeId ptr = find(g, ir::Kind::Ptr);
    CHECK(g.target(ptr) == typeTag);
    auto dt = g.getAs<ir::DeclTagType>(find(g, ir::Kind::DeclTag, "member_tag"));
    CHECK(dt.componentIndex == 0);
    CHECK(g.name(dt.type) == "tagged");
}

TEST_CASE("declaration tags: DW_AT_alignment, types nested in a struct's DIE or in a function") {
    UnitBuilder b;
    Die& i = sized(b.add(DW_TAG_base_type, "int"), 4);
    i.encoding = DW_ATE_signed;
    const DieOffset intType = i.offset;
    Die& s = sized(b.add(DW_TAG_structure_type, "aligned"), 32);
    s.alignment = 32;
    b.open();
    b.add(DW_TAG_member, "a").type = intType;
    Die& m1 = b.add(DW_TAG_member, "b");
    m1.alignment = 16;
    m1.dataMemberLocation = 16;
    m1.flags |= kHasDataMemberLocation;
    const uint32_t pointerMember = b.lastIndex();
    // clang's shape: the member's anonymous type declared inside the struct, right after it.
    sized(b.add(DW_TAG_structure_type), 4);
    const DieOffset nested = b.offsetOf(b.lastIndex());
    b.close();
    Die& pointer = sized(b.add(DW_TAG_pointer_type), 8);
    pointer.type = nested;
    b.unit.dies[pointerMember].type = b.offsetOf(b.lastIndex());
    b.add(DW_TAG_subprogram, "f");
    b.open();
    b.add(DW_TAG_lexical_block);
    b.open();
    sized(b.add(DW_TAG_structure_type, "local"), 4);
    b.add(DW_TAG_structure_type, "declared").flags |= kDeclaration; // the file-scope type
    b.close();
    b.close();

    for (bool tags : {false, true}) {
        CAPTURE(tags);
        MappedUnit m = mapUnit(b.unit, 0, {.declarationTags = tags});
        const ir::TypeGraph& g = m.graph;
        ir::TypeId onStruct = find(g, ir::Kind::DeclTag, "aligned(32)");
        ir::TypeId onMember = find(g, ir::Kind::DeclTag, "aligned(16)");
        ir::TypeId nestedTag = find(g, ir::Kind::DeclTag, kNestedTypeTag);
        ir::TypeId localTag = find(g, ir::Kind::DeclTag, kLocalTypeTag);
        CHECK((onStruct != ir::kVoidType) == tags);
        CHECK((onMember != ir::kVoidType) == tags);
        CHECK((nestedTag != ir::kVoidType) == tags);
        CHECK((localTag != ir::kVoidType) == tags);
        if (!tags)
            continue;
        auto structTag = g.getAs<ir::DeclTagType>(onStruct);
        CHECK(structTag.kindFlag);
        CHECK(structTag.componentIndex == -1);
        CHECK(g.name(structTag.type) == "aligned");
        auto memberTag = g.getAs<ir::DeclTagType>(onMember);
        CHECK(memberTag.kindFlag);
        CHECK(memberTag.componentIndex == 1);
        auto nestedMember = g.getAs<ir::DeclTagType>(nestedTag);
        CHECK(!nestedMember.kindFlag);
        CHECK(nestedMember.componentIndex == 1);
        CHECK(nestedMember.type == memberTag.type);
        CHECK(g.name(g.getAs<ir::DeclTagType>(localTag).type) == "local");
        size_t localTags = 0;
        for (ir::TypeId id = g.firstId(); id < g.endId(); ++id)
            localTags += g.kind(id) == ir::Kind::DeclTag && g.name(id) == kLocalTypeTag;
        CHECK(localTags == 1);
    }
}

TEST_CASE("function observations: concrete instances, dropped and reordered parameters") {
    UnitBuilder b;
    Die& i = sized(b.add(DW_TAG_base_type, "int"), 4);
    i.encoding = DW_ATE_signed;
    DieOffset intType = i.offset;
    // The abstract instance: int f(int a, int b)
    Die& abstract = b.add(DW_TAG_subprogram, "f");
    abstract.type = intType;
    abstract.flags |= kInlined | kExternal;
    DieOffset abstractOffset = abstract.offset;
    b.open();
    b.add(DW_TAG_formal_parameter, "a").type = intType;
    DieOffset paramA = b.offsetOf(b.lastIndex());
    b.add(DW_TAG_formal_parameter, "b").type = intType;
    DieOffset paramB = b.offsetOf(b.lastIndex());
    b.close();
    // A concrete copy that lists b before a, with b in rdi (register 5) and a gone.
    Die& concrete = b.add(DW_TAG_subprogram);
    concrete.abstractOrigin = abstractOffset;
    b.unit.rareFor(concrete).lowPc = 0x1000;
    concrete.flags |= kHasLowPc;
    b.open();
    Die& pb = b.add(DW_TAG_formal_parameter);
    pb.abstractOrigin = paramB;
    pb.flags |= kHasLocation | kLocationKnown;
    b.unit.rareFor(pb).locationFirst = 0;
    b.unit.rareFor(pb).locationCount = 1;
    b.unit.locationOps.push_back({DW_OP_reg5, 0, 0});
    b.add(DW_TAG_formal_parameter).abstractOrigin = paramA; // no location: optimized out
    b.close();

    MappedUnit m = mapUnit(b.unit, 7, {});
    const UnitObservations& obs = m.observations;
    REQUIRE(obs.functions.size() == 2);
    const FunctionObservation& f = obs.functions[1];
    CHECK(f.name == "f");
    CHECK(f.unit == 7);
    CHECK(f.hasLowPc);
    CHECK(f.lowPc == 0x1000);
    CHECK((f.facts & kFunctionExternal) != 0);
    CHECK((f.facts & kFunctionReorderedParams) != 0);
    CHECK((f.facts & kFunctionOptimizedParams) != 0);
    auto params = obs.paramsOf(f);
    REQUIRE(params.size() == 2);
    CHECK(params[0].name == "b"); // names come from the abstract instance
    CHECK((params[1].facts & kParamOptimizedOut) != 0);
    CHECK_FALSE(obs.functions[0].hasLowPc); // the abstract instance is observed too
}

TEST_CASE("file-scope variables with a static address are observed, locals are not") {
    UnitBuilder b;
    Die& i = sized(b.add(DW_TAG_base_type, "int"), 4);
    i.encoding = DW_ATE_signed;
    DieOffset intType = i.offset;
    Die& v = b.add(DW_TAG_variable, "counter");
    v.type = intType;
    v.flags |= kExternal | kHasLocation | kLocationKnown;
    b.unit.rareFor(v).locationFirst = 0;
    b.unit.rareFor(v).locationCount = 1;
    b.unit.locationOps.push_back({DW_OP_addr, 0x4000, 0});
    b.add(DW_TAG_variable, "declared_only").flags |= kDeclaration;

    MappedUnit m = mapUnit(b.unit, 0, {});
    REQUIRE(m.observations.variables.size() == 1);
    const VariableObservation& var = m.observations.variables[0];
    CHECK(var.name == "counter");
    CHECK(var.hasAddress);
    CHECK(var.address == 0x4000);
    CHECK(var.external);
}

TEST_CASE("names that are not C identifiers are made identifiers; base type names are kept") {
    UnitBuilder b;
    sized(b.add(DW_TAG_base_type, "long unsigned int"), 8).encoding = DW_ATE_unsigned;
    DieOffset ulong = b.offsetOf(b.lastIndex());
    sized(b.add(DW_TAG_structure_type, "{closure_env#0}"), 8);
    b.open();
    b.add(DW_TAG_member, "_vptr$Shape").type = ulong;
    b.close();
    sized(b.add(DW_TAG_structure_type, "9lives"), 0);
    const std::string tooLong(200, 'x');
    sized(b.add(DW_TAG_structure_type, tooLong), 0);

    MappedUnit m = mapUnit(b.unit, 0, {});
    const ir::TypeGraph& g = m.graph;
    CHECK(find(g, ir::Kind::Int, "long unsigned int"));
    ir::TypeId closure = find(g, ir::Kind::Struct, "_closure_env_0_");
    REQUIRE(closure);
    CHECK(g.str(g.getAs<ir::StructType>(closure).members[0].name) == "_vptr_Shape");
    CHECK(find(g, ir::Kind::Struct, "_9lives"));
    CHECK(find(g, ir::Kind::Struct, std::string(127, 'x')));
}

TEST_CASE("a DW_AT_signature stub stands for the type unit's type") {
    UnitBuilder b;
    Die& stub = b.add(DW_TAG_structure_type);
    stub.type = 0x1000; // in a type unit
    stub.flags |= kSignature;
    DieOffset stubOffset = stub.offset;
    b.add(DW_TAG_pointer_type).type = stubOffset;

    MappedUnit m = mapUnit(b.unit, 0, {});
    REQUIRE(m.externals.size() == 1);
    CHECK(m.externals[0].second == 0x1000);
    CHECK(m.graph.target(find(m.graph, ir::Kind::Ptr)) == m.externals[0].first);
    CHECK(!find(m.graph, ir::Kind::Struct));
}

TEST_CASE("appended units map as one: references between them need no placeholder") {
    UnitBuilder first;
    first.unit.isPartial = true;
    Die& ptr = first.add(DW_TAG_pointer_type);
    UnitBuilder second;
    for (Die& d : second.unit.dies)
        d.offset += 0x1000;
    Die& s = sized(second.add(DW_TAG_structure_type, "later"), 0);
    s.offset += 0x1000;
    ptr.type = s.offset;
    first.unit.append(second.unit);

    MappedUnit m = mapUnit(first.unit, 0, {});
    CHECK(m.externals.empty());
    ir::TypeId later = find(m.graph, ir::Kind::Struct, "later");
    REQUIRE(later);
    CHECK(m.graph.target(find(m.graph, ir::Kind::Ptr)) == later);
    CHECK(first.unit.dies.back().parent == 2); // the second unit's DIE, renumbered
}

TEST_CASE("features parse pahole's names, 'default' and 'all'; unknown names are errors") {
    auto defaults = FeatureSet::parse({});
    REQUIRE(defaults);
    CHECK(defaults->has(Feature::Var));
    CHECK(defaults->has(Feature::ConsistentFunc));
    CHECK_FALSE(defaults->has(Feature::GlobalVar));
    std::vector<std::string> words{"default,global_var"};
    auto extended = FeatureSet::parse(words);
    REQUIRE(extended);
    CHECK(extended->has(Feature::GlobalVar));
    CHECK(extended->has(Feature::Float));
    std::vector<std::string> only{"var"};
    auto narrow = FeatureSet::parse(only);
    REQUIRE(narrow);
    CHECK_FALSE(narrow->has(Feature::Float));
    std::vector<std::string> bad{"var,no_such_feature"};
    auto unknown = FeatureSet::parse(bad);
    REQUIRE_FALSE(unknown);
    CHECK(unknown.error().message().find("no_such_feature") != std::string::npos);
}

TEST_CASE("text arena views survive moves, copies and adoption") {
    std::string_view kept;
    TextArena merged;
    {
        TextArena arena;
        kept = arena.store("parameter_name");
        for (int i = 0; i < 2000; ++i)
            arena.store("filler text that makes the arena grow its blocks");
        TextArena moved = std::move(arena);
        merged.adopt(moved);
    }
    CHECK(kept == "parameter_name");
    std::string big(100000, 'x');
    CHECK(merged.store(big) == big);
}

TEST_CASE("references resolve however the DIE offsets are spread") {
    // A chain of typedefs, t0 -> int and tK -> tK-1, plus one reference to an offset between
    // two DIEs (into another unit, for all the mapper knows), laid out three ways.
    enum class Layout { Even, FarApart, Descending };
    for (Layout layout : {Layout::Even, Layout::FarApart, Layout::Descending}) {
        CAPTURE(static_cast<int>(layout));
        UnitBuilder b;
        sized(b.add(DW_TAG_base_type, "int"), 4).encoding = DW_ATE_signed;
        constexpr int kChain = 300;
        std::vector<std::string> names;
        for (int k = 0; k < kChain; ++k) // appended, not "t" + ...: gcc 12's -Wrestrict misfires
            names.push_back(std::string("t").append(std::to_string(k)));
        for (int k = 0; k < kChain; ++k)
            b.add(DW_TAG_typedef, names[k]);
        b.add(DW_TAG_typedef, "dangling");
        std::vector<Die>& dies = b.unit.dies;
        for (size_t i = 0; i < dies.size(); ++i) {
            if (layout == Layout::FarApart && i > dies.size() / 2)
                dies[i].offset += DieOffset{1} << 40;
            else if (layout == Layout::Descending)
                dies[i].offset = 0x100000 - 0x10 * i;
        }
        for (int k = 0; k < kChain; ++k)
            dies[2 + k].type = dies[1 + k].offset; // dies[1] is int
        dies.back().type = dies[5].offset + 1;

        MappedUnit m = mapUnit(b.unit, 0, {});
        const ir::TypeGraph& g = m.graph;
        bool chained = true;
        for (int k = 1; k < kChain; ++k)
            chained = chained && g.target(find(g, ir::Kind::Typedef, names[k])) ==
                                     find(g, ir::Kind::Typedef, names[k - 1]);
        CHECK(chained);
        CHECK(g.target(find(g, ir::Kind::Typedef, "t0")) == find(g, ir::Kind::Int, "int"));
        CHECK(m.externals.size() == 1);
    }
}

TEST_CASE("DWARF 2-4 bitfields count from the storage unit's first bit on big-endian targets") {
    for (auto order : {ir::ByteOrder::Little, ir::ByteOrder::Big}) {
        CAPTURE(static_cast<int>(order));
        UnitBuilder b;
        Die& u16 = sized(b.add(DW_TAG_base_type, "unsigned short"), 2);
        u16.encoding = DW_ATE_unsigned;
        const DieOffset u16Type = u16.offset; // add() may move the DIEs
        sized(b.add(DW_TAG_structure_type, "s"), 2);
        b.open();
        Die& high = b.add(DW_TAG_member, "high"); // the storage unit's 3 most significant bits
        high.type = u16Type;
        b.unit.rareFor(high).bitSize = 3;
        b.unit.rareFor(high).bitOffset = 0;
        high.flags |= kHasBitSize | kHasBitOffset | kHasDataMemberLocation;
        b.close();
        MappingRules rules;
        rules.target.byteOrder = order;
        MappedUnit m = mapUnit(b.unit, 0, rules);
        auto s = m.graph.getAs<ir::StructType>(find(m.graph, ir::Kind::Struct, "s"));
        REQUIRE(s.members.size() == 1);
        // BTF counts bits in memory order: the MSB is bit 0 on big-endian, bit 15 on little.
        CHECK(s.members[0].bitOffset == (order == ir::ByteOrder::Big ? 0u : 13u));
        CHECK(m.graph.byteOrder() == order);
    }
}

TEST_CASE("parameters are checked against the input's argument registers, or not at all") {
    // int f(long a, long b), both in their entry registers r0, r1 (DWARF 0, 1) as arm64
    // passes them; x86-64 would expect rdi, rsi (5, 4).
    UnitBuilder b;
    b.unit.producer = "GNU C11 12.2.0";
    Die& l = sized(b.add(DW_TAG_base_type, "long"), 8);
    l.encoding = DW_ATE_signed;
    const DieOffset longType = l.offset; // add() may move the DIEs
    Die& f = b.add(DW_TAG_subprogram, "f");
    f.type = longType;
    f.flags |= kExternal | kHasLowPc;
    b.open();
    for (uint8_t reg : {0, 1}) {
        Die& p = b.add(DW_TAG_formal_parameter, reg ? "b" : "a");
        p.type = longType;
        p.flags |= kHasLocation | kLocationKnown;
        b.unit.rareFor(p).locationFirst = static_cast<uint32_t>(b.unit.locationOps.size());
        b.unit.rareFor(p).locationCount = 1;
        b.unit.locationOps.push_back({static_cast<uint8_t>(DW_OP_reg0 + reg), 0, 0});
    }
    b.close();
    auto facts = [&](uint16_t machine) {
        MappingRules rules;
        rules.target.machine = machine;
        rules.convention = callingConventionOf(rules.target);
        MappedUnit m = mapUnit(b.unit, 0, rules);
        REQUIRE(m.observations.functions.size() == 1);
        return m.observations.functions[0].facts;
    };
    CHECK((facts(EM_AARCH64) & kFunctionUnexpectedRegister) == 0);
    CHECK((facts(EM_X86_64) & kFunctionUnexpectedRegister) != 0);
    CHECK((facts(EM_MIPS) & kFunctionUnexpectedRegister) != 0);    // n64 expects $a0, $a1 (4, 5)
    CHECK((facts(EM_SPARCV9) & kFunctionUnexpectedRegister) == 0); // no convention: unchecked
}
