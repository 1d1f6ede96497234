// Partition refinement: from a partition no finer than the wanted equivalence (types grouped by
// structural hash), split blocks until every block is stable. That ends at the coarsest stable
// partition below the start (bisimilarity), exactly, whatever hash collisions the start had.
#pragma once

#include "dedup/RefGraph.h"

#include <cstdint>
#include <span>
#include <vector>

namespace btforge::dedup::detail {

// Dense numbers for 64-bit keys in first-seen order, in one open-addressing table.
class KeyNumbering {
public:
    explicit KeyNumbering(size_t expectedKeys);
    // The key's number; the next free one when the key is new.
    uint32_t number(uint64_t key);
    // A number no key will get.
    uint32_t fresh() { return count_++; }
    uint32_t count() const { return count_; }

private:
    static constexpr uint32_t kEmpty = UINT32_MAX;
    struct Slot {
        uint64_t key = 0;
        uint32_t number = kEmpty;
    };
    void grow();

    std::vector<Slot> slots_;
    uint32_t count_ = 0;
    uint32_t keys_ = 0;
};

// Nodes that stand for whichever of their candidates is meant (a declaration for the definitions
// of its name): an alias is in the block its candidates share, as long as they share one; once
// they do not, it is a node of its own for good.
class Aliases {
public:
    void add(uint32_t node, std::span<const uint32_t> candidates);
    size_t size() const { return nodes_.size(); }
    uint32_t node(size_t i) const { return nodes_[i]; }
    std::span<const uint32_t> candidates(size_t i) const {
        return {candidates_.data() + starts_[i], starts_[i + 1] - starts_[i]};
    }

private:
    std::vector<uint32_t> nodes_;
    std::vector<uint32_t> starts_{0};
    std::vector<uint32_t> candidates_;
};

// Splits the blocks of `block` (node -> block number, numbers below graph.size()) until two
// nodes share a block only when their labels are equal and their references, position by
// position, lie in shared blocks. Labels are compared once, in the first round. Alias nodes must
// be leaves in blocks of their own; they end in their candidates' block when those still share
// one. Blocks come out renumbered densely; returns how many there are.
uint32_t refinePartition(const RefGraph& graph, std::vector<uint32_t>& block,
                         const Aliases& aliases = {});

} // namespace btforge::dedup::detail
