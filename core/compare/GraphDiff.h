// Semantic comparison of two type graphs, ids aside: what `btforge diff` prints and what the
// oracle tests use to hold btforge's BTF against pahole's.
//
// Types are matched by kind and name (FUNC, VAR and DATASEC by name; a DECL_TAG by its value and
// what it tags; an anonymous STRUCT/UNION/ENUM that nothing references by its first member or
// value). Anonymous types that something references are compared where they are used. A type
// reference compares by its meaning, spelled as C spells it ("struct foo *", "const char [16]",
// "int (*)(struct sk_buff *, int)"), never by id. Several types of one kind and name (the kernel
// has a few) compare as multisets.
#pragma once

#include "btforge/ir/TypeGraph.h"

#include <array>
#include <bitset>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace btforge::compare {

// The kinds whose types are matched on their own, in kind order; the others (PTR, ARRAY,
// FUNC_PROTO, modifiers) are only compared inside the types that refer to them.
std::span<const ir::Kind> matchedKinds();
bool isMatchedKind(ir::Kind kind);

struct DiffOptions {
    // BTF producers differ in where they keep a forward declaration, so by default "struct foo"
    // means the same whether it is a FWD or the full STRUCT, and a FWD is not matched on its own
    // when its graph also defines the type. Strict: a FWD is a FWD everywhere.
    bool strictForwards = false;
    // int m[3][4] as int [12]: pahole writes multi-dimensional arrays as one flat ARRAY, LLVM and
    // btforge as nested ones; compare across that with this set.
    bool flattenArrays = false;
    // The matched kinds to compare (indexed by kind number); the others are left out entirely.
    std::bitset<ir::kMaxKind + 1> kinds = std::bitset<ir::kMaxKind + 1>().set();
    // At most this many differences are listed; all are counted.
    size_t maxListed = SIZE_MAX;
};

// Per kind, how the types of A and B matched up. A type of one side counts once.
struct KindCounts {
    uint64_t equal = 0;
    uint64_t onlyA = 0;
    uint64_t onlyB = 0;
    uint64_t different = 0;
    bool operator==(const KindCounts&) const = default;
};

// One thing that differs: in type `type` (its name, or how an unnamed one was matched), the
// `what` ("size", "member 'x' offset", "param 2 'len' type", ...; empty when the whole type is
// on one side only), with each side's value; nullopt where that side lacks it.
struct Difference {
    ir::Kind kind = ir::Kind::Void;
    std::string type;
    std::string what;
    std::optional<std::string> a;
    std::optional<std::string> b;
    bool operator==(const Difference&) const = default;
};

struct DiffReport {
    std::array<KindCounts, ir::kMaxKind + 1> counts{}; // indexed by kind number
    // Sorted by kind, then type name; at most DiffOptions::maxListed of them.
    std::vector<Difference> differences;
    uint64_t differenceCount = 0; // listed or not

    bool equal() const;
};

// Compares the types each graph owns (a split graph's base is not compared, only referred to).
DiffReport compareGraphs(const ir::TypeGraph& a, const ir::TypeGraph& b,
                         const DiffOptions& options = {});

} // namespace btforge::compare
