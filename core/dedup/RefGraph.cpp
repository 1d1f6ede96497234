#include "btforge/dedup/RefGraph.h"

#include "TypeLabel.h"

namespace btforge::dedup {

uint64_t voidHash() {
    static const uint64_t hash = detail::labelHash(ir::TypeGraph(), ir::VoidType{});
    return hash;
}

void RefGraph::addType(const ir::TypeGraph& graph, ir::TypeId id,
                       std::span<const ir::TypeId> remap) {
    struct Sink : detail::LabelHasher {
        RefGraph& g;
        std::span<const ir::TypeId> remap;
        Sink(RefGraph& graph, std::span<const ir::TypeId> map) : g(graph), remap(map) {}
        void ref(ir::TypeId ref) { g.refs_.push_back(remap.empty() ? ref : remap[ref]); }
    };
    Sink sink(*this, remap);
    detail::describe(graph, graph.get(id), sink);
    labels_.push_back(sink.hash);
    starts_.push_back(static_cast<uint32_t>(refs_.size()));
}

void RefGraph::addLeaf(uint64_t label) {
    labels_.push_back(label);
    starts_.push_back(static_cast<uint32_t>(refs_.size()));
}

void RefGraph::reserve(size_t nodes, size_t refs) {
    labels_.reserve(nodes);
    starts_.reserve(nodes + 1);
    refs_.reserve(refs);
}

std::vector<uint64_t> RefGraph::structuralHashes(std::span<const FixedHashes> fixed) const {
    std::vector<uint64_t> current = labels_; // as references see them
    std::vector<uint64_t> next(labels_.size());
    for (const FixedHashes& f : fixed)
        current[f.node] = f.rounds[0];
    for (unsigned round = 1; round <= kHashRounds; ++round) {
        for (uint32_t node = 0; node < size(); ++node) {
            uint64_t h = labels_[node];
            for (uint32_t ref : refs(node))
                h = detail::combine(h, current[ref]);
            next[node] = h;
        }
        if (round < kHashRounds) {
            for (const FixedHashes& f : fixed)
                next[f.node] = f.rounds[round];
        }
        current.swap(next);
    }
    return current;
}

size_t RefGraph::memoryUsage() const {
    return starts_.capacity() * sizeof(uint32_t) + refs_.capacity() * sizeof(uint32_t) +
           labels_.capacity() * sizeof(uint64_t);
}

} // namespace btforge::dedup
