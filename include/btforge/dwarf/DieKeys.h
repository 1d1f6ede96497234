// DIE offsets as keys: every DIE a reader hands core is keyed by its offset, and the DIEs of
// sections other than .debug_info get key ranges of their own (part of the DWARF reader
// contract).
#pragma once

#include "btforge/dwarf/UnitDies.h"

namespace btforge::dwarf {

// DIE offsets are keys across all units; DIEs of other sections get ranges of their own.
inline constexpr DieOffset kAltBias = 1ull << 61;   // .debug_info of the .gnu_debugaltlink file
inline constexpr DieOffset kTypesBias = 1ull << 62; // .debug_types (DWARF 4 type units)

// Where a unit of `bias` lies, for messages: "" for .debug_info, or " in .debug_types", " in the
// .gnu_debugaltlink file". Both readers name units so.
inline const char* sectionOfBias(DieOffset bias) {
    return bias >= kTypesBias ? " in .debug_types"
           : bias >= kAltBias ? " in the .gnu_debugaltlink file"
                              : "";
}

} // namespace btforge::dwarf
