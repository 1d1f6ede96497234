// Strongly connected components of a graph whose node 0 is void (never a member, references to
// it ignored): a unit's, which the merger matches and hashes exactly component by component.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace btforge::dedup::detail {

// Nodes 1 to count - 1 into components, each after every component it refers to (Tarjan's
// algorithm, iteratively: a kernel's chains are too deep for recursion). Component i is
// order[starts[i]] up to order[starts[i + 1]]. refsOf(node) gives a node's references.
template <typename RefsOf>
void findComponents(uint32_t count, RefsOf&& refsOf, std::vector<uint32_t>& order,
                    std::vector<uint32_t>& starts) {
    constexpr uint32_t kUnvisited = UINT32_MAX;
    std::vector<uint32_t> index(count, kUnvisited);
    std::vector<uint32_t> low(count);
    std::vector<uint32_t> open; // visited nodes not yet in a component, in visiting order
    std::vector<uint8_t> isOpen(count, 0);
    std::vector<std::pair<uint32_t, uint32_t>> frames; // node, index of its next reference
    uint32_t visited = 0;
    order.clear();
    order.reserve(count);
    starts.assign(1, 0);
    auto enter = [&](uint32_t node) {
        index[node] = low[node] = visited++;
        open.push_back(node);
        isOpen[node] = 1;
        frames.push_back({node, 0});
    };
    for (uint32_t root = 1; root < count; ++root) {
        if (index[root] != kUnvisited)
            continue;
        enter(root);
        while (!frames.empty()) {
            auto [node, next] = frames.back();
            const std::span<const uint32_t> refs = refsOf(node);
            if (next < refs.size()) {
                ++frames.back().second;
                const uint32_t ref = refs[next];
                if (ref == 0)
                    continue;
                if (index[ref] == kUnvisited)
                    enter(ref);
                else if (isOpen[ref])
                    low[node] = std::min(low[node], index[ref]);
                continue;
            }
            frames.pop_back();
            if (!frames.empty())
                low[frames.back().first] = std::min(low[frames.back().first], low[node]);
            if (low[node] != index[node])
                continue;
            uint32_t member;
            do {
                member = open.back();
                open.pop_back();
                isOpen[member] = 0;
                order.push_back(member);
            } while (member != node);
            starts.push_back(static_cast<uint32_t>(order.size()));
        }
    }
}

} // namespace btforge::dedup::detail
