// What an attribute's value means for a Die (DieAttributes), from values as the DWARF 5
// standard defines them: the rules both readers share.
#include "btforge/dwarf/DieAttributes.h"

#include "btforge/dwarf/DwarfSections.h"
#include "btforge/dwarf/Forms.h"

#include <doctest/doctest.h>

#include <dwarf.h>
#include <span>
#include <vector>

using namespace btforge::dwarf;

namespace {

// One DIE of `tag` in a unit of its own, and the rules for its attributes.
struct OneDie {
    explicit OneDie(uint16_t tag) {
        unit.dies.push_back(Die{});
        unit.dies[0].tag = tag;
    }
    Die& die() { return unit.dies[0]; }
    const RareAttributes& rare() { return unit.rareOf(unit.dies[0]); }
    DieAttributes rules() { return DieAttributes(unit, unit.dies[0], scratch); }

    UnitDies unit;
    std::vector<LocationOp> scratch;
};

// Hands over one location expression the way a reader does.
void readExpression(DieAttributes& rules, std::vector<LocationOp> ops, bool read = true) {
    std::vector<LocationOp>& into = rules.expression();
    into.insert(into.end(), ops.begin(), ops.end());
    rules.expressionRead(read);
}

const LocationOp kEntryValueReg5{DW_OP_entry_value, 1, DW_OP_reg5};
const LocationOp kStackValue{DW_OP_stack_value, 0, 0};
const LocationOp kReg3{DW_OP_reg3, 0, 0};

// The value a DW_AT_const_value block gives an enumerator.
uint64_t blockValue(std::span<const uint8_t> bytes, bool bigEndian) {
    OneDie die(DW_TAG_enumerator);
    die.rules().block(DW_AT_const_value, bytes, bigEndian);
    return die.die().constValue;
}

} // namespace

TEST_CASE("forms fall into the classes of DWARF 5 section 7.5.5") {
    CHECK(formClass(DW_FORM_flag_present) == FormClass::Flag);
    CHECK(formClass(DW_FORM_strx1) == FormClass::String);
    CHECK(formClass(DW_FORM_ref_sig8) == FormClass::Reference);
    CHECK(formClass(DW_FORM_addrx) == FormClass::Address);
    CHECK(formClass(DW_FORM_block1) == FormClass::Block);
    CHECK(formClass(DW_FORM_exprloc) == FormClass::Expression);
    CHECK(formClass(DW_FORM_data2) == FormClass::Constant);
    CHECK(isSignedForm(DW_FORM_sdata));
    CHECK(isSignedForm(DW_FORM_implicit_const));
    CHECK_FALSE(isSignedForm(DW_FORM_data1));
}

TEST_CASE("DW_AT_inline: only DW_INL_not_inlined leaves a function not inline") {
    OneDie notInlined(DW_TAG_subprogram);
    notInlined.rules().constant(DW_AT_inline, {DW_INL_not_inlined, false});
    CHECK_FALSE(notInlined.die().has(kInlined));
    OneDie declared(DW_TAG_subprogram);
    declared.rules().constant(DW_AT_inline, {DW_INL_declared_inlined, false});
    CHECK(declared.die().has(kInlined));
}

TEST_CASE("bounds are signed only in the signed forms") {
    OneDie unsignedBound(DW_TAG_subrange_type); // char[256]: data1 0xff
    unsignedBound.rules().constant(DW_AT_upper_bound, {0xff, false});
    CHECK(unsignedBound.die().has(kHasUpperBound));
    CHECK(unsignedBound.die().bound == 0xff);
    CHECK_FALSE(unsignedBound.die().has(kConstValueSigned));
    OneDie minusOne(DW_TAG_subrange_type); // a zero-length array: sdata -1
    minusOne.rules().constant(DW_AT_upper_bound, {UINT64_MAX, true});
    CHECK(minusOne.die().has(kConstValueSigned));
    OneDie count(DW_TAG_subrange_type);
    count.rules().constant(DW_AT_count, {4, true});
    CHECK(count.die().has(kHasCount));
    CHECK_FALSE(count.die().has(kConstValueSigned));
}

TEST_CASE("a member's offset is a constant or a lone DW_OP_plus_uconst") {
    OneDie constant(DW_TAG_member);
    constant.rules().constant(DW_AT_data_member_location, {16, false});
    CHECK(constant.die().dataMemberLocation == 16);
    OneDie expression(DW_TAG_member);
    std::vector<LocationOp> plus{{DW_OP_plus_uconst, 8, 0}};
    expression.rules().operations(DW_AT_data_member_location, plus);
    CHECK(expression.die().has(kHasDataMemberLocation));
    CHECK(expression.die().dataMemberLocation == 8);
    OneDie computed(DW_TAG_member); // computed from the object: no constant offset
    std::vector<LocationOp> virtualBase{{DW_OP_dup, 0, 0}, {DW_OP_plus_uconst, 8, 0}};
    computed.rules().operations(DW_AT_data_member_location, virtualBase);
    CHECK_FALSE(computed.die().has(kHasDataMemberLocation));
    CHECK(DieAttributes::usesOperations(DW_AT_data_member_location));
    CHECK_FALSE(DieAttributes::usesOperations(DW_AT_frame_base));
    // DWARF 2 and 3 write a member's offset expression as a block.
    CHECK(DieAttributes::takesOperations(DW_AT_data_member_location, FormClass::Block));
    CHECK(DieAttributes::takesOperations(DW_AT_data_member_location, FormClass::Expression));
    CHECK_FALSE(DieAttributes::takesOperations(DW_AT_data_member_location, FormClass::Constant));
    CHECK_FALSE(DieAttributes::takesOperations(DW_AT_const_value, FormClass::Block));
}

