// SparseIdMap (core/support) and FinalIds (core/dedup): the tables a module's merge keeps for
// the few base types it meets, checked against a plain table by id.
#include "support/SparseIdMap.h"

#include "dedup/FinalIds.h"

#include <doctest/doctest.h>

#include <map>
#include <random>

namespace btforge {

TEST_CASE("SparseIdMap: what a table by id would hold, through growth") {
    support::SparseIdMap map;
    std::map<uint32_t, uint32_t> expected;
    std::mt19937 random(26);
    // Scattered ids as a module meets vmlinux's, and runs of consecutive ones (Fibonacci
    // hashing must spread both); enough to grow the table several times.
    for (uint32_t i = 0; i < 5000; ++i) {
        const uint32_t id = i % 2 ? random() % 95246 : 40000 + i;
        const auto [value, added] = map.emplace(id, i);
        const auto [it, expectAdded] = expected.emplace(id, i);
        CHECK(added == expectAdded);
        CHECK(value == it->second);
    }
    for (uint32_t id = 0; id < 100000; ++id) {
        auto it = expected.find(id);
        CHECK(map.find(id) == (it == expected.end() ? support::SparseIdMap::kAbsent : it->second));
    }
    CHECK(map.size() == expected.size());
    CHECK(map.memoryUsage() >= 2 * expected.size() * sizeof(uint64_t));
}

TEST_CASE("FinalIds: own ids by table, base ids themselves unless moved") {
    const dedup::FinalIds ids(100, {7, 100, 3}, {{42, 101}, {5, 9}});
    CHECK(ids(100) == 7);
    CHECK(ids(101) == 100);
    CHECK(ids(102) == 3);
    CHECK(ids(0) == 0);
    CHECK(ids(5) == 9);
    CHECK(ids(42) == 101);
    CHECK(ids(41) == 41);
    CHECK(ids(99) == 99);
    CHECK(ids == dedup::FinalIds(100, {7, 100, 3}, {{5, 9}, {42, 101}}));
}

} // namespace btforge
