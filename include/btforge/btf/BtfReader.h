// Parses and validates raw BTF bytes into a TypeGraph.
#pragma once

#include "btforge/ir/TypeGraph.h"
#include "btforge/support/Error.h"

#include <cstddef>
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
    // address after it); otherwise such a FUNC is an error naming the extension.
    bool funcAddresses = false;
};

// Reads either byte order and any header length >= 24. Everything is checked before it is used:
// header fields, section bounds, string offsets, kinds, vlen against the section size, type ids,
// and reference loops. The graph's byteOrder() is the input's.
Expected<ir::TypeGraph> readBtf(std::span<const std::byte> bytes, const ReadOptions& options);

// True when the bytes start with the BTF magic in either byte order.
bool looksLikeBtf(std::span<const std::byte> head);

} // namespace btforge::btf
