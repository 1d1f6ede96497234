#include "dedup/RefGraph.h"

#include "TypeLabel.h"

namespace btforge::dedup {

const LabelHash& voidLabel() {
    static const LabelHash label = [] {
        std::vector<ir::TypeId> none;
        return detail::labelOf(ir::TypeGraph(), ir::kVoidType, none);
    }();
    return label;
}

uint32_t RefGraph::numberOf(const LabelHash& label) {
    if (!labelNumbers_)
        return labels_.push_back(label);
    uint32_t number = UINT32_MAX;
    labelNumbers_->forEach(label.first, [&](uint32_t candidate) {
        if (labels_[candidate - 1] != label)
            return false;
        number = candidate - 1;
        return true;
    });
    if (number == UINT32_MAX) {
        number = labels_.push_back(label);
        labelNumbers_->insert(label.first, number + 1);
    }
    return number;
}

void RefGraph::addNode(const LabelHash& label, std::span<const uint32_t> refs) {
    const uint32_t first = refs_.append(refs);
    nodes_.push_back({refs.empty() ? nullptr : &refs_[first], numberOf(label),
                      static_cast<uint32_t>(refs.size())});
}

void RefGraph::addType(const ir::TypeGraph& graph, ir::TypeId id) {
    scratch_.clear();
    const LabelHash label = detail::labelOf(graph, id, scratch_);
    addNode(label, scratch_);
}

void RefGraph::addCopy(const RefGraph& from, uint32_t node, std::span<const uint32_t> remap) {
    scratch_.clear();
    for (uint32_t ref : from.refs(node))
        scratch_.push_back(remap[ref]);
    addNode(from.label(node), scratch_);
}

void RefGraph::addLeaf(const LabelHash& label) {
    addNode(label, {});
}

void RefGraph::remapRefs(std::span<const uint32_t> map) {
    for (uint32_t node = 0; node < size(); ++node) {
        const Node& n = nodes_[node];
        for (uint32_t& ref : std::span<uint32_t>(n.refs, n.refCount))
            ref = map[ref];
    }
}

} // namespace btforge::dedup
