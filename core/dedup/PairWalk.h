// A walk of two nodes of the world side by side, as libbpf's dedup compares a type with one it
// kept: depth first through references in step, a pair at a time.
#pragma once

#include "dedup/RefGraph.h"

#include <cstdint>
#include <vector>

namespace btforge::dedup::detail {

// A pair on the walk whose references are compared, the next of them.
struct PairStep {
    uint32_t a, b, next;
};

// Enters (a, b), then the pairs of references of each pair `enter` pushed on `path`, until one
// is unequal. enter(a, b) says whether the pair may be equal, and pushes it on `path` when its
// references must be compared too. Returns whether all were; `path` then is empty, and otherwise
// holds the pairs that led to the unequal one.
template <typename Enter>
bool walkPairs(const RefGraph& world, std::vector<PairStep>& path, uint32_t a, uint32_t b,
               Enter&& enter) {
    bool equal = enter(a, b);
    while (equal && !path.empty()) {
        PairStep& top = path.back();
        if (top.next == world.refs(top.a).size()) {
            path.pop_back();
            continue;
        }
        const uint32_t i = top.next++;
        equal = enter(world.refs(top.a)[i], world.refs(top.b)[i]);
    }
    return equal;
}

} // namespace btforge::dedup::detail
