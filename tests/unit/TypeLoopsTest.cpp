#include "btf/TypeLoops.h"

#include <doctest/doctest.h>

#include <random>
#include <vector>

using namespace btforge;
using ir::TypeId;

// anyLoop is the reader's linear check; findLoop, a plain depth-first search over each kind of
// edge, is what names a loop once anyLoop has said there is one. They must agree on every graph,
// loops through pointers, chains, arrays, tags and composites included.
TEST_CASE("TypeLoops: the linear check agrees with the depth-first searches") {
    std::mt19937 random(26);
    int withLoop = 0;
    constexpr int kGraphs = 3000;
    for (int round = 0; round < kGraphs; ++round) {
        const uint32_t count = 2 + random() % 10;
        auto anyId = [&] { return static_cast<TypeId>(random() % (count + 1)); }; // void too
        ir::TypeGraph graph;
        std::vector<ir::Member> members;
        for (uint32_t i = 0; i < count; ++i) {
            switch (random() % 9) {
            case 0:
                graph.add(ir::IntType{ir::kNoName, 4, 0, 0, 32});
                break;
            case 1:
                graph.add(ir::PtrType{ir::kNoName, anyId()});
                break;
            case 2:
                graph.add(ir::TypedefType{ir::kNoName, anyId()});
                break;
            case 3:
                graph.add(ir::ConstType{ir::kNoName, anyId()});
                break;
            case 4:
                graph.add(ir::ArrayType{ir::kNoName, anyId(), 1, 2});
                break;
            case 5:
                graph.add(ir::DeclTagType{ir::kNoName, anyId(), -1});
                break;
            case 6:
                graph.add(ir::VarType{ir::kNoName, anyId()});
                break;
            default: {
                members.assign(1 + random() % 3, ir::Member{});
                for (ir::Member& m : members)
                    m.type = anyId();
                if (random() % 2)
                    graph.add(ir::StructType{ir::kNoName, 8, members});
                else
                    graph.add(ir::UnionType{ir::kNoName, 8, members});
                break;
            }
            }
        }
        const bool expected = !btf::detail::findLoop(graph, btf::detail::chainEdges).empty() ||
                              !btf::detail::findLoop(graph, btf::detail::valueEdges).empty();
        withLoop += expected;
        INFO("round " << round);
        CHECK(btf::detail::anyLoop(graph) == expected);
    }
    // Both answers are common, so neither can pass by always giving one.
    CHECK(withLoop > kGraphs / 5);
    CHECK(withLoop < kGraphs * 4 / 5);
}
