// The attribute rules both DWARF readers share (DieAttributes.h): readers turn forms
// into values, and everything that decides what a value means for the Die is here.
#include "btforge/dwarf/DieAttributes.h"

#include "btforge/dwarf/Forms.h"

#include <algorithm>
#include <dwarf.h>

namespace btforge::dwarf {

namespace {

// The 8 bytes of a value, in the target's byte order, from its byte of significance `first` (0:
// the least significant) up; bytes past its end read as 0.
uint64_t word(std::span<const uint8_t> bytes, bool bigEndian, size_t first) {
    uint64_t value = 0;
    for (size_t i = 0; i < 8 && first + i < bytes.size(); ++i)
        value |= uint64_t{bytes[bigEndian ? bytes.size() - 1 - first - i : first + i]} << (8 * i);
    return value;
}

} // namespace

bool DieAttributes::isUsed(unsigned attribute) {
    switch (attribute) {
    case DW_AT_name:
    case DW_AT_type:
    case DW_AT_abstract_origin:
    case DW_AT_specification:
    case DW_AT_signature:
    case DW_AT_byte_size:
    case DW_AT_bit_size:
    case DW_AT_data_bit_offset:
    case DW_AT_bit_offset:
    case DW_AT_data_member_location:
    case DW_AT_encoding:
    case DW_AT_calling_convention:
    case DW_AT_inline:
    case DW_AT_const_value:
    case DW_AT_upper_bound:
    case DW_AT_count:
    case DW_AT_low_pc:
    case DW_AT_ranges:
    case DW_AT_location:
    case DW_AT_declaration:
    case DW_AT_external:
    case DW_AT_prototyped:
    case DW_AT_artificial:
    case DW_AT_GNU_vector:
    case DW_AT_alignment:
        return true;
    default:
        return false;
    }
}

bool DieAttributes::usesOperations(unsigned attribute) {
    return attribute == DW_AT_data_member_location;
}

bool DieAttributes::takesOperations(unsigned attribute, FormClass kind) {
    return (kind == FormClass::Expression || kind == FormClass::Block) && usesOperations(attribute);
}

bool DieAttributes::isLocationList(unsigned form, uint16_t version) {
    // Before DWARF 4, a location list's offset came in data4 or data8.
    return form == DW_FORM_sec_offset || form == DW_FORM_loclistx ||
           (version < 4 && (form == DW_FORM_data4 || form == DW_FORM_data8));
}

void DieAttributes::flag(unsigned attribute, bool value) {
    if (!value)
        return;
    switch (attribute) {
    case DW_AT_declaration:
        die_.flags |= kDeclaration;
        break;
    case DW_AT_external:
        die_.flags |= kExternal;
        break;
    case DW_AT_prototyped:
        die_.flags |= kPrototyped;
        break;
    case DW_AT_artificial:
        die_.flags |= kArtificial;
        break;
    case DW_AT_GNU_vector:
        die_.flags |= kVector;
        break;
    default:
        break;
    }
}

void DieAttributes::constant(unsigned attribute, Constant value) {
    auto set = [&](uint64_t& field, DieFlag flag) {
        field = value.bits;
        die_.flags |= flag;
    };
    switch (attribute) {
    case DW_AT_byte_size:
        set(die_.byteSize, kHasByteSize);
        break;
    case DW_AT_bit_size:
        set(unit_.rareFor(die_).bitSize, kHasBitSize);
        break;
    case DW_AT_data_bit_offset:
        set(unit_.rareFor(die_).dataBitOffset, kHasDataBitOffset);
        break;
    case DW_AT_bit_offset:
        set(unit_.rareFor(die_).bitOffset, kHasBitOffset);
        break;
    case DW_AT_data_member_location:
        set(die_.dataMemberLocation, kHasDataMemberLocation);
        break;
    case DW_AT_encoding:
        die_.encoding = static_cast<uint8_t>(value.bits);
        break;
    case DW_AT_calling_convention:
        die_.callingConvention = static_cast<uint8_t>(value.bits);
        break;
    case DW_AT_alignment:
        die_.alignment = static_cast<uint32_t>(std::min<uint64_t>(value.bits, UINT32_MAX));
        break;
    case DW_AT_inline:
        // Declared inline or actually inlined, not DW_INL_not_inlined.
        if (value.bits != DW_INL_not_inlined)
            die_.flags |= kInlined;
        break;
    case DW_AT_const_value:
        set(die_.constValue, kHasConstValue);
        if (value.isSigned)
            die_.flags |= kConstValueSigned;
        break;
    case DW_AT_upper_bound:
    case DW_AT_count:
        // data1..data8 are unsigned (char[256] has upper bound 0xff); only the explicitly signed
        // forms can say -1, as C's zero-length arrays do. A bound in another class (an
        // expression, a reference) is no static count: variable length.
        set(die_.bound, attribute == DW_AT_count ? kHasCount : kHasUpperBound);
        if (value.isSigned && static_cast<int64_t>(value.bits) < 0)
            die_.flags |= kConstValueSigned;
        break;
    default:
        break;
    }
}

void DieAttributes::string(unsigned attribute, std::string_view value) {
    if (attribute == DW_AT_name) {
        die_.name = value;
    } else if (attribute == DW_AT_const_value) { // annotations
        unit_.rareFor(die_).stringValue = value;
        die_.flags |= kHasConstValue | kConstValueString;
    }
}

void DieAttributes::reference(unsigned attribute, DieOffset target) {
    switch (attribute) {
    case DW_AT_type:
        die_.type = target;
        break;
    case DW_AT_abstract_origin:
        die_.abstractOrigin = target;
        break;
    case DW_AT_specification:
        die_.specification = target;
        break;
    case DW_AT_signature:
        die_.type = target;
        die_.flags |= kSignature;
        break;
    default:
        break;
    }
}

void DieAttributes::address(unsigned attribute, uint64_t address) {
    if (attribute == DW_AT_low_pc) {
        unit_.rareFor(die_).lowPc = address;
        die_.flags |= kHasLowPc;
    }
}

void DieAttributes::block(unsigned attribute, std::span<const uint8_t> bytes, bool bigEndian) {
    if (attribute != DW_AT_const_value)
        return;
    // Only the 8 low-order bytes fit the IR.
    die_.constValue = word(bytes, bigEndian, 0);
    die_.flags |= kHasConstValue;
}

void DieAttributes::wideConstant(unsigned attribute, std::span<const uint8_t> bytes,
                                 bool bigEndian) {
    const uint64_t low = word(bytes, bigEndian, 0);
    const uint64_t high = word(bytes, bigEndian, 8);
    if (high == 0)
        constant(attribute, {low, false});
    else if (high == ~uint64_t{0} && static_cast<int64_t>(low) < 0)
        constant(attribute, {low, true});
}

void DieAttributes::operations(unsigned attribute, std::span<const LocationOp> ops) {
    // A member's offset as an expression: only the constant one, DW_OP_plus_uconst N.
    if (attribute == DW_AT_data_member_location && ops.size() == 1 &&
        ops[0].atom == DW_OP_plus_uconst) {
        die_.dataMemberLocation = ops[0].number;
        die_.flags |= kHasDataMemberLocation;
    }
}

void DieAttributes::location(bool isList) {
    // Only parameters and file-scope variables get here; their first expression and any
    // entry-value register are what the function and variable rules look at.
    die_.flags |= kHasLocation;
    if (isList)
        die_.flags |= kLocationIsList;
    isList_ = isList;
}

bool DieAttributes::wanted() const {
    if (expressions_ == 0)
        return true;
    // A list's later entries: a parameter's entry-value register, from the first entry that
    // names one.
    return isList_ && die_.tag == DW_TAG_formal_parameter &&
           unit_.rareOf(die_).entryValueRegister == 0xff;
}

std::vector<LocationOp>& DieAttributes::expression() {
    if (expressions_++ == 0) {
        first_ = static_cast<uint32_t>(unit_.locationOps.size());
        return unit_.locationOps;
    }
    scratch_.clear();
    return scratch_;
}

void DieAttributes::expressionRead(bool read) {
    const bool stored = expressions_ == 1;
    if (!stored) {
        if (read)
            unit_.rareFor(die_).entryValueRegister = entryValueRegister(scratch_);
        return;
    }
    if (!read) {
        unit_.locationOps.resize(first_);
        return;
    }
    RareAttributes& rare = unit_.rareFor(die_);
    rare.locationFirst = first_;
    rare.locationCount = static_cast<uint32_t>(unit_.locationOps.size()) - first_;
    die_.flags |= kLocationKnown;
    if (isList_ && die_.tag == DW_TAG_formal_parameter)
        rare.entryValueRegister = entryValueRegister(unit_.location(die_));
}

bool DieAttributes::needsFirstRange() const {
    return hasRanges_ && !die_.has(kHasLowPc) && die_.tag == DW_TAG_subprogram;
}

uint8_t entryValueRegister(std::span<const LocationOp> ops) {
    bool shape = ops.size() == 1 || (ops.size() == 2 && ops[1].atom == DW_OP_stack_value);
    if (!shape || (ops[0].atom != DW_OP_entry_value && ops[0].atom != DW_OP_GNU_entry_value))
        return 0xff;
    // A one-byte sub-expression, which is its first byte (LocationOp's block contract).
    uint64_t inner = ops[0].number2;
    if (ops[0].number != 1 || inner < DW_OP_reg0 || inner > DW_OP_reg31)
        return 0xff;
    return static_cast<uint8_t>(inner - DW_OP_reg0);
}

} // namespace btforge::dwarf
