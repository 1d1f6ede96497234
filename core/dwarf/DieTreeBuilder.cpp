// The DIE tree a reader builds (DieTreeBuilder.h).
#include "btforge/dwarf/DieTreeBuilder.h"

#include <algorithm>

namespace btforge::dwarf {

namespace {
// Kernel units keep one DIE per 12 to 17 bytes of .debug_info. Room for one per 10 is reserved up
// front: growing by doubling copied the DIEs and touched twice their pages, a quarter of a small
// module's page faults, while reserved pages cost nothing until used. The cap bounds a huge
// unit's reservation in address space: 170 MB, or 11 MB in a 32-bit process.
constexpr uint64_t kBytesPerKeptDie = 10;
constexpr uint64_t kMostReserved = uint64_t{1} << (sizeof(void*) >= 8 ? 20 : 16);
} // namespace

DieTreeBuilder::DieTreeBuilder(UnitDies& unit, uint64_t unitBytes) : unit_(unit) {
    const size_t expected = std::min(unitBytes / kBytesPerKeptDie, kMostReserved);
    unit_.dies.reserve(expected);
    lastChild_.reserve(expected);
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

} // namespace btforge::dwarf
