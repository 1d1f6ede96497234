// Parses and validates raw BTF bytes into a TypeGraph.
#pragma once

#include "btforge/Export.h"
#include "btforge/ir/TypeGraph.h"
#include "btforge/support/Error.h"

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string>

namespace btforge::btf {

struct ReadOptions {
    // Named in every error message ("vmlinux: .BTF: offset 0x1c: ...").
    std::string sourceName;
    // For split BTF: ids and string offsets continue this graph.
    std::shared_ptr<const ir::TypeGraph> base;
    // Accept the address-carrying FUNC extension (a FUNC with kind_flag 1 and 8 bytes of
    // address after it); otherwise such a FUNC is an error naming the extension. With it comes
    // and the extension's layout-described form (kind 20, BtfFormat.h kFuncAddrKind).
    bool funcAddresses = false;
    // Told once when records of kinds this reader does not know were stepped over (the file's
    // kind-layout section gives their size) and dropped, with how many; unset: not told.
    std::function<void(const std::string&)> warning;
    // What keeps the bytes read alive (the input's mapping), if anything: the graph then uses
    // its string section where it lies and gives the type section's pages back once read.
    std::shared_ptr<const void> owner;
};

// Reads either byte order and any header length >= 24, the 2026 kind-layout section (header of
// 32 bytes or more) and 24-bit vlen. Everything is checked before it is used: header fields,
// section bounds, string offsets, kinds, vlen against the section size, type ids, and reference
// loops. A kind above 19 that the layout section describes is stepped over and dropped (types
// after it are renumbered, references to it read as void); one it does not describe is an error.
// The graph's byteOrder() is the input's.
BTFORGE_API Expected<ir::TypeGraph> readBtf(std::span<const std::byte> bytes,
                                            const ReadOptions& options);

// BTF does not say how wide a pointer is; its `long` does (the kernel's and every C ABI btforge
// knows has pointer-sized longs): sets the graph's pointer size from its own types. A graph
// without a `long` keeps its base's, or the default. readBtf calls it; other loaders of BTF's
// content (the json loader) too.
BTFORGE_API void judgePointerSize(ir::TypeGraph& graph);

// True when the bytes start with the BTF magic in either byte order.
BTFORGE_API bool looksLikeBtf(std::span<const std::byte> head);

} // namespace btforge::btf
