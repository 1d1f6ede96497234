// The DIE tree a reader builds: kept DIEs appended in pre-order, each linked to its parent and
// previous sibling (part of the DWARF reader contract).
#pragma once

#include "btforge/Export.h"
#include "btforge/dwarf/UnitDies.h"

#include <cstdint>
#include <vector>

namespace btforge::dwarf {

// Appends the DIEs a reader keeps, in pre-order, each linked to its parent and previous sibling.
class BTFORGE_API DieTreeBuilder {
public:
    // `unitBytes`: the unit's size in its section, from which room for its DIEs is reserved (0:
    // none, as before the argument existed).
    explicit DieTreeBuilder(UnitDies& unit, uint64_t unitBytes = 0);
    // A new DIE under kept DIE `parent` (kNoIndex: the unit DIE); the reader fills the rest.
    Die& add(DieOffset offset, uint16_t tag, uint32_t parent);
    uint32_t lastIndex() const { return static_cast<uint32_t>(unit_.dies.size()) - 1; }

private:
    UnitDies& unit_;
    std::vector<uint32_t> lastChild_; // per kept DIE: its newest child, the next one's sibling
};

} // namespace btforge::dwarf
