// Reads the JSON `bpftool btf dump file X -j` and `btforge dump --json` write back into a type
// graph, for BTF rewritten by hand or by script (docs/json-rewriting.md says what it accepts).
#pragma once

#include "btforge/btf/BtfFormat.h"
#include "btforge/ir/TypeGraph.h"
#include "btforge/support/Error.h"

#include <cstddef>
#include <memory>
#include <span>
#include <string>

namespace btforge::json {

struct JsonReadOptions {
    // Named in every error message ("types.json: /types/12/members/2/type_id: ...").
    std::string sourceName;
    // For split BTF: the JSON's ids continue this graph's, and may refer to its types.
    std::shared_ptr<const ir::TypeGraph> base;
    // The longest list a type may have (its vlen): classic BTF's 65535, or the layout feature's.
    uint32_t maxVlen = btf::kMaxVlen;
};

// Ids need not be contiguous: types are numbered in the order of their ids (after the base's,
// for split BTF) and references follow. Every error names the file and the JSON pointer of the
// value at fault, or the byte offset (with line and column) of a syntax error.
Expected<ir::TypeGraph> readBpftoolJson(std::span<const std::byte> bytes,
                                        const JsonReadOptions& options);

// The json loader reads with Boost.JSON in a companion (btforge/plugin/Companion.h), whose entry
// is readBpftoolJson.
using ReadBpftoolJson = Expected<ir::TypeGraph> (*)(std::span<const std::byte> bytes,
                                                    const JsonReadOptions& options);
inline constexpr const char* kReaderCompanionFile = "btforge-json-reader.so";

} // namespace btforge::json
