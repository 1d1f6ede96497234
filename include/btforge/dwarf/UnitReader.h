// What a DWARF loader implements: enumerate the units of one input and decode any of them into
// UnitDies, from any thread. Everything after that (mapping, dedup, function decisions) is core's.
#pragma once

#include "btforge/dwarf/UnitDies.h"
#include "btforge/support/Error.h"

#include <compare>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace btforge::dwarf {

// An address as ELF symbols give it: a section and an offset into it. DWARF addresses of a
// relocatable object (a kernel module) only compare with symbols after this translation.
struct SectionOffset {
    uint32_t section = 0;
    uint64_t offset = 0;
    friend auto operator<=>(const SectionOffset&, const SectionOffset&) = default;
};

// What a loader says of a skeleton unit (split DWARF, gcc and clang's -gsplit-dwarf): its DIEs
// are in the .dwo file it names, a path btforge does not open, so its types cannot be read. Not
// to be passed over either: the output would lack them without a word.
inline std::string skeletonUnitProblem(std::string_view dwoName) {
    return "a skeleton unit: its DWARF is in " +
           (dwoName.empty() ? std::string("a .dwo file") : "'" + std::string(dwoName) + "'") +
           " (split DWARF), which btforge does not read; build without -gsplit-dwarf";
}

class UnitReader {
public:
    virtual ~UnitReader() = default;

    virtual size_t unitCount() const = 0;
    // Partial and type units hold types that other units refer to; they are read first, and
    // mapped together as one unit, as they refer to each other in any order.
    virtual bool isPartialUnit(size_t index) const = 0;
    // The bytes unit `index` takes in its section, header included: what reading it costs.
    virtual uint64_t unitSize(size_t index) const = 0;
    // Decodes unit `index` into `out` (cleared first). Called concurrently for different units.
    virtual Expected<void> readUnit(size_t index, UnitDies& out) = 0;
    // The unit's DIEs are no longer needed: a reader may give their memory back.
    virtual void releaseUnit(size_t /*index*/) {}
    // Where a DWARF address (low_pc, DW_OP_addr) lies, in ELF section terms.
    virtual std::optional<SectionOffset> locate(uint64_t dwarfAddress) const = 0;
};

} // namespace btforge::dwarf
