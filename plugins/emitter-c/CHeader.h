// The c emitter prints with libbpf's btf_dump, in a companion (btforge/plugin/Companion.h) linked
// against libbpf: its entry writes the header of a graph.
#pragma once

#include "btforge/plugin/Plugin.h"

#include <ostream>

namespace btforge::cheader {

using EmitC = Expected<void> (*)(const ir::TypeGraph& graph, const plugin::EmitRequest& request,
                                 std::ostream& out, plugin::Session& session);

inline constexpr const char* kCompanionFile = "btforge-c-header.so";

} // namespace btforge::cheader