TEST_CASE("a constant in a block is in the target's byte order") {
    const uint8_t bytes[] = {0x12, 0x34};
    CHECK(blockValue(bytes, false) == 0x3412);
    CHECK(blockValue(bytes, true) == 0x1234);
    // Longer than the IR's 64 bits: the low-order bytes, the last ones on a big-endian target.
    const uint8_t wide[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    CHECK(blockValue(wide, false) == 0x0807060504030201);
    CHECK(blockValue(wide, true) == 0x030405060708090a);
}

TEST_CASE("a 16-byte constant is its low 64 bits when the rest only extends them") {
    // value: the 16 bytes of a number given as its low and high halves, in the target's order.
    auto read = [](uint64_t low, uint64_t high, bool bigEndian) {
        uint8_t bytes[16];
        for (int i = 0; i < 16; ++i) {
            const uint64_t half = i < 8 ? low : high;
            bytes[bigEndian ? 15 - i : i] = static_cast<uint8_t>(half >> (8 * (i % 8)));
        }
        OneDie die(DW_TAG_enumerator);
        die.rules().wideConstant(DW_AT_const_value, bytes, bigEndian);
        return die;
    };
    for (bool bigEndian : {false, true}) {
        CAPTURE(bigEndian);
        OneDie minusThree = read(static_cast<uint64_t>(-3), ~uint64_t{0}, bigEndian);
        CHECK(minusThree.die().has(kHasConstValue));
        CHECK(minusThree.die().has(kConstValueSigned));
        CHECK(minusThree.die().constValue == static_cast<uint64_t>(-3));
        OneDie large = read(0x8000000000000001, 0, bigEndian); // unsigned, top bit set
        CHECK(large.die().constValue == 0x8000000000000001);
        CHECK_FALSE(large.die().has(kConstValueSigned));
        // Wider than 64 bits either way: left out.
        CHECK_FALSE(read(5, 1, bigEndian).die().has(kHasConstValue));
        CHECK_FALSE(read(5, ~uint64_t{0}, bigEndian).die().has(kHasConstValue));
    }
}

TEST_CASE("a location list: its first expression, and a parameter's entry-value register") {
    OneDie param(DW_TAG_formal_parameter);
    DieAttributes rules = param.rules();
    rules.location(true);
    REQUIRE(rules.wanted());
    readExpression(rules, {kReg3});
    REQUIRE(rules.wanted()); // no entry value yet
    readExpression(rules, {kEntryValueReg5, kStackValue});
    CHECK_FALSE(rules.wanted());
    CHECK(param.die().has(kLocationIsList));
    CHECK(param.die().has(kLocationKnown));
    REQUIRE(param.unit.location(param.die()).size() == 1);
    CHECK(param.unit.location(param.die())[0].atom == DW_OP_reg3);
    CHECK(param.rare().entryValueRegister == 5);

    OneDie variable(DW_TAG_variable); // only parameters have entry-value registers
    DieAttributes variableRules = variable.rules();
    variableRules.location(true);
    readExpression(variableRules, {kEntryValueReg5});
    CHECK_FALSE(variableRules.wanted());
    CHECK(variable.rare().entryValueRegister == 0xff);
}

TEST_CASE("an unreadable first expression leaves the location unknown") {
    OneDie param(DW_TAG_formal_parameter);
    DieAttributes rules = param.rules();
    rules.location(false);
    readExpression(rules, {kReg3}, false);
    CHECK(param.die().has(kHasLocation));
    CHECK_FALSE(param.die().has(kLocationKnown));
    CHECK(param.unit.locationOps.empty());
    CHECK(DieAttributes::isLocationList(DW_FORM_sec_offset, 4));
    CHECK(DieAttributes::isLocationList(DW_FORM_data4, 3));
    CHECK_FALSE(DieAttributes::isLocationList(DW_FORM_data4, 4));
}

TEST_CASE("a function in pieces takes its first range's start as low_pc") {
    OneDie function(DW_TAG_subprogram);
    DieAttributes rules = function.rules();
    rules.ranges();
    REQUIRE(rules.needsFirstRange());
    rules.address(DW_AT_low_pc, 0x1000);
    CHECK_FALSE(rules.needsFirstRange());
    CHECK(function.rare().lowPc == 0x1000);
}

TEST_CASE("unit sections may repeat; other sections read must be one") {
    CHECK(dwarfSectionKind(".debug_types") == DwarfSection::Units);
    CHECK(dwarfSectionKind(".zdebug_info") == DwarfSection::Units);
    CHECK(dwarfSectionKind(".zdebug_str") == DwarfSection::Single);
    CHECK(dwarfSectionKind(".debug_macro") == DwarfSection::NotRead);
    CHECK(dwarfSectionName(".zdebug_abbrev") == ".debug_abbrev");

    // gcc -fdebug-types-section -c, with -g3's macro sections in COMDAT groups too.
    DwarfSectionCount comdat;
    for (const char* name : {".text", ".debug_types", ".debug_types", ".debug_info",
                             ".debug_abbrev", ".debug_macro", ".debug_macro", ".debug_str"})
        comdat.add(name);
    CHECK(comdat.repeats());
    CHECK(comdat.problem().empty());

    // A .zdebug_ section is its .debug_ name.
    DwarfSectionCount strings;
    for (const char* name : {".debug_info", ".debug_str", ".zdebug_str"})
        strings.add(name);
    CHECK(strings.problem().starts_with("section .debug_str appears 2 times"));
}
