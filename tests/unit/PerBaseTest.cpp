// What is derived from a base alone is built once while that base lives (support/PerBase.h),
// whichever conversion asks first: a batch's conversions share it.
#include "support/PerBase.h"

#include "../../core/dedup/BaseIndex.h"

#include "btforge/ir/TypeGraph.h"

#include <doctest/doctest.h>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

using namespace btforge;

namespace {

std::shared_ptr<const ir::TypeGraph> smallBase() {
    ir::TypeGraph graph;
    graph.add(ir::IntType{graph.intern("int"), 4, 1, 0, 32}); // signed
    return std::make_shared<const ir::TypeGraph>(std::move(graph));
}

struct Derived {
    explicit Derived(const ir::TypeGraph& base) : types(base.endId()) {}
    uint32_t types;
};

} // namespace

TEST_CASE("PerBase: built once per base, again for another or a new one") {
    support::PerBase<Derived> cache;
    int builds = 0;
    auto build = [&](const ir::TypeGraph& base) {
        ++builds;
        return Derived(base);
    };
    auto base = smallBase();
    auto first = cache.get(base, build);
    CHECK(cache.get(base, build) == first);
    CHECK(builds == 1);
    CHECK(first->types == 2);

    auto other = smallBase();
    CHECK(cache.get(other, build) != first);
    CHECK(builds == 2);
    // Back to the first base: one base is kept at a time.
    CHECK(cache.get(base, build) != first);
    CHECK(builds == 3);

    // A base that died is never taken for the one that replaces it, wherever it lies.
    base.reset();
    other.reset();
    auto later = smallBase();
    cache.get(later, build);
    CHECK(builds == 4);
}

TEST_CASE("PerBase: workers asking at once build once") {
    support::PerBase<Derived> cache;
    std::atomic<int> builds = 0;
    auto base = smallBase();
    std::vector<std::thread> workers;
    std::vector<std::shared_ptr<const Derived>> got(4);
    for (size_t i = 0; i < got.size(); ++i)
        workers.emplace_back([&, i] {
            got[i] = cache.get(base, [&](const ir::TypeGraph& b) {
                ++builds;
                return Derived(b);
            });
        });
    for (std::thread& worker : workers)
        worker.join();
    CHECK(builds == 1);
    for (const auto& value : got)
        CHECK(value == got.front());
}

TEST_CASE("BaseIndex::of: one index for the merges over one base") {
    auto base = smallBase();
    auto index = dedup::BaseIndex::of(base);
    CHECK(dedup::BaseIndex::of(base) == index);
    CHECK(index->minimal());
    int found = 0;
    index->forEachNamed(ir::Kind::Int, "int", [&](ir::TypeId id) {
        CHECK(id == 1);
        ++found;
        return false;
    });
    CHECK(found == 1);
}
