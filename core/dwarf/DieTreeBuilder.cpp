// The DIE tree a reader builds (DieTreeBuilder.h).
#include "btforge/dwarf/DieTreeBuilder.h"

namespace btforge::dwarf {

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
