// The order bpftool 7.5 prints types in (`btf dump file X format c`, sorted by default) and the
// kfunc prototypes it adds: what the c emitter's bpftool=7.5 option reproduces.
#pragma once

#include <cstdint>
#include <vector>

struct btf;

namespace btforge::cheader {

// The ids to hand btf_dump, in bpftool 7.5's order: by a rank of kind (enums, then base types,
// structs and unions, prototypes; what has no name last), then the name the type is known by
// (a pointer's or typedef's target's, an anonymous enum's first enumerator), its own name, a hash
// of its names and shape, and id.
std::vector<uint32_t> bpftoolSortedOrder(const ::btf& types);

// The FUNCs a "bpf_kfunc" DECL_TAG marks (the kernel's kfuncs), by name, then id.
std::vector<uint32_t> taggedKfuncs(const ::btf& types);

} // namespace btforge::cheader
