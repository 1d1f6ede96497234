// Exact hashes of a unit's types (dedup/ExactHash.h), on graphs the tests build: alike graphs
// hash alike whatever the order of their nodes, and equal hashes only ever join equivalent
// types (refinePartition, the coarsest equivalence, is the oracle).
#include "dedup/ExactHash.h"

#include "dedup/Components.h"
#include "dedup/PartitionRefinement.h"
#include "dedup/RefGraph.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

using namespace btforge;
using namespace btforge::dedup;

namespace {

struct Node {
    uint64_t label;
    std::vector<uint32_t> refs;
    friend bool operator==(const Node&, const Node&) = default;
};

// Node 0 is void; node i of `nodes` is graph node i + 1, whose label is made of `label`.
RefGraph graphOf(const std::vector<Node>& nodes) {
    RefGraph graph;
    graph.addLeaf(voidLabel());
    for (const Node& n : nodes)
        graph.addNode({n.label, ~n.label}, n.refs);
    return graph;
}

// Components as the merger finds them.
void componentsOf(const RefGraph& graph, std::vector<uint32_t>& order,
                  std::vector<uint32_t>& starts) {
    detail::findComponents(
        graph.size(), [&](uint32_t node) { return graph.refs(node); }, order, starts);
}

// The graph's exact hashes by graph node; fixed: per graph node, or empty.
std::vector<LabelHash> hashesOf(const std::vector<Node>& nodes,
                                const std::vector<LabelHash>& fixed = {}) {
    const RefGraph graph = graphOf(nodes);
    std::vector<uint32_t> order, starts;
    componentsOf(graph, order, starts);
    return detail::exactHashes(graph, order, starts, fixed);
}

// The same graph with its nodes (but void) numbered by `permutation` (new number of node i + 1
// at i), references following.
std::vector<Node> renumbered(const std::vector<Node>& nodes,
                             const std::vector<uint32_t>& permutation) {
    std::vector<Node> out(nodes.size());
    for (size_t i = 0; i < nodes.size(); ++i) {
        Node n = nodes[i];
        for (uint32_t& ref : n.refs)
            ref = ref == 0 ? 0 : permutation[ref - 1];
        out[permutation[i] - 1] = n;
    }
    return out;
}

// struct S { struct S *next; int v; struct T *t; }; struct T { struct S *s; }; typedef int i_t.
std::vector<Node> structs(uint64_t intLabel = 3) {
    return {
        {10, {2, 5, 3}}, // 1: S
        {20, {1}},       // 2: S *
        {20, {4}},       // 3: T *
        {11, {2}},       // 4: T
        {intLabel, {}},  // 5: int
        {30, {5}},       // 6: i_t
    };
}

} // namespace

TEST_CASE("exact hashes: alike graphs hash alike whatever the order of their nodes") {
    const std::vector<Node> graph = structs();
    const std::vector<LabelHash> hashes = hashesOf(graph);
    for (const std::vector<uint32_t>& permutation :
         std::vector<std::vector<uint32_t>>{{6, 5, 4, 3, 2, 1}, {3, 1, 2, 6, 4, 5}}) {
        const std::vector<LabelHash> other = hashesOf(renumbered(graph, permutation));
        for (size_t i = 0; i < graph.size(); ++i) {
            CAPTURE(i);
            CHECK(hashes[i + 1] == other[permutation[i]]);
        }
    }
    // The two pointers have one label; what they point to tells them apart.
    CHECK(hashes[2] != hashes[3]);
    CHECK(hashes[1] != hashes[4]);
}

TEST_CASE("exact hashes: a label anywhere in a type's reach parts it, and only it") {
    const std::vector<LabelHash> plain = hashesOf(structs(3));
    const std::vector<LabelHash> other = hashesOf(structs(4)); // int's label differs
    for (uint32_t node = 1; node <= 6; ++node) {
        CAPTURE(node);
        // All of S, T and their pointers reach int; i_t does; so does int.
        CHECK(plain[node] != other[node]);
    }
    std::vector<Node> extended = structs();
    extended.push_back({40, {6}}); // 7: reaches only i_t
    extended.push_back({50, {}});  // 8: a leaf
    std::vector<Node> changed = extended;
    changed[7].label = 51;
    const std::vector<LabelHash> a = hashesOf(extended), b = hashesOf(changed);
    for (uint32_t node = 1; node <= 7; ++node)
        CHECK(a[node] == b[node]);
    CHECK(a[8] != b[8]);
}

