// Structural hashes over a RefGraph: round 0 is a node's label hash (its first half); round k+1
// mixes that with the round-k hashes of the node's references in order. Equivalent
// (bisimilar) nodes get equal hashes in every round, in one graph or two, so nodes with different
// hashes are never equivalent; with equal hashes they are alike as many references deep as there
// were rounds.
#pragma once

#include "TypeLabel.h"
#include "dedup/RefGraph.h"

#include "btforge/plugin/Session.h"

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace btforge::dedup::detail {

// Rounds of the hashes a unit is matched against the merged graph by, over a base (without one,
// exact hashes find its types): every run first hashes all of the base's types (a vmlinux:
// 95,000) while a module's units bring few variants, so rounds cost more than the walks that
// fail for want of them (16 rounds: tcp_bbr 3.5 ms slower of 65; xfs, btrfs, kvm too). The
// result does not depend on the rounds: walks decide, hashes only propose.
inline constexpr unsigned kMatchRounds = 8;

// One node's hash in a round: its label mixed with its references' hashes of the round before.
inline uint64_t roundHash(uint64_t label, std::span<const uint32_t> refs, const uint64_t* before) {
    uint64_t h = label;
    for (uint32_t ref : refs)
        h = hashing::combine(h, before[ref]);
    return h;
}

// A node that references see as another (first) in every round: a declaration standing for
// the definition it joined.
using Mirror = std::pair<uint32_t, uint32_t>; // node, the node it is seen as

// The hashes after `rounds` rounds, by node. References to fixedNodes[i] see fixedHash(i, round)
// in place of its own hash: for placeholders standing for types hashed elsewhere, and for types
// that must hash alike by name alone; references to a mirror's node see its other node's hash.
// With `tasks`, each round's nodes are hashed in slices on its workers (the result is the
// same): for the whole merged graph, whose rounds are memory-bound.
template <typename FixedHash>
std::vector<uint64_t> structuralHashes(const RefGraph& graph, unsigned rounds,
                                       std::span<const uint32_t> fixedNodes, FixedHash&& fixedHash,
                                       plugin::TaskRunner* tasks = nullptr,
                                       std::span<const Mirror> mirrors = {}) {
    std::vector<uint64_t> current(graph.size()); // as references see them
    std::vector<uint64_t> next(graph.size());
    auto fix = [&](std::vector<uint64_t>& hashes, unsigned round) {
        for (size_t i = 0; i < fixedNodes.size(); ++i)
            hashes[fixedNodes[i]] = fixedHash(i, round);
        for (const auto& [node, seenAs] : mirrors)
            hashes[node] = hashes[seenAs];
    };
    for (uint32_t node = 0; node < graph.size(); ++node)
        current[node] = graph.label(node).first;
    fix(current, 0);
    auto hashSlice = [&](uint32_t first, uint32_t last) {
        const uint64_t* in = current.data();
        uint64_t* out = next.data();
        graph.forEachNode(
            [in, out](uint32_t node, const LabelHash& label, std::span<const uint32_t> refs) {
                out[node] = roundHash(label.first, refs, in);
            },
            first, last);
    };
    constexpr uint32_t kSlice = 1u << 16;
    const uint32_t slices = (graph.size() + kSlice - 1) / kSlice;
    const bool parallel = tasks && tasks->concurrency() > 1 && slices > 1;
    for (unsigned round = 1; round <= rounds; ++round) {
        if (parallel)
            tasks->parallelFor(slices, [&](size_t i) {
                hashSlice(static_cast<uint32_t>(i) * kSlice, static_cast<uint32_t>(i + 1) * kSlice);
            });
        else
            hashSlice(0, graph.size());
        if (round < rounds)
            fix(next, round);
        current.swap(next);
    }
    return current;
}

// The same with only the `free` nodes hashed: every other node is fixed and seen as
// fixedHash(node, round), which for the `varying` ones changes with the round and for the rest
// does not (taken once). For a unit most of whose types matched a base already.
template <typename FixedHash>
std::vector<uint64_t> structuralHashesOf(const RefGraph& graph, unsigned rounds,
                                         std::span<const uint32_t> free,
                                         std::span<const uint32_t> varying, FixedHash&& fixedHash) {
    std::vector<uint64_t> current(graph.size());
    for (uint32_t node = 0; node < graph.size(); ++node)
        current[node] = fixedHash(node, 0);
    for (uint32_t node : free)
        current[node] = graph.label(node).first;
    std::vector<uint64_t> next = current;
    for (unsigned round = 1; round <= rounds; ++round) {
        for (uint32_t node : free)
            next[node] = roundHash(graph.label(node).first, graph.refs(node), current.data());
        if (round < rounds) {
            for (uint32_t node : varying)
                next[node] = fixedHash(node, round);
        }
        current.swap(next);
    }
    return current;
}

inline std::vector<uint64_t> structuralHashes(const RefGraph& graph, unsigned rounds) {
    return structuralHashes(graph, rounds, {}, [](size_t, unsigned) { return uint64_t{0}; });
}

} // namespace btforge::dedup::detail
