// The references between types as adjacency lists, with each type's label hash: what structural
// hashing (core/dedup/StructuralHash.h), merging and partition refinement read, without going
// through TypeGraph views. Storage is chunked (ir/ChunkedArena.h), so a graph that keeps growing,
// like the merged one, never holds a doubled copy of itself.
#pragma once

#include "support/HashIndex.h"
#include "support/Prefetch.h"

#include "btforge/ir/ChunkedArena.h"
#include "btforge/ir/TypeGraph.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace btforge::dedup {

// 128 bits of a type's label (core/dedup/TypeLabel.h says what it covers and why equal hashes
// stand for equal labels).
struct LabelHash {
    uint64_t first = 0; // also the round-0 structural hash
    uint64_t second = 0;
    friend bool operator==(const LabelHash&, const LabelHash&) = default;
};

class RefGraph {
public:
    // How labels are held: each node its own, or each distinct label once, for a graph whose
    // nodes repeat few labels (the merged world of a kernel: 762,000 nodes, 13,600 labels).
    enum class Labels : uint8_t { PerNode, Shared };
    explicit RefGraph(Labels labels = Labels::PerNode) {
        if (labels == Labels::Shared)
            labelNumbers_.emplace();
    }

    // Nodes are numbered in the order they are added, from 0.
    // Adds `id` of `graph`.
    void addType(const ir::TypeGraph& graph, ir::TypeId id);
    // Adds a node with the label and references of `node` of `from`, passed through `remap`.
    void addCopy(const RefGraph& from, uint32_t node, std::span<const uint32_t> remap);
    // Adds a node without references (void, placeholders, nodes left out).
    void addLeaf(const LabelHash& label);
    void addNode(const LabelHash& label, std::span<const uint32_t> refs);
    // Passes every reference through `map` (indexed by node).
    void remapRefs(std::span<const uint32_t> map);

    uint32_t size() const { return nodes_.size(); }
    const LabelHash& label(uint32_t node) const { return labels_[nodes_[node].label]; }
    // A node's label as a number: equal labels, equal numbers, in a graph that shares them.
    uint32_t labelNumber(uint32_t node) const { return nodes_[node].label; }
    uint32_t labelCount() const { return labels_.size(); }
    std::span<const uint32_t> refs(uint32_t node) const {
        const Node& n = nodes_[node];
        return {n.refs, n.refCount};
    }
    // Calls f(node, label, refs) for each node in [first, last) in order, a chunk of nodes at a
    // time; for every node without a range.
    template <typename F>
    void forEachNode(F&& f, uint32_t first = 0, uint32_t last = UINT32_MAX) const {
        last = std::min(last, size());
        for (uint32_t node = first; node < last;) {
            std::span<const Node> run = nodes_.run(node);
            run = run.first(std::min<size_t>(run.size(), last - node));
            for (const Node& n : run)
                f(node++, labels_[n.label], std::span<const uint32_t>(n.refs, n.refCount));
        }
    }
    // Reading a node of a big graph is a cache miss or two: a caller that knows ahead which
    // nodes it will read starts loading them (the label and where the references are), and
    // later their references.
    void prefetchNode(uint32_t node) const { prefetch(&nodes_[node]); }
    size_t memoryUsage() const {
        return nodes_.memoryUsage() + refs_.memoryUsage() + labels_.memoryUsage() +
               (labelNumbers_ ? labelNumbers_->memoryUsage() : 0) +
               scratch_.capacity() * sizeof(uint32_t);
    }
    void prefetchRefs(uint32_t node) const { prefetch(nodes_[node].refs); }

private:
    // 16 bytes, so a node never straddles two cache lines. Lists never move (ChunkedArena), so a
    // node points at its references and reading them needs no index arithmetic.
    struct alignas(16) Node {
        uint32_t* refs;
        uint32_t label; // in labels_
        uint32_t refCount;
    };
    uint32_t numberOf(const LabelHash& label);

    ir::ChunkedArena<Node> nodes_;
    ir::ChunkedArena<uint32_t> refs_;
    ir::ChunkedArena<LabelHash> labels_;
    // Shared labels: each label's number + 1 (0 is an empty slot) by its hash.
    std::optional<support::HashIndex> labelNumbers_;
    std::vector<uint32_t> scratch_; // references of the node being added
};

// The label of void.
const LabelHash& voidLabel();

} // namespace btforge::dedup
