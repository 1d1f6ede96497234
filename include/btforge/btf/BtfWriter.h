// Serialises a TypeGraph as raw BTF (split BTF when the graph has a base).
#pragma once

#include "btforge/Export.h"
#include "btforge/ir/TypeGraph.h"
#include "btforge/support/Error.h"

#include <cstddef>
#include <iosfwd>
#include <vector>

namespace btforge::btf {

struct WriteOptions {
    // Defaults to the graph's own byte order (the input's, for graphs read from BTF).
    std::optional<ir::ByteOrder> byteOrder;
    // Write a FUNC with an address in the address-carrying FUNC extension (kind_flag 1, then
    // the address as 8 bytes in the output's byte order); otherwise such a FUNC is an error.
    bool funcAddresses = false;
    // The 2026 format (pahole's `layout` feature): a 32-byte header locating a kind-layout
    // section, 24-bit vlen, and an addressed FUNC as a kind of its own (kFuncAddrKind) that the
    // section describes. Off: the classic 24-byte header, as every older reader expects.
    bool layout = false;
    // A split graph as standalone BTF: its base's types, then its own, under the same ids; the
    // string section is the base's and the graph's string pools end to end, so every name keeps
    // its offset. For readers that take no base (libbpf 1.1 exports no btf__new_split).
    bool withBase = false;
};

// The string section is rebuilt in first-use order (so the output is a function of the types
// alone); a split graph reuses the base's strings. Fails on what BTF cannot hold: a vlen over
// 65535 (16777215 with layout), a FUNC address (unless funcAddresses: standard BTF has no place for
// one), a bitfield size over 255.
BTFORGE_API Expected<std::vector<std::byte>> writeBtf(const ir::TypeGraph& graph,
                                                      const WriteOptions& options = {});

// The same, written to `out` (nothing is written when it fails).
BTFORGE_API Expected<void> writeBtf(std::ostream& out, const ir::TypeGraph& graph,
                                    const WriteOptions& options = {});

} // namespace btforge::btf
