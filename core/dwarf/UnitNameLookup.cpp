#include "btforge/dwarf/UnitNameLookup.h"

#include <algorithm>

namespace btforge::dwarf {

bool UnitNameLookup::findsKind(ir::Kind kind) {
    return kind == ir::Kind::Struct || kind == ir::Kind::Union || kind == ir::Kind::Enum ||
           kind == ir::Kind::Enum64 || kind == ir::Kind::Typedef;
}

bool UnitNameLookup::addUnit(const ir::TypeGraph& graph, ir::TypeId first, ir::TypeId end) {
    if (first >= end)
        return complete();
    unitStarts_.push_back(first);
    while (!complete()) {
        const std::string& name = names_[found_.size()];
        ir::TypeId id = std::max(searched_, unitStarts_[fromUnit_]);
        while (id < end && !(findsKind(graph.kind(id)) && graph.name(id) == name))
            ++id;
        if (id == end) {
            searched_ = end;
            return false;
        }
        found_.push_back(id);
        // The next name is looked for from the start of this one's unit.
        fromUnit_ = static_cast<size_t>(
            std::upper_bound(unitStarts_.begin(), unitStarts_.end(), id) - unitStarts_.begin() - 1);
        searched_ = 0;
    }
    return true;
}

} // namespace btforge::dwarf
