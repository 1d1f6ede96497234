// A type's label: everything about it except the ids it refers to. Two types are equivalent when
// their labels are equal and their references, position by position, are equivalent.
//
// Labels are compared through LabelHash (RefGraph.h), 128 bits hashed from the label's fields
// (names as text, so graphs with pools of their own compare), never field by field: dedup takes
// equal LabelHashes for equal labels. That is sound up to a collision of two independent 64-bit
// hashes of an unambiguous encoding, about 2^-128 per pair of labels compared.
#pragma once

#include "../support/Hash.h"
#include "dedup/RefGraph.h"

#include "btforge/ir/TypeGraph.h"

#include <cstdint>
#include <span>
#include <vector>

namespace btforge::dedup::detail {

// Both halves of a LabelHash over one field sequence, with unrelated seeds and constants: labels
// and exact hashes (ExactHash.h).
struct LabelHasher {
    LabelHash hash{0x243f6a8885a308d3ull, 0x13198a2e03707344ull};
    void number(uint64_t v) {
        hash.first = hashing::combine(hash.first, v);
        hash.second = hashing::mix<0x452821e638d01377ull, 0xbe5466cf34e90c6cull>(hash.second, v);
    }
    void number(const LabelHash& v) {
        number(v.first);
        number(v.second);
    }
    void name(const ir::TypeGraph& g, ir::StrId id) {
        hashing::forEachWord(g.str(id), [&](uint64_t w) { number(w); });
    }
};

// The label of `id` in `g`; its references, in the order equivalence pairs them, are appended to
// `refs`.
LabelHash labelOf(const ir::TypeGraph& g, ir::TypeId id, std::vector<ir::TypeId>& refs);

// A type's shape: 64 bits of its label, with names as the base's string ids (one id per text:
// StringPool::uniqueStrings), and of the ids `refs` it is given for its references. A unit type
// whose references are settled has the shape of the base type equal to it, if any; a base's
// shapes cost no text hashing.
uint64_t shapeOf(const ir::TypeGraph& g, ir::TypeId id, std::span<const ir::TypeId> refs,
                 const ir::StringPool& baseStrings);
// The shape of a type of the base itself, with its own references, which are appended to `refs`.
uint64_t baseShapeOf(const ir::TypeGraph& base, ir::TypeId id, std::vector<ir::TypeId>& refs);

} // namespace btforge::dedup::detail
