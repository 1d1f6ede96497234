// Dumps a TypeGraph exactly as the reference bpftool (7.1) prints BTF, byte for byte, so btforge's
// output can be diffed against `bpftool btf dump file X` (text) and `... -j` (JSON).
#pragma once

#include "btforge/ir/TypeGraph.h"

#include <iosfwd>

namespace btforge::bpftool {

// Both print only the graph's own types: a split graph's ids continue its base, and base types
// appear only where an own type names them. Write errors are left in the stream's state.
void writeBpftoolText(const ir::TypeGraph& graph, std::ostream& out);
void writeBpftoolJson(const ir::TypeGraph& graph, std::ostream& out);

} // namespace btforge::bpftool
