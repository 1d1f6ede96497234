#include "btforge/dwarf/UnitDies.h"

namespace btforge::dwarf {

void UnitDies::clear() {
    unitOffset = 0;
    version = 0;
    language = 0;
    addressSize = 8;
    isPartial = false;
    name = {};
    producer = {};
    dies.clear();
    rare.clear();
    locationOps.clear();
}

void UnitDies::append(const UnitDies& other) {
    const auto base = static_cast<uint32_t>(dies.size());
    const auto rareBase = static_cast<uint32_t>(rare.size());
    const auto opBase = static_cast<uint32_t>(locationOps.size());
    auto shift = [](uint32_t index, uint32_t by) {
        return index == kNoIndex ? kNoIndex : index + by;
    };
    for (Die die : other.dies) {
        die.parent = shift(die.parent, base);
        die.firstChild = shift(die.firstChild, base);
        die.nextSibling = shift(die.nextSibling, base);
        die.rare = shift(die.rare, rareBase);
        dies.push_back(die);
    }
    for (RareAttributes r : other.rare) {
        r.locationFirst += opBase;
        rare.push_back(r);
    }
    locationOps.insert(locationOps.end(), other.locationOps.begin(), other.locationOps.end());
}

} // namespace btforge::dwarf
