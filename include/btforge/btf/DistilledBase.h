// Distilled base BTF (pahole's `distilled_base`, libbpf's btf__distill_base and btf__relocate,
// a module's .BTF.base section): split BTF made independent of the exact base it was built over,
// so a kernel whose vmlinux BTF differs can relocate it at load time.
//
// Of the base types the split BTF uses, directly or through other base types:
//  INT, FLOAT, FWD        go to the distilled base as they are;
//  named STRUCT, UNION    go to the distilled base with their size and no members (the loader
//                         matches them by kind, name and size), and what they refer to is not
//                         followed;
//  named ENUM, ENUM64     go to the distilled base as an ENUM of their size with no values and
//                         kind_flag 0 (either kind of that name and size matches);
//  anything else          (anonymous STRUCT, UNION, ENUM, ENUM64; PTR, ARRAY, TYPEDEF,
//                         qualifiers, TYPE_TAG, FUNC_PROTO) is copied into the split BTF, after
//                         its own types.
// The distilled base keeps the base's order; the split BTF's own types keep theirs, followed by
// the copied ones in base order. A base FUNC, VAR, DATASEC or DECL_TAG used by the split BTF is
// an error: nothing in module BTF may refer to one.
#pragma once

#include "btforge/Export.h"
#include "btforge/ir/TypeGraph.h"
#include "btforge/support/Error.h"

#include <memory>

namespace btforge::btf {

struct DistilledBtf {
    // Standalone; its string ids are the offsets BtfWriter gives them (it was read back from
    // BTF), so split BTF written over it refers to its strings correctly.
    std::shared_ptr<const ir::TypeGraph> base;
    ir::TypeGraph split; // over `base`
};

// `split` must continue a base graph. `sourceName` names the input in errors.
BTFORGE_API Expected<DistilledBtf> distillBase(const ir::TypeGraph& split,
                                               const std::string& sourceName);

// The reverse, as module loading (and libbpf's btf__relocate) does it: `split`, over a distilled
// base, continued over `base` instead. Each distilled type stands for the one base type of its
// name that matches it: an INT of the same size and encoding, a FLOAT of the same size, an ENUM
// or ENUM64 of the same size, a FWD of the same flavour (or the STRUCT or UNION it declares), a
// STRUCT or UNION of the same kind, and of the same size when the split BTF holds it by value
// (a member, through typedefs, qualifiers and arrays) or the base has several of that name.
// None, or several, is an error naming the type.
BTFORGE_API Expected<ir::TypeGraph> relocateSplit(const ir::TypeGraph& split,
                                                  std::shared_ptr<const ir::TypeGraph> base,
                                                  const std::string& sourceName);

} // namespace btforge::btf
