// The DWARF sections of an input, by name, and the checks of compressed ones (DwarfSections.h).
#include "btforge/dwarf/DwarfSections.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <string>

namespace btforge::dwarf {

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

} // namespace btforge::dwarf
