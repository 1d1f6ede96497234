// One graph being compared: how it reads, hashes and spells.
#pragma once

#include "CDeclarator.h"
#include "ComparedGraph.h"
#include "ShapeHash.h"

namespace btforge::compare::detail {

struct Side : ComparedGraph {
    Side(const TypeGraph& graph, const DiffOptions& options)
        : ComparedGraph(graph, options), hashes(*this), spelling(*this) {}
    Side(const Side&) = delete;
    Side& operator=(const Side&) = delete;

    ShapeHashes hashes;
    CDeclarator spelling;
};

} // namespace btforge::compare::detail
