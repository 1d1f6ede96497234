// Reading one DIE's attribute values with LLVM: forms decoded into the values the reader rules
// (DieAttributes.h) take; expressions, location lists and blocks included.
#include "LlvmAttributeDecoder.h"

#include "LlvmInputChecks.h"
#include "LlvmUnitReader.h"

#include "btforge/support/Hex.h"

#include <array>
#include <llvm/DebugInfo/DWARF/DWARFDebugLoc.h>
#include <llvm/DebugInfo/DWARF/DWARFExpression.h>
#include <llvm/Support/LEB128.h>
#include <utility>

namespace btforge::dwarf {
namespace {

using llvm::DWARFDie;
using llvm::DWARFFormValue;
namespace dw = llvm::dwarf;

// DW_OP_GNU_parameter_ref, which LLVM 19's dwarf::LocationAtom does not have.
constexpr uint8_t kGnuParameterRef = 0xfa;

// The classes of the standard forms (DWARF 5's are below 0x30), taken from the shared table once:
// every attribute asks for its form's, and formClass is a call into the core library (6 % of a
// vmlinux's reading with this reader).
const std::array<FormClass, 0x30> kStandardFormClasses = [] {
    std::array<FormClass, 0x30> classes{};
    for (unsigned form = 0; form < classes.size(); ++form)
        classes[form] = formClass(form);
    return classes;
}();

FormClass classOf(unsigned form) {
    return form < kStandardFormClasses.size() ? kStandardFormClasses[form] : formClass(form);
}

// Steps `*at` over a value of `spec`, of `form` once checked (checkedForm); false when it runs
// past `end`. A fixed size comes with the abbreviation, without LLVM's skipping, whose
// arguments are copied by value on every call.
bool skipValue(const DieSource& where,
               const llvm::DWARFAbbreviationDeclaration::AttributeSpec& spec, dw::Form form,
               uint64_t* at, uint64_t end) {
    if (auto size = spec.getByteSize(where.unit))
        *at += static_cast<uint64_t>(*size);
    else if (!DWARFFormValue::skipValue(form, where.data, at, where.params))
        return false;
    return *at <= end;
}

// Reads one DIE's attribute values from their forms and hands them to the rules (DieAttributes,
// DieAttributes.h).
struct AttributeDecoder {
    const DieSource& where;
    UnitDies& unit;
    DieAttributes rules;
    std::vector<LocationOp>& scratchOps;
    const LlvmUnitReader& reader = where.reader;
    llvm::DWARFUnit& llvmUnit = where.unit;
    const DieOffset unitStart = where.unitStart; // unit-relative references count from it

    DieOffset reference(const DWARFFormValue& value) const {
        switch (value.getForm()) {
        case dw::DW_FORM_ref1:
        case dw::DW_FORM_ref2:
        case dw::DW_FORM_ref4:
        case dw::DW_FORM_ref8:
        case dw::DW_FORM_ref_udata:
            return unitStart + value.getRawUValue();
        case dw::DW_FORM_ref_addr:
            return value.getRawUValue(); // always into .debug_info
        case dw::DW_FORM_ref_sig8:
            return reader.typeBySignature(value.getRawUValue());
        default:
            return kNoDie; // the supplementary (alt) file: refused when opened
        }
    }

