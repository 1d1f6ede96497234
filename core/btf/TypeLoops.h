// Reference loops a BTF file must not have, which C cannot spell: a chain of
// pointers, typedefs, modifiers and array elements that never reaches a type
// with a size, and a struct or union that contains itself by value. The BTF
// reader rejects both.
#pragma once

#include "btforge/ir/TypeGraph.h"

#include <span>
#include <vector>

namespace btforge::btf::detail {

// A STRUCT's or UNION's members; nothing for other kinds.
std::span<const ir::Member> membersOf(const ir::TypeGraph& graph, ir::TypeId id);

// Appends the types `id` leads to, for one kind of loop check.
using EdgeFn = void (*)(const ir::TypeGraph&, ir::TypeId, std::vector<ir::TypeId>&);

// A chain of pointers, typedefs, modifiers, array elements (and VAR/DECL_TAG
// targets) must end: a loop here has neither size nor name to stop at.
void chainEdges(const ir::TypeGraph& graph, ir::TypeId id, std::vector<ir::TypeId>& out);

// What a type holds by value: a struct or union its members, everything else in
// a chain what it stands for. A pointer holds nothing, which is how a type may
// refer to itself.
void valueEdges(const ir::TypeGraph& graph, ir::TypeId id, std::vector<ir::TypeId>& out);

// Whether own types have a loop of either kind: linear, for the common case of none (findLoop
// then names one).
bool anyLoop(const ir::TypeGraph& graph);

// The types of one loop among own types, in edge order, or nothing.
std::vector<ir::TypeId> findLoop(const ir::TypeGraph& graph, EdgeFn edges);

} // namespace btforge::btf::detail
