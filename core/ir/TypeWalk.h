// Walking one type's fields generically: the references it holds, and a copy of it with names and
// references mapped (for another graph, or renumbered). Dedup, amending, the DWARF pipeline,
// the func-addr conversions and `btforge diff` all walk types this way.
//
// Both walks meet the references in the same order, record order: a reference kind's, VAR's
// and DECL_TAG's target; ARRAY's element then index type; members; FUNC's prototype;
// FUNC_PROTO's return type then parameters; DATASEC's entries. Dedup pairs references by that
// position.
#pragma once

#include "btforge/ir/TypeGraph.h"

#include <type_traits>
#include <vector>

namespace btforge::ir {

// Types with a `type` field that is a reference.
template <typename T>
constexpr bool hasTarget =
    isReferenceKind(T::kKind) || std::is_same_v<T, VarType> || std::is_same_v<T, DeclTagType>;

// Calls f(TypeId) for each reference `t` holds, in record order.
template <typename T, typename F> void forEachReference(const T& t, F&& f) {
    if constexpr (hasTarget<T>) {
        f(t.type);
    } else if constexpr (std::is_same_v<T, ArrayType>) {
        f(t.elemType);
        f(t.indexType);
    } else if constexpr (requires { t.members; }) {
        for (const Member& m : t.members)
            f(m.type);
    } else if constexpr (std::is_same_v<T, FuncType>) {
        f(t.proto);
    } else if constexpr (std::is_same_v<T, FuncProtoType>) {
        f(t.returnType);
        for (const Param& p : t.params)
            f(p.type);
    } else if constexpr (std::is_same_v<T, DatasecType>) {
        for (const VarSecInfo& e : t.entries)
            f(e.type);
    }
}

// Calls f(TypeId) for every type `id` refers to, in record order.
template <typename F> void forEachReference(const TypeGraph& graph, TypeId id, F&& f) {
    graph.visit(id, [&](const auto& t) { forEachReference(t, f); });
}

// Lists rewrite() builds views over; reused so copying types allocates only while they grow.
struct ListScratch {
    std::vector<Member> members;
    std::vector<Param> params;
    std::vector<Enumerator> enumerators;
    std::vector<VarSecInfo> entries;
};

// `t` for another graph: names through mapName, references through mapRef (in record order).
// Lists point into `scratch`, so the result is valid until its next use.
template <typename T, typename MapName, typename MapRef>
T rewriteType(const T& t, MapName&& name, MapRef&& mapRef, ListScratch& scratch) {
    T out = t;
    if constexpr (!std::is_same_v<T, VoidType>)
        out.name = name(t.name);
    if constexpr (hasTarget<T>)
        out.type = mapRef(t.type);
    if constexpr (std::is_same_v<T, ArrayType>) {
        out.elemType = mapRef(t.elemType);
        out.indexType = mapRef(t.indexType);
    } else if constexpr (requires { t.members; }) {
        scratch.members.clear();
        for (const Member& m : t.members)
            scratch.members.push_back({name(m.name), mapRef(m.type), m.bitOffset, m.bitfieldSize});
        out.members = scratch.members;
    } else if constexpr (requires { t.values; }) {
        scratch.enumerators.clear();
        for (const Enumerator& e : t.values)
            scratch.enumerators.push_back({name(e.name), e.value});
        out.values = scratch.enumerators;
    } else if constexpr (std::is_same_v<T, FuncType>) {
        out.proto = mapRef(t.proto);
    } else if constexpr (std::is_same_v<T, FuncProtoType>) {
        out.returnType = mapRef(t.returnType);
        scratch.params.clear();
        for (const Param& p : t.params)
            scratch.params.push_back({name(p.name), mapRef(p.type)});
        out.params = scratch.params;
    } else if constexpr (std::is_same_v<T, VarType>) {
        out.section = name(t.section);
    } else if constexpr (std::is_same_v<T, DatasecType>) {
        scratch.entries.clear();
        for (const VarSecInfo& e : t.entries)
            scratch.entries.push_back({mapRef(e.type), e.offset, e.size});
        out.entries = scratch.entries;
    }
    return out;
}

// The view of `from`'s type for `to`: names re-interned into `to`, references through `mapRef`.
// Lists point into `scratch`, so the result is valid until its next use.
template <typename MapRef>
TypeView rewrite(const TypeGraph& from, const TypeView& view, TypeGraph& to, MapRef&& mapRef,
                 ListScratch& scratch) {
    auto name = [&](StrId id) { return to.intern(from.str(id)); };
    return std::visit(
        [&](const auto& t) -> TypeView { return rewriteType(t, name, mapRef, scratch); }, view);
}

} // namespace btforge::ir
