// Exact hashes of a unit's types, by which a merger without a base takes a unit type for a merged
// one without walking them: a kernel's units repeat the same header types, and four of five unit
// types of a vmlinux have the hash of a type merged before.
#pragma once

#include "dedup/RefGraph.h"

#include <cstdint>
#include <span>
#include <vector>

namespace btforge::dedup::detail {

// Per node of `graph`, 128 bits over its label and, through its references, everything it
// reaches: equal hashes (of nodes of any graphs) mean alike graphs from them, labels and the
// order of references included, up to a collision of two independent 64-bit hashes; so
// equivalent types. Components as GraphMerger finds them (order, starts: each after those it
// refers to). A leaf with a non-zero `fixed` entry (a placeholder for a merged type) has that
// hash; `fixed` is empty or has one entry per node. Ties in a cycle are left in node order: alike
// members numbered otherwise may hash apart, never unlike ones alike.
std::vector<LabelHash> exactHashes(const RefGraph& graph, std::span<const uint32_t> order,
                                   std::span<const uint32_t> starts,
                                   std::span<const LabelHash> fixed);

// The fixed hash of a node that stands for merged type `id`.
LabelHash mergedTypeHash(uint32_t id);

} // namespace btforge::dedup::detail
