// The `--no-dedup` output: every unit's types copied as they are, placeholders aside, one unit
// after another (a diagnostic: what libbpf's dedup would start from). Functions are still decided
// on the deduplicated types, so the FUNC set is the same with and without dedup; they are only
// written with the ids this graph gives the types.
#pragma once

#include "../ir/TypeWalk.h"
#include "dwarf/Observations.h"
#include "dwarf/UnitMapper.h"

#include "btforge/ir/TypeGraph.h"

#include <memory>
#include <unordered_map>
#include <vector>

namespace btforge::dwarf {

class UndeduplicatedGraph {
public:
    // `markUnits`: each unit's first type gets a kUnitTag DECL_TAG (declaration-tags).
    UndeduplicatedGraph(std::shared_ptr<const ir::TypeGraph> base, size_t unitCount, bool markUnits)
        : graph_(std::move(base)), observations_(unitCount), markUnits_(markUnits) {}

    // Appends unit `index`, whose placeholders are resolved (preMapped) already, those for
    // types of other units (`externals`) to any id (the merger's), which this graph replaces by
    // its own. Units are appended in input order, partial and type units first. Returns how many
    // of those references reach no type appended before (they become void).
    uint32_t append(size_t index, const MappedUnit& mapped);

    ir::TypeGraph& graph() { return graph_; }
    // The observations of every unit in input order, with this graph's ids.
    UnitObservations takeObservations();

private:
    ir::TypeGraph graph_;
    std::vector<UnitObservations> observations_; // by unit
    ir::ListScratch scratch_;
    bool markUnits_;
    std::unordered_map<DieOffset, ir::TypeId> exported_; // partial and type units' types, here
};

} // namespace btforge::dwarf
