// What libbpf 1.1's btf_dump would do with a graph, judged before it runs. btf_dump (bpftool's
// printer, and the c emitter's) trusts its BTF: it recurses once per level of nesting, walks
// again what several types share (alignments, anonymous types printed inline), computes bit
// offsets in int and divides by alignments. On BTF no compiler makes it then overflows the stack,
// recurses without end, takes exponential time or memory, or divides by zero; bpftool crashes
// the same way. These checks follow its code (src/btf_dump.c, btf__align_of, btf__resolve_size)
// and refuse such a graph with one line instead.
#pragma once

#include "btforge/ir/TypeGraph.h"
#include "btforge/support/Error.h"

#include <cstddef>
#include <cstdint>

namespace btforge::cheader {

// `btfBytes`: the size of the BTF libbpf is given, which the header may outgrow only so far.
Expected<void> checkDumpLimits(const ir::TypeGraph& graph, size_t btfBytes);

// The most header a graph that passes may print, for BTF of `btfBytes` (c-emitter-fuzz holds
// btf_dump to it).
uint64_t maxHeaderBytes(size_t btfBytes);

} // namespace btforge::cheader