TEST_CASE("exact hashes: a cycle's members are told by where their references lead") {
    // Alike labels and counts of references, other wiring: a -> (b, b), b -> a against
    // a -> b, b -> (a, b).
    const std::vector<LabelHash> a = hashesOf({{0, {2, 2}}, {0, {1}}});
    const std::vector<LabelHash> b = hashesOf({{0, {2}}, {0, {1, 2}}});
    CHECK(a[1] != b[2]);
    CHECK(a[2] != b[1]);
    CHECK(a[1] != b[1]);
    CHECK(a[2] != b[2]);
    // Members alike until their references' references are looked at: the order refinement
    // finds is the same however the nodes are numbered.
    const std::vector<Node> graph = {{10, {2, 3}}, {20, {4}}, {20, {5}}, {30, {1}}, {30, {1, 1}}};
    const std::vector<uint32_t> permutation = {1, 3, 2, 5, 4};
    const std::vector<LabelHash> plain = hashesOf(graph);
    const std::vector<LabelHash> other = hashesOf(renumbered(graph, permutation));
    for (uint32_t node = 1; node <= graph.size(); ++node) {
        CAPTURE(node);
        CHECK(plain[node] == other[permutation[node - 1]]);
    }
}

TEST_CASE("exact hashes: a fixed node hashes as what it stands for") {
    std::vector<Node> nodes = {{20, {2}}, {0, {}}}; // a pointer to a placeholder
    std::vector<LabelHash> fixed(3);
    fixed[2] = detail::mergedTypeHash(7);
    const std::vector<LabelHash> seven = hashesOf(nodes, fixed);
    fixed[2] = detail::mergedTypeHash(8);
    const std::vector<LabelHash> eight = hashesOf(nodes, fixed);
    CHECK(seven[2] == detail::mergedTypeHash(7));
    CHECK(seven[1] != eight[1]);
    // Not as the leaf it is in the graph.
    CHECK(hashesOf(nodes)[1] != seven[1]);
}

TEST_CASE("exact hashes: equal hashes only for equivalent types, on random graphs") {
    std::mt19937 random(20261128);
    auto randomGraph = [&](uint32_t count) {
        // Few labels and many references: cycles of alike members, which ties leave in node
        // order, are the case to get wrong.
        std::vector<Node> nodes(count);
        for (Node& n : nodes) {
            n.label = random() % 3;
            for (uint32_t r = random() % 3; r > 0; --r)
                n.refs.push_back(random() % (count + 1));
        }
        return nodes;
    };
    for (int trial = 0; trial < 300; ++trial) {
        CAPTURE(trial);
        // A graph and a copy, renumbered, one of its references or labels maybe changed: hashed
        // apart, compared against the coarsest equivalence over both.
        const std::vector<Node> first = randomGraph(2 + random() % 30);
        const auto count = static_cast<uint32_t>(first.size());
        std::vector<uint32_t> permutation(count);
        std::iota(permutation.begin(), permutation.end(), 1);
        std::shuffle(permutation.begin(), permutation.end(), random);
        std::vector<Node> second = renumbered(first, permutation);
        Node& changed = second[random() % count];
        if (random() % 2 && !changed.refs.empty())
            changed.refs[random() % changed.refs.size()] = random() % (count + 1);
        else if (random() % 2)
            changed.label = random() % 3;
        const std::vector<LabelHash> a = hashesOf(first), b = hashesOf(second);

        std::vector<Node> union_ = first;
        for (Node n : second) {
            for (uint32_t& ref : n.refs)
                ref = ref == 0 ? 0 : ref + count;
            union_.push_back(n);
        }
        const RefGraph both = graphOf(union_);
        std::vector<uint32_t> block(both.size(), 0);
        detail::refinePartition(both, block);
        for (uint32_t x = 1; x <= count; ++x) {
            for (uint32_t y = 1; y <= count; ++y) {
                if (a[x] == b[y])
                    CHECK(block[x] == block[count + y]);
                if (y > x && a[x] == a[y])
                    CHECK(block[x] == block[y]);
            }
        }
        // Unchanged and out of reach of any cycle, a node hashes alike however numbered.
        if (second == renumbered(first, permutation)) {
            const RefGraph graph = graphOf(first);
            std::vector<uint32_t> order, starts;
            componentsOf(graph, order, starts);
            std::vector<uint8_t> acyclic(graph.size(), 0);
            acyclic[0] = 1;
            for (size_t c = 0; c + 1 < starts.size(); ++c) {
                const uint32_t node = order[starts[c]];
                const auto refs = graph.refs(node);
                acyclic[node] = starts[c + 1] - starts[c] == 1 &&
                                std::all_of(refs.begin(), refs.end(), [&](uint32_t ref) {
                                    return ref != node && acyclic[ref];
                                });
                if (acyclic[node])
                    CHECK(a[node] == b[permutation[node - 1]]);
            }
        }
    }
}
