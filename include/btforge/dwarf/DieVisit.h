// Which DIEs a DWARF reader keeps: decided from a DIE's tag and its parent's, alike in every
// reader (part of the DWARF reader contract).
#pragma once

#include "btforge/Export.h"

#include <cstdint>

namespace btforge::dwarf {

// What a reader does with a DIE, decided from its tag and its parent's.
enum class Visit : uint8_t {
    Keep,    // decode it and look at its children
    Descend, // not needed itself, but types may be nested inside (lexical blocks)
    Skip,    // nothing below it can be a type the output needs (inlined instances, call sites)
};

// A lexical block's children are classified with its function's tag as their parent tag, so
// that parameters stay recognisable.
BTFORGE_API Visit classifyDie(uint16_t tag, uint16_t parentTag);

} // namespace btforge::dwarf
