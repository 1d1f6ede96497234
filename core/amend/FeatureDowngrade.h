// Features off, applied to types already encoded (BTF read back, or what a DWARF loader made):
// the encoding an older kernel or pahole without the feature gives.
//
//  decl_tag off        DECL_TAGs are removed (nothing refers to them).
//  decl_tag_kfuncs off DECL_TAG "bpf_kfunc" on FUNCs is removed.
//  type_tag off        TYPE_TAGs are removed; what referred to one refers to its target.
//  enum64 off          ENUM64 becomes ENUM of the same size with each value's low 32 bits, as
//                      pahole writes it without enum64; kind_flag (signedness) is cleared on
//                      every ENUM: kernels before ENUM64 (6.0) refuse it.
//  float off           FLOAT becomes an unsigned INT of its size, as pahole writes it without
//                      btf_gen_floats (kernels before 5.13 refuse FLOAT).
// Types of a base graph stay as they are (split BTF cannot change its base). Ids are renumbered
// in order, so the result is a function of the input and the features alone.
#pragma once

#include "btforge/Features.h"
#include "btforge/ir/TypeGraph.h"

#include <optional>

namespace btforge::amend {

// The downgraded graph, or nullopt when no feature that is off has anything to change.
std::optional<ir::TypeGraph> downgrade(const ir::TypeGraph& graph, const FeatureSet& features);

} // namespace btforge::amend
