// The ELF sections a DWARF reader reads, by name, and the checks of compressed ones both readers
// make before anything is allocated (part of the DWARF reader contract).
#pragma once

#include "btforge/Export.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace btforge::dwarf {

// The sections of an ELF file a reader reads DWARF from, by name. ELF lets several sections share
// one: gcc's relocatable objects have a .debug_types section (DWARF 5: .debug_info) per type unit,
// each in a COMDAT group of its own. The units of every section of such a name are read, section
// after section in the file's order, grouped or not, each DIE keyed by its offset in the
// sections laid end to end (as a linker would join them), so that no two sections' offsets 0
// share a key. Any other section read must be one: libdw would read the first of the name and
// LLVM the last.
enum class DwarfSection : uint8_t {
    Units,   // .debug_info, .debug_types: may repeat
    Single,  // read whole (abbreviations, strings, location and range lists, ...): must not
    NotRead, // whatever else, repeated or not
};
// `name` as the file has it; a ".zdebug_" name (compressed the GNU way) is its ".debug_" one.
BTFORGE_API DwarfSection dwarfSectionKind(std::string_view name);
BTFORGE_API std::string dwarfSectionName(std::string_view name); // ".zdebug_x" -> ".debug_x"

// The names of an ELF file's sections, counted as they are added in section order.
class BTFORGE_API DwarfSectionCount {
public:
    void add(std::string_view name);
    // Some name of kind Units or Single is several sections'.
    bool repeats() const { return repeats_; }
    // Why the file cannot be read ("section .debug_abbrev appears 2 times, ..."), or "".
    std::string problem() const;

private:
    std::vector<std::pair<std::string, uint32_t>> read_; // names read, and how often each is
    bool repeats_ = false;
};

// A compressed section's claimed size, checked before anything is allocated: against 4 GiB,
// which a DWARF32 section cannot pass, and against the most `compressed` bytes can give (zlib
// expands at most 1032:1; a zstd block of 128 KiB can be 4 bytes). "" or what is wrong.
BTFORGE_API std::string claimedSizeProblem(uint64_t claimed, uint64_t compressed, bool zstd);
// A .zdebug_ section (zlib-gnu, before SHF_COMPRESSED): "ZLIB", the size inflated in 8
// big-endian bytes, a zlib stream. The claimed size, or nullopt without the magic.
inline constexpr size_t kGnuCompressedHeader = 12;
BTFORGE_API std::optional<uint64_t> gnuCompressedSize(std::span<const uint8_t> bytes);

} // namespace btforge::dwarf
