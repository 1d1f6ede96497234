// Whether a directed graph has a cycle, for the checks that must prove there is none (BTF's
// reference loops, a base's cycles through anonymous types): nodes 0 to starts.size() - 2, the
// edges of node n edges[starts[n]] to edges[starts[n + 1]] (exclusive), an iterative
// depth-first search (a kernel's chains are too deep for recursion).
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace btforge::support {

// Only nodes `inGraph` accepts take part; an edge to another node (or past the last) is left out.
// The search starts from each of `roots` in turn: every cycle must pass through one of them.
template <typename InGraph>
bool hasCycleFrom(std::span<const uint32_t> starts, std::span<const uint32_t> edges,
                  std::span<const uint32_t> roots, InGraph&& inGraph) {
    enum : uint8_t { kUnvisited, kOnPath, kDone };
    const size_t nodes = starts.empty() ? 0 : starts.size() - 1;
    std::vector<uint8_t> state(nodes, kUnvisited);
    std::vector<std::pair<uint32_t, uint32_t>> path; // node, its next edge
    for (uint32_t root : roots) {
        if (root >= nodes || state[root] != kUnvisited || !inGraph(root))
            continue;
        state[root] = kOnPath;
        path.assign(1, {root, starts[root]});
        while (!path.empty()) {
            auto& [node, next] = path.back();
            if (next == starts[node + 1]) {
                state[node] = kDone;
                path.pop_back();
                continue;
            }
            const uint32_t to = edges[next++];
            if (to >= nodes || state[to] == kDone || !inGraph(to))
                continue;
            if (state[to] == kOnPath)
                return true;
            state[to] = kOnPath;
            path.emplace_back(to, starts[to]);
        }
    }
    return false;
}

// The same from every node.
template <typename InGraph>
bool hasCycle(std::span<const uint32_t> starts, std::span<const uint32_t> edges,
              InGraph&& inGraph) {
    std::vector<uint32_t> all(starts.empty() ? 0 : starts.size() - 1);
    for (uint32_t node = 0; node < all.size(); ++node)
        all[node] = node;
    return hasCycleFrom(starts, edges, all, inGraph);
}

} // namespace btforge::support
