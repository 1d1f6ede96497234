// Minimised BTF for a set of names (like bpftool gen min_core_btf, for named types rather than
// a program's relocations).
//
// A name selects every own type of that name, any kind. A type "needs" what it refers to, except
// that a DECL_TAG goes with the type it tags and a DATASEC only lists its VARs:
//  keep  the selected types and everything they need, transitively; DECL_TAGs on kept types; each
//        DATASEC with its kept VARs only (one with none left goes).
//  drop  the selected types and everything only they need: whatever other types still need stays.
//        A selected type another type still needs is an error naming that type.
// Ids are renumbered in order; types of a base graph (split BTF) are never removed.
#pragma once

#include "btforge/ir/TypeGraph.h"
#include "btforge/support/Error.h"

#include <span>
#include <string>

namespace btforge::amend {

enum class Selection : uint8_t { Keep, Drop };

// A name that selects no own type is a usage error.
Expected<ir::TypeGraph> select(const ir::TypeGraph& graph, Selection selection,
                               std::span<const std::string> names);

} // namespace btforge::amend
