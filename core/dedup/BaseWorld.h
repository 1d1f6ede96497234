// The base's types as merging sees them (labels and references, RefGraph.h), each read from the
// base graph the first time it is asked for: a module over vmlinux meets a few thousand of its
// 95,000 types, and labelling them all cost a quarter of a small module's run.
#pragma once

#include "dedup/RefGraph.h"
#include "support/SparseIdMap.h"

#include "btforge/ir/TypeGraph.h"

#include <cstdint>
#include <span>
#include <vector>

namespace btforge::dedup {

class BaseWorld {
public:
    explicit BaseWorld(const ir::TypeGraph& base);

    // References are the base's own ids. What is returned stays valid: nodes never move.
    const LabelHash& label(ir::TypeId id) { return nodes_.label(node(id)); }
    std::span<const uint32_t> refs(ir::TypeId id) { return nodes_.refs(node(id)); }

    // Types read so far (--stats), and the bytes they take.
    uint32_t materialized() const { return nodes_.size(); }
    size_t memoryUsage() const;

private:
    uint32_t node(ir::TypeId id) {
        const auto [n, added] = nodeOf_.emplace(id, nodes_.size());
        if (added)
            nodes_.addType(base_, id);
        return n;
    }

    const ir::TypeGraph& base_;
    support::SparseIdMap nodeOf_; // by base id: its node in nodes_
    RefGraph nodes_;
};

} // namespace btforge::dedup
