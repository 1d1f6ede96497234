// A type's label: everything about it except the ids it refers to. Two types are equivalent when
// their labels are equal and their references, position by position, are equivalent.
//
// Labels are compared through LabelHash (RefGraph.h), 128 bits hashed from the label's fields
// (names as text, so graphs with pools of their own compare), never field by field: dedup takes
// equal LabelHashes for equal labels. That is sound up to a collision of two independent 64-bit
// hashes of an unambiguous encoding, about 2^-128 per pair of labels compared.
#pragma once

#include "dedup/RefGraph.h"

#include "btforge/ir/TypeGraph.h"

#include <cstdint>
#include <type_traits>
#include <vector>

namespace btforge::dedup::detail {

__extension__ typedef unsigned __int128 Uint128;

// Multiply-fold mixing: one 64x64->128 multiplication, both halves kept. The constants pick one
// member of the family; LabelHash uses two with unrelated constants.
template <uint64_t kState, uint64_t kValue> inline uint64_t mix(uint64_t h, uint64_t v) {
#if defined(__x86_64__)
    // The same product, spelt out: in the hashing loops GCC 12 stored the 128-bit product to the
    // stack and loaded it back, a store-forwarding delay on every step of the chain.
    uint64_t low, high;
    asm("mulq %3" : "=a"(low), "=d"(high) : "a"(h ^ kState), "rm"(v ^ kValue) : "cc");
    return low ^ high;
#else
    const Uint128 product = static_cast<Uint128>(h ^ kState) * (v ^ kValue);
    return static_cast<uint64_t>(product) ^ static_cast<uint64_t>(product >> 64);
#endif
}

inline uint64_t combine(uint64_t h, uint64_t v) {
    return mix<0xa0761d6478bd642full, 0xe7037ed1a0b428dbull>(h, v);
}

// The label of `id` in `g`; its references, in the order equivalence pairs them, are appended to
// `refs`.
LabelHash labelOf(const ir::TypeGraph& g, ir::TypeId id, std::vector<ir::TypeId>& refs);

// Lists rewrite() builds views over; reused so copying types allocates only while they grow.
struct ListScratch {
    std::vector<ir::Member> members;
    std::vector<ir::Param> params;
    std::vector<ir::Enumerator> enumerators;
    std::vector<ir::VarSecInfo> entries;
};

// `t` for another graph: names through mapName, references through mapRef. Lists point into
// `scratch`, so the result is valid until its next use.
template <typename T, typename MapName, typename MapRef>
T rewriteType(const T& t, MapName&& name, MapRef&& mapRef, ListScratch& scratch) {
    T out = t;
    if constexpr (!std::is_same_v<T, ir::VoidType>)
        out.name = name(t.name);
    if constexpr (ir::isReferenceKind(T::kKind) || std::is_same_v<T, ir::VarType> ||
                  std::is_same_v<T, ir::DeclTagType>)
        out.type = mapRef(t.type);
    if constexpr (std::is_same_v<T, ir::ArrayType>) {
        out.elemType = mapRef(t.elemType);
        out.indexType = mapRef(t.indexType);
    } else if constexpr (requires { t.members; }) {
        scratch.members.clear();
        for (const ir::Member& m : t.members)
            scratch.members.push_back({name(m.name), mapRef(m.type), m.bitOffset, m.bitfieldSize});
        out.members = scratch.members;
    } else if constexpr (requires { t.values; }) {
        scratch.enumerators.clear();
        for (const ir::Enumerator& e : t.values)
            scratch.enumerators.push_back({name(e.name), e.value});
        out.values = scratch.enumerators;
    } else if constexpr (std::is_same_v<T, ir::FuncType>) {
        out.proto = mapRef(t.proto);
    } else if constexpr (std::is_same_v<T, ir::FuncProtoType>) {
        out.returnType = mapRef(t.returnType);
        scratch.params.clear();
        for (const ir::Param& p : t.params)
            scratch.params.push_back({name(p.name), mapRef(p.type)});
        out.params = scratch.params;
    } else if constexpr (std::is_same_v<T, ir::VarType>) {
        out.section = name(t.section);
    } else if constexpr (std::is_same_v<T, ir::DatasecType>) {
        scratch.entries.clear();
        for (const ir::VarSecInfo& e : t.entries)
            scratch.entries.push_back({mapRef(e.type), e.offset, e.size});
        out.entries = scratch.entries;
    }
    return out;
}

// The view of `from`'s type for `to`: names re-interned into `to`, references through `mapRef`.
// Lists point into `scratch`, so the result is valid until its next use.
template <typename MapRef>
ir::TypeView rewrite(const ir::TypeGraph& from, const ir::TypeView& view, ir::TypeGraph& to,
                     MapRef&& mapRef, ListScratch& scratch) {
    auto name = [&](ir::StrId id) { return to.intern(from.str(id)); };
    return std::visit(
        [&](const auto& t) -> ir::TypeView { return rewriteType(t, name, mapRef, scratch); }, view);
}

} // namespace btforge::dedup::detail
