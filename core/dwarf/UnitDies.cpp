#include "btforge/dwarf/UnitDies.h"

namespace btforge::dwarf {

void UnitDies::clear() {
    unitOffset = 0;
    version = 0;
    language = 0;
    addressSize = 8;
    isPartial = false;
    name = {};
    dies.clear();
    locationOps.clear();
}

void UnitDies::append(const UnitDies& other) {
    const auto base = static_cast<uint32_t>(dies.size());
    const auto opBase = static_cast<uint32_t>(locationOps.size());
    auto shift = [&](uint32_t index) { return index == kNoIndex ? kNoIndex : index + base; };
    for (Die die : other.dies) {
        die.parent = shift(die.parent);
        die.firstChild = shift(die.firstChild);
        die.nextSibling = shift(die.nextSibling);
        die.locationFirst += opBase;
        dies.push_back(die);
    }
    locationOps.insert(locationOps.end(), other.locationOps.begin(), other.locationOps.end());
}

} // namespace btforge::dwarf
