// What every amending pass ends with: a new graph over the same base with some own types left
// out and the rest copied in order, renumbered, references rewritten.
#pragma once

#include "../ir/TypeWalk.h"

#include "btforge/ir/TypeGraph.h"

#include <functional>
#include <vector>

namespace btforge::amend::detail {

struct RebuildPlan {
    explicit RebuildPlan(const ir::TypeGraph& graph)
        : removed(graph.ownCount(), false), redirect(graph.ownCount(), ir::kVoidType) {}
    // By own index (id - firstId).
    std::vector<bool> removed;
    // For a removed type, what references to it become (a TYPE_TAG: its target); followed
    // until a type that stays.
    std::vector<ir::TypeId> redirect;
};

// Changes a kept type before it is copied (FLOAT to INT, DATASEC entries trimmed); lists in the
// returned view may point into `scratch`.
using ChangeType = std::function<ir::TypeView(ir::TypeId, const ir::TypeView&, ir::ListScratch&)>;

ir::TypeGraph rebuild(const ir::TypeGraph& graph, const RebuildPlan& plan,
                      const ChangeType& change = {});

} // namespace btforge::amend::detail
