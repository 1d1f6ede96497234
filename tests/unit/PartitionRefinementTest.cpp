// Partition refinement against a plain fixpoint of signature rounds: random graphs of structs and
// pointers with long chains (past the rounds refinePartition runs before its splitter
// refinement) and declarations following their candidates.
#include "dedup/PartitionRefinement.h"

#include "dedup/RefGraph.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <random>
#include <tuple>
#include <vector>

using namespace btforge;
using namespace btforge::ir;
using dedup::RefGraph;
using dedup::detail::Aliases;

namespace {

// Rounds until nothing splits, with refinePartition's alias rule; numbered by first node.
std::vector<uint32_t> fixpoint(const RefGraph& graph, std::vector<uint32_t> block,
                               const Aliases& aliases) {
    const uint32_t n = graph.size();
    std::vector<uint8_t> aliasing(n, 0);
    for (size_t i = 0; i < aliases.size(); ++i)
        aliasing[aliases.node(i)] = 1;
    auto follow = [&](std::vector<uint32_t>& b, uint32_t& count) {
        for (size_t i = 0; i < aliases.size(); ++i) {
            const uint32_t alias = aliases.node(i);
            auto candidates = aliases.candidates(i);
            if (!aliasing[alias])
                continue;
            if (std::all_of(candidates.begin(), candidates.end(),
                            [&](uint32_t c) { return b[c] == b[candidates[0]]; })) {
                b[alias] = b[candidates[0]];
            } else {
                aliasing[alias] = 0;
                b[alias] = count++;
            }
        }
    };
    uint32_t count = n;
    follow(block, count);
    for (uint32_t blocks = 0, round = 0;; ++round) {
        std::map<std::vector<uint64_t>, uint32_t> numbers;
        std::vector<uint32_t> next(n);
        for (uint32_t node = 0; node < n; ++node) {
            if (aliasing[node])
                continue;
            std::vector<uint64_t> key{block[node]};
            if (round == 0)
                key.insert(key.end(), {graph.label(node).first, graph.label(node).second});
            for (uint32_t ref : graph.refs(node))
                key.push_back(block[ref]);
            next[node] = numbers.try_emplace(key, uint32_t(numbers.size())).first->second;
        }
        count = static_cast<uint32_t>(numbers.size());
        follow(next, count);
        block.swap(next);
        if (count == blocks)
            break;
        blocks = count;
    }
    std::map<uint32_t, uint32_t> dense;
    for (uint32_t node = 0; node < n; ++node) {
        if (!aliasing[node])
            dense.try_emplace(block[node], uint32_t(dense.size()));
    }
    for (uint32_t& b : block)
        b = dense.at(b);
    return block;
}

} // namespace

TEST_CASE("refinePartition: the coarsest stable partition, deep chains and aliases included") {
    for (unsigned seed = 0; seed < 60; ++seed) {
        CAPTURE(seed);
        std::mt19937 random(seed);
        auto pick = [&](uint32_t n) {
            return std::uniform_int_distribution<uint32_t>(0, n - 1)(random);
        };
        TypeGraph g;
        const StrId names[] = {g.intern("a"), g.intern("b")};
        const TypeId integer = g.add(IntType{g.intern("int"), 4, 0, 0, 32});
        std::vector<TypeId> structs, fwds;
        const uint32_t count = 40 + pick(40);
        for (uint32_t i = 0; i < count; ++i)
            structs.push_back(g.add(FwdType{})); // placeholders, filled below
        auto anyType = [&] {
            switch (pick(4)) {
            case 0:
                return integer;
            case 1:
                return fwds.empty() ? integer : fwds[pick(uint32_t(fwds.size()))];
            default:
                return structs[pick(count)];
            }
        };
        for (int f = 0; f < 6; ++f) // declarations, each following some of the structs
            fwds.push_back(g.add(FwdType{names[f % 2], false}));
        for (uint32_t i = 0; i < count; ++i) {
            if (pick(3) == 0) { // the end of a pointer chain, as deep as 20 to 50
                TypeId top = anyType();
                for (uint32_t depth = 20 + pick(31); depth--;)
                    top = g.add(PtrType{kNoName, top});
                g.replace(structs[i], PtrType{kNoName, top});
                continue;
            }
            const Member members[] = {{g.intern("m"), anyType(), 0, 0},
                                      {g.intern("n"), anyType(), 64, 0}};
            g.replace(structs[i], StructType{names[pick(2)], 16, members});
        }
        // The merged world shares labels between nodes: refinement must not see a difference.
        const auto labels = seed % 2 ? RefGraph::Labels::Shared : RefGraph::Labels::PerNode;
        RefGraph graph(labels);
        graph.addLeaf(dedup::voidLabel());
        for (TypeId id = 1; id < g.endId(); ++id)
            graph.addType(g, id);
        Aliases aliases;
        std::vector<uint32_t> block(graph.size(), 0);
        // Each declaration follows one to three of the structs (any subset will do here).
        std::vector<TypeId> definitions;
        for (TypeId s : structs) {
            if (g.kind(s) == Kind::Struct)
                definitions.push_back(s);
        }
        for (TypeId fwd : fwds) {
            block[fwd] = fwd; // a block of its own
            if (definitions.empty())
                continue;
            std::vector<uint32_t> candidates;
            for (uint32_t k = 1 + pick(3); k--;)
                candidates.push_back(definitions[pick(uint32_t(definitions.size()))]);
            aliases.add(fwd, candidates);
        }
        const std::vector<uint32_t> expected = fixpoint(graph, block, aliases);
        const uint32_t blocks = dedup::detail::refinePartition(graph, block, aliases);
        CHECK(block == expected);
        CHECK(blocks == *std::max_element(expected.begin(), expected.end()) + 1);
    }
}

TEST_CASE("RefGraph: shared labels are numbered once each, and read back per node") {
    TypeGraph g;
    const TypeId integer = g.add(IntType{g.intern("int"), 4, 0, 0, 32});
    const TypeId first = g.add(PtrType{kNoName, integer});
    const TypeId second = g.add(PtrType{kNoName, first}); // a pointer's label: its kind alone
    const TypeId named = g.add(TypedefType{g.intern("t"), integer});
    RefGraph perNode;
    RefGraph shared(RefGraph::Labels::Shared);
    for (RefGraph* graph : {&perNode, &shared}) {
        graph->addLeaf(dedup::voidLabel());
        for (TypeId id = 1; id < g.endId(); ++id)
            graph->addType(g, id);
    }
    CHECK(perNode.labelCount() == perNode.size());
    CHECK(shared.labelCount() == 4); // void, int, pointer, typedef
    CHECK(shared.labelNumber(first) == shared.labelNumber(second));
    CHECK(shared.labelNumber(first) != shared.labelNumber(named));
    for (uint32_t node = 0; node < shared.size(); ++node) {
        CAPTURE(node);
        CHECK(shared.label(node) == perNode.label(node));
        CHECK(std::vector<uint32_t>(shared.refs(node).begin(), shared.refs(node).end()) ==
              std::vector<uint32_t>(perNode.refs(node).begin(), perNode.refs(node).end()));
    }
}
