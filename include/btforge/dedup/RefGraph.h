// The references between types as flat adjacency lists (CSR), with each type's label hash: what
// structural hashing and partition refinement read, without going through TypeGraph views.
#pragma once

#include "btforge/ir/TypeGraph.h"

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace btforge::dedup {

// Rounds of structural hashing: a hash sees this many references deep.
inline constexpr unsigned kHashRounds = 8;

// What references to a node see of it in each round, in place of its own hash: for placeholders
// standing for types hashed elsewhere, and for types that must hash alike by name alone.
struct FixedHashes {
    uint32_t node = 0;
    std::array<uint64_t, kHashRounds + 1> rounds{};
};

class RefGraph {
public:
    RefGraph() { starts_.push_back(0); }

    // Nodes are numbered in the order they are added, from 0.
    // Adds `id` of `graph`, its references passed through `remap` (indexed by type id) unless
    // `remap` is empty.
    void addType(const ir::TypeGraph& graph, ir::TypeId id, std::span<const ir::TypeId> remap = {});
    // Adds a node without references (void, placeholders, nodes left out).
    void addLeaf(uint64_t label);
    void reserve(size_t nodes, size_t refs);

    uint32_t size() const { return static_cast<uint32_t>(labels_.size()); }
    uint64_t label(uint32_t node) const { return labels_[node]; }
    std::span<const uint32_t> refs(uint32_t node) const {
        return {refs_.data() + starts_[node], starts_[node + 1] - starts_[node]};
    }
    size_t refCount() const { return refs_.size(); }

    // Round 0 is the label hash; round k+1 mixes the label with the round-k hashes of the
    // references in order (as `fixed` says, for fixed nodes). Equivalent (bisimilar) nodes get
    // equal hashes in every round, in this graph or any other. Returns the last round's hashes.
    std::vector<uint64_t> structuralHashes(std::span<const FixedHashes> fixed = {}) const;

    size_t memoryUsage() const;

private:
    std::vector<uint32_t> starts_;
    std::vector<uint32_t> refs_;
    std::vector<uint64_t> labels_;
};

// The hash void has in every round.
uint64_t voidHash();

} // namespace btforge::dedup
