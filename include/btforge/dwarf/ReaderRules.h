// What every DWARF reader decides alike while it fills UnitDies, so that the libdw and the LLVM
// readers hand core the same DIEs: which DIEs to keep, how DIE offsets of other sections become
// keys, where ELF sections of the input lie, and which register an entry value names.
#pragma once

#include "btforge/Export.h"
#include "btforge/dwarf/UnitDies.h"
#include "btforge/dwarf/UnitReader.h"

#include <optional>
#include <span>
#include <vector>

namespace btforge::dwarf {

// DIE offsets are keys across all units; DIEs of other sections get ranges of their own.
inline constexpr DieOffset kAltBias = 1ull << 61;   // .debug_info of the .gnu_debugaltlink file
inline constexpr DieOffset kTypesBias = 1ull << 62; // .debug_types (DWARF 4 type units)

// What a reader does with a DIE, decided from its tag and its parent's.
enum class Visit : uint8_t {
    Keep,    // decode it and look at its children
    Descend, // not needed itself, but types may be nested inside (lexical blocks)
    Skip,    // nothing below it can be a type the output needs (inlined instances, call sites)
};

// A lexical block's children are classified with its function's tag as their parent tag, so
// that parameters stay recognisable.
BTFORGE_API Visit classifyDie(uint16_t tag, uint16_t parentTag);

// DW_OP_entry_value(DW_OP_regN), optionally followed by DW_OP_stack_value: register N, or 0xff.
BTFORGE_API uint8_t entryValueRegister(std::span<const LocationOp> ops);

// Appends the DIEs a reader keeps, in pre-order, each linked to its parent and previous sibling.
class BTFORGE_API DieTreeBuilder {
public:
    explicit DieTreeBuilder(UnitDies& unit) : unit_(unit) {}
    // A new DIE under kept DIE `parent` (kNoIndex: the unit DIE); the reader fills the rest.
    Die& add(DieOffset offset, uint16_t tag, uint32_t parent);
    uint32_t lastIndex() const { return static_cast<uint32_t>(unit_.dies.size()) - 1; }

private:
    UnitDies& unit_;
    std::vector<uint32_t> lastChild_; // per kept DIE: its newest child, the next one's sibling
};

// The allocated sections of an ELF input by address, to answer UnitReader::locate.
class BTFORGE_API SectionAddresses {
public:
    void add(uint64_t address, uint64_t size, uint32_t index);
    void sort();
    // Sections may overlap (.tbss); the last one starting at or below the address that contains
    // it wins.
    std::optional<SectionOffset> locate(uint64_t address) const;

private:
    struct Section {
        uint64_t address;
        uint64_t size;
        uint32_t index;
    };
    std::vector<Section> sections_;
};

} // namespace btforge::dwarf