    // Appends the operations of `bytes`, an expression starting at `sectionOffset` in the unit's
    // section when it is there (rather than in a location list entry LLVM copied): a DW_OP_addr
    // operand is then read through LLVM's relocations. Indexed addresses become DW_OP_addr.
    void decodeExpression(llvm::ArrayRef<uint8_t> bytes, std::optional<uint64_t> sectionOffset,
                          std::vector<LocationOp>& ops) const {
        const uint8_t addressSize = unit.addressSize;
        llvm::DataExtractor data(
            llvm::StringRef(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
            llvmUnit.isLittleEndian(), addressSize);
        llvm::DWARFExpression expression(data, addressSize, llvmUnit.getFormat());
        // LLVM decodes DW_OP_entry_value's sub-expression as the operations that follow it;
        // LocationOp keeps it as the entry-value operation's block.
        uint64_t start = 0, subExpressionEnd = 0;
        for (const auto& op : expression) {
            const uint64_t at = std::exchange(start, op.getEndOffset());
            if (at < subExpressionEnd)
                continue;
            LocationOp out{op.getCode(), 0, 0};
            if (op.isError() && op.getCode() == kGnuParameterRef && at + 5 <= bytes.size()) {
                // gcc writes it for parameters of clones; LLVM 19 does not know it. Its operand
                // is 4 bytes; decoding goes on after it.
                uint64_t operand = at + 1;
                out.number = data.getU32(&operand); // in the unit's byte order
                ops.push_back(out);
                std::optional<uint64_t> rest;
                if (sectionOffset)
                    rest = *sectionOffset + at + 5;
                decodeExpression(bytes.drop_front(at + 5), rest, ops);
                return;
            }
            if (op.isError()) {
                // An operation LLVM cannot decode (DW_OP_implicit_pointer in LLVM 19, or one cut
                // short) ends the expression, kept with unknown operands.
                ops.push_back(out);
                return;
            }
            auto operands = op.getRawOperands();
            if (!operands.empty())
                out.number = operands[0];
            if (operands.size() > 1)
                out.number2 = operands[1];
            switch (op.getCode()) {
            case dw::DW_OP_addr:
                if (sectionOffset) {
                    uint64_t at = *sectionOffset + op.getOperandEndOffset(0) - addressSize;
                    llvm::DWARFDataExtractor relocated(reader.dwarfObject(),
                                                       llvmUnit.getInfoSection(),
                                                       llvmUnit.isLittleEndian(), addressSize);
                    uint64_t section = llvm::object::SectionedAddress::UndefSection;
                    uint64_t value = relocated.getRelocatedAddress(&at, &section);
                    out.number = reader.address({value, section});
                }
                break;
            case dw::DW_OP_addrx:
            case dw::DW_OP_GNU_addr_index:
                if (auto address =
                        llvmUnit.getAddrOffsetSectionItem(static_cast<uint32_t>(out.number)))
                    out = {dw::DW_OP_addr, reader.address(*address), 0};
                break;
            case dw::DW_OP_entry_value:
            case dw::DW_OP_GNU_entry_value: // LocationOp holds the block's first byte
                subExpressionEnd = op.getEndOffset() + out.number;
                out.number2 =
                    out.number && op.getEndOffset() < bytes.size() ? bytes[op.getEndOffset()] : 0;
                break;
            case dw::DW_OP_implicit_value: { // LLVM: the block's length and offset
                uint64_t block = operands.size() > 1 ? operands[1] : bytes.size();
                out.number2 = out.number && block < bytes.size() ? bytes[block] : 0;
                break;
            }
            default:
                break;
            }
            ops.push_back(out);
        }
    }

    // A block attribute's bytes, when they lie inside the unit's section: LLVM takes a block's
    // length as the DIE gives it, and a broken one would point past the section.
    std::optional<llvm::ArrayRef<uint8_t>> blockOf(const DWARFFormValue& value) const {
        auto bytes = value.getAsBlock();
        llvm::StringRef section = llvmUnit.getInfoSection().Data;
        const auto* begin = reinterpret_cast<const uint8_t*>(section.data());
        if (!bytes || bytes->data() < begin || bytes->data() > begin + section.size() ||
            bytes->size() > static_cast<size_t>(begin + section.size() - bytes->data()))
            return std::nullopt;
        return bytes;
    }

    // Where an expression block of this unit's section starts in that section.
    uint64_t offsetInSection(llvm::ArrayRef<uint8_t> block) const {
        return static_cast<uint64_t>(reinterpret_cast<const char*>(block.data()) -
                                     llvmUnit.getInfoSection().Data.data());
    }

    // LLVM finds a string's end before handing it out, and the rules find it again: .debug_str's
    // are known to end inside the section.
    const char* string(const DWARFFormValue& value) const {
        if (value.getForm() == dw::DW_FORM_strp && value.getRawUValue() < where.strings.size())
            return where.strings.data() + value.getRawUValue();
        return stringValue(value);
    }

    void decodeLocation(const DWARFFormValue& value) {
        dw::Form form = value.getForm();
        const bool isList = DieAttributes::isLocationList(form, unit.version);
        rules.location(isList);
        if (!isList) {
            if (auto block = blockOf(value)) {
                decodeExpression(*block, offsetInSection(*block), rules.expression());
                rules.expressionRead(true);
            }
            return;
        }
        std::optional<uint64_t> offset = value.getRawUValue();
        if (form == dw::DW_FORM_loclistx)
            offset = llvmUnit.getLoclistOffset(static_cast<uint32_t>(value.getRawUValue()));
        // LLVM looks the first entry's relocation up before it checks the offset, and an offset
        // of ~0 (its hash map's empty key) finds an uninitialised entry.
        const llvm::DWARFObject& object = reader.dwarfObject();
        const llvm::DWARFSection& lists =
            llvmUnit.getVersion() >= 5 ? object.getLoclistsSection() : object.getLocSection();
        if (!offset || *offset >= lists.Data.size())
            return;
        auto visited = llvmUnit.getLocationTable().visitLocationList(
            &*offset, [&](const llvm::DWARFLocationEntry& entry) {
                switch (entry.Kind) {
                case dw::DW_LLE_end_of_list:
                case dw::DW_LLE_base_address:
                case dw::DW_LLE_base_addressx:
                    return true;
                default:
                    break;
                }
                if (rules.wanted()) {
                    decodeExpression(entry.Loc, std::nullopt, rules.expression());
                    rules.expressionRead(true);
                }
                return true;
            });
        llvm::consumeError(std::move(visited));
    }

    void decode(dw::Attribute attribute, const DWARFFormValue& value) {
        if (!DieAttributes::isUsed(attribute))
            return;
        if (attribute == dw::DW_AT_location)
            return decodeLocation(value);
        if (attribute == dw::DW_AT_ranges)
            return rules.ranges(); // read by the walk if the rules need it
        const FormClass kind = classOf(value.getForm());
        switch (kind) {
        case FormClass::Flag:
            rules.flag(attribute, value.getAsUnsignedConstant().value_or(0) != 0);
            break;
        case FormClass::String:
            if (const char* s = string(value))
                rules.string(attribute, s);
            break;
        case FormClass::Reference:
            rules.reference(attribute, reference(value));
            break;
        case FormClass::Address:
            if (auto address = value.getAsSectionedAddress())
                rules.address(attribute, reader.address(*address));
            break;
        case FormClass::Block:
        case FormClass::Expression: {
            auto block = blockOf(value);
            if (DieAttributes::takesOperations(attribute, kind)) {
                scratchOps.clear();
                if (block)
                    decodeExpression(*block, std::nullopt, scratchOps);
                rules.operations(attribute, scratchOps);
            } else if (block && kind == FormClass::Block) {
                rules.block(attribute, *block, !llvmUnit.isLittleEndian());
            }
            break;
        }
        case FormClass::Constant:
            if (value.getForm() == dw::DW_FORM_data16) { // LLVM holds its bytes as a block
                if (auto bytes = blockOf(value))
                    rules.wideConstant(attribute, *bytes, !llvmUnit.isLittleEndian());
            } else if (auto number = unsignedValue(value)) {
                rules.constant(attribute, {*number, isSignedForm(value.getForm())});
            }
            break;
        }
    }
};

} // namespace

// A constant as libdw's dwarf_formudata reads it: the signed forms as their bits.
std::optional<uint64_t> unsignedValue(const llvm::DWARFFormValue& value) {
    switch (value.getForm()) {
    case dw::DW_FORM_data1:
    case dw::DW_FORM_data2:
    case dw::DW_FORM_data4:
    case dw::DW_FORM_data8:
    case dw::DW_FORM_udata:
    case dw::DW_FORM_sdata:
    case dw::DW_FORM_implicit_const:
    case dw::DW_FORM_sec_offset:
        return value.getRawUValue();
    default:
        return std::nullopt;
    }
}

const char* stringValue(const llvm::DWARFFormValue& value) {
    auto string = value.getAsCString();
    if (!string) {
        llvm::consumeError(string.takeError());
        return nullptr;
    }
    return *string;
}

bool decodeAttributes(const DieSource& where, const llvm::DWARFAbbreviationDeclaration& decl,
                      uint64_t dieOffset, uint64_t* at, UnitDies& out, Die& die,
                      std::vector<LocationOp>& scratchOps) {
    llvm::DWARFUnit& llvmUnit = where.unit;
    const llvm::DWARFDataExtractor& data = where.data;
    // The values are bounded first (at once when all have fixed sizes, as most DIEs'), so that
    // LLVM decodes only values inside the unit, with its unit's parameters: gcc assembles those
    // in memory field by field for every call that takes them by value, which stalled store
    // forwarding (a tenth of this reader's time).
    uint64_t valuesEnd = *at;
    if (!skipAttributes(where, decl, &valuesEnd))
        return false;
    AttributeDecoder decoder{where, out, DieAttributes(out, die, scratchOps), scratchOps};
    // The values the rules use are decoded, the others stepped over (LLVM's attribute iterator
    // decodes every one).
    for (const auto& spec : decl.attributes()) {
        if (spec.isImplicitConst()) {
            if (DieAttributes::isUsed(spec.Attr))
                decoder.decode(spec.Attr, DWARFFormValue::createFromSValue(
                                              spec.Form, spec.getImplicitConstValue()));
            continue;
        }
        // Checked again, within what the first pass bounded: LLVM may step over a malformed
        // value otherwise than it decodes it (DW_FORM_LLVM_addrx_offset with a broken LEB128),
        // and what follows must not be decoded from bytes nothing checked.
        dw::Form form = spec.Form;
        if (!checkedForm(form, data, at, valuesEnd))
            return false;
        if (!DieAttributes::isUsed(spec.Attr)) {
            if (!skipValue(where, spec, form, at, valuesEnd))
                return false;
            continue;
        }
        DWARFFormValue value = DWARFFormValue::createFromUnit(form, &llvmUnit, at);
        if (*at > valuesEnd)
            return false;
        decoder.decode(spec.Attr, value);
    }
    if (*at != valuesEnd)
        return false;
    if (decoder.rules.needsFirstRange()) {
        // LLVM reads ranges from an extracted DIE, which the decoding above did without.
        llvm::DWARFDebugInfoEntry entry;
        uint64_t offset = dieOffset;
        entry.extractFast(llvmUnit, &offset, data, where.end, 0);
        auto ranges = DWARFDie(&llvmUnit, &entry).getAddressRanges();
        if (!ranges) {
            llvm::consumeError(ranges.takeError());
        } else if (!ranges->empty()) {
            decoder.rules.address(
                dw::DW_AT_low_pc,
                where.reader.address({ranges->front().LowPC, ranges->front().SectionIndex}));
        }
    }
    return true;
}

bool skipAttributes(const DieSource& where, const llvm::DWARFAbbreviationDeclaration& decl,
                    uint64_t* at) {
    // Most DIEs hold only values of fixed sizes (no block, string or LEB128), which LLVM adds
    // up with the abbreviation, in counters of 8 bits (addresses, offsets) and 16 (bytes): with
    // 256 attributes or more they may wrap.
    if (auto fixed = decl.getNumAttributes() < 256 ? decl.getFixedAttributesByteSize(where.unit)
                                                   : std::nullopt) {
        if (*at > where.end || *fixed > where.end - *at)
            return false;
        *at += *fixed;
        return true;
    }
    for (const auto& spec : decl.attributes()) {
        if (spec.isImplicitConst())
            continue;
        dw::Form form = spec.Form;
        if (!checkedForm(form, where.data, at, where.end) ||
            !skipValue(where, spec, form, at, where.end))
            return false;
    }
    return true;
}

std::string valuesProblem(const DieSource& where, const llvm::DWARFAbbreviationDeclaration& decl,
                          uint64_t at) {
    for (const auto& spec : decl.attributes()) {
        if (spec.isImplicitConst())
            continue;
        const std::string attribute = "attribute " + hex(spec.Attr);
        const std::string pastUnit = attribute + " runs past the end of the unit";
        dw::Form form = spec.Form; // checkedForm resolves DW_FORM_indirect into it
        if (!checkedForm(form, where.data, &at, where.end))
            return knownForm(form) ? pastUnit : attribute + " has an unknown form " + hex(form);
        if (!skipValue(where, spec, form, &at, where.end))
            return pastUnit;
    }
    // Every value steps inside the unit: one was decoded to another length than it steps over.
    return "a malformed value: LLVM decodes it to another length than it steps over";
}

} // namespace btforge::dwarf
