#include "btforge/dwarf/ReaderRules.h"

#include "dwarf/UnitMapper.h"

#include <algorithm>
#include <cstring>
#include <dwarf.h>
#include <iterator>
#include <string>

namespace btforge::dwarf {
namespace {

// Types, and the DIEs that make up a type's description.
bool isTypeOrPart(uint16_t tag) {
    switch (tag) {
    case DW_TAG_member:
    case DW_TAG_inheritance:
    case DW_TAG_enumerator:
    case DW_TAG_subrange_type:
    case kTagLlvmAnnotation:
        return true;
    default:
        return isTypeDie(tag);
    }
}

} // namespace

Visit classifyDie(uint16_t tag, uint16_t parentTag) {
    if (isTypeOrPart(tag))
        return Visit::Keep;
    bool atUnitScope = parentTag == DW_TAG_compile_unit || parentTag == DW_TAG_partial_unit ||
                       parentTag == DW_TAG_type_unit || parentTag == DW_TAG_namespace;
    switch (tag) {
    case DW_TAG_subprogram:
    case DW_TAG_namespace:
        return Visit::Keep;
    case DW_TAG_variable:
        return atUnitScope ? Visit::Keep : Visit::Skip;
    case DW_TAG_formal_parameter:
    case DW_TAG_unspecified_parameters:
        return parentTag == DW_TAG_subprogram || parentTag == DW_TAG_subroutine_type ? Visit::Keep
                                                                                     : Visit::Skip;
    case DW_TAG_lexical_block:
        return Visit::Descend;
    default:
        return Visit::Skip;
    }
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

Die& DieTreeBuilder::add(DieOffset offset, uint16_t tag, uint32_t parent) {
    auto index = static_cast<uint32_t>(unit_.dies.size());
    // Copied from a constant: value-initialising in place compiles to `rep stos`, whose start-up
    // cost was half of this function's time.
    static const Die kFresh{};
    Die& die = unit_.dies.emplace_back(kFresh);
    die.offset = offset;
    die.tag = tag;
    die.parent = parent;
    lastChild_.push_back(kNoIndex);
    if (parent != kNoIndex) {
        if (lastChild_[parent] == kNoIndex)
            unit_.dies[parent].firstChild = index;
        else
            unit_.dies[lastChild_[parent]].nextSibling = index;
        lastChild_[parent] = index;
    }
    return die;
}

DwarfSection dwarfSectionKind(std::string_view name) {
    const std::string canonical = dwarfSectionName(name);
    if (canonical == ".debug_info" || canonical == ".debug_types")
        return DwarfSection::Units;
    // What libdw's and LLVM's readers look at for the attributes the rules use. Not .debug_line,
    // nor .debug_macro, which gcc -g3 puts in COMDAT groups too.
    static constexpr std::string_view kSingle[] = {
        ".debug_abbrev",   ".debug_str", ".debug_line_str", ".debug_str_offsets", ".debug_addr",
        ".debug_loclists", ".debug_loc", ".debug_rnglists", ".debug_ranges"};
    return std::find(std::begin(kSingle), std::end(kSingle), canonical) != std::end(kSingle)
               ? DwarfSection::Single
               : DwarfSection::NotRead;
}

std::string dwarfSectionName(std::string_view name) {
    if (name.starts_with(".zdebug_"))
        return ".debug_" + std::string(name.substr(8));
    return std::string(name);
}

void DwarfSectionCount::add(std::string_view name) {
    if (dwarfSectionKind(name) == DwarfSection::NotRead)
        return;
    const std::string canonical = dwarfSectionName(name);
    for (auto& [known, count] : read_) {
        if (known == canonical) {
            ++count;
            repeats_ = true;
            return;
        }
    }
    read_.emplace_back(canonical, 1);
}

std::string DwarfSectionCount::problem() const {
    for (const auto& [name, count] : read_) {
        if (count > 1 && dwarfSectionKind(name) == DwarfSection::Single)
            return "section " + name + " appears " + std::to_string(count) +
                   " times (only .debug_info and .debug_types may be several sections)";
    }
    return {};
}

std::string claimedSizeProblem(uint64_t claimed, uint64_t compressed, bool zstd) {
    constexpr uint64_t kLargestSection = uint64_t(1) << 32;
    const uint64_t ratio = zstd ? 32768 : 1032;
    if (claimed > kLargestSection || claimed / ratio > compressed)
        return "its compression header claims " + std::to_string(claimed) + " bytes, more than " +
               std::to_string(compressed) + " compressed bytes can hold";
    return {};
}

std::optional<uint64_t> gnuCompressedSize(std::span<const uint8_t> bytes) {
    if (bytes.size() < kGnuCompressedHeader || std::memcmp(bytes.data(), "ZLIB", 4) != 0)
        return std::nullopt;
    uint64_t size = 0;
    for (size_t i = 4; i < kGnuCompressedHeader; ++i)
        size = size << 8 | bytes[i];
    return size;
}

void SectionAddresses::add(uint64_t address, uint64_t size, uint32_t index) {
    sections_.push_back({address, size, index});
}

void SectionAddresses::sort() {
    std::sort(sections_.begin(), sections_.end(),
              [](const Section& a, const Section& b) { return a.address < b.address; });
}

std::optional<SectionOffset> SectionAddresses::locate(uint64_t address) const {
    auto it = std::upper_bound(sections_.begin(), sections_.end(), address,
                               [](uint64_t a, const Section& s) { return a < s.address; });
    while (it != sections_.begin()) {
        --it;
        if (address - it->address < it->size)
            return SectionOffset{it->index, address - it->address};
    }
    return std::nullopt;
}

} // namespace btforge::dwarf
