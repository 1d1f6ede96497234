// Serialises a TypeGraph as raw BTF (split BTF when the graph has a base).
#pragma once

#include "btforge/ir/TypeGraph.h"
#include "btforge/support/Error.h"

#include <cstddef>
#include <vector>

namespace btforge::btf {

struct WriteOptions {
    // Defaults to the graph's own byte order (the input's, for graphs read from BTF).
    std::optional<ir::ByteOrder> byteOrder;
};

// The string section is rebuilt in first-use order (so the output is a function of the types
// alone); a split graph reuses the base's strings. Fails on what BTF cannot hold: a vlen over
// 65535, a FUNC address (standard BTF has no place for one), a bitfield size over 255.
Expected<std::vector<std::byte>> writeBtf(const ir::TypeGraph& graph,
                                          const WriteOptions& options = {});

} // namespace btforge::btf
