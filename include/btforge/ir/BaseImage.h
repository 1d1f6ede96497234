// A base graph and what merging and function emission derive from it alone (the merge's index
// of the base, the appender's tables of its prototypes, FUNCs and DECL_TAGs), as one flat image:
// written once, then mapped by each later process that reads the same base, every table used
// where it lies. A kernel build's module step reads one vmlinux over a thousand times.
//
// An image is checked for its size and its key, not for what it holds: it is trusted as the
// user's own files are, and read only from where the host's base cache puts it
// (host/BaseCache.h).
#pragma once

#include "btforge/Export.h"
#include "btforge/ir/TypeGraph.h"

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

namespace btforge::ir {

// Takes the next block of an image; false when it could not (writing stops there).
using ImageSink = std::function<bool(std::span<const std::byte>)>;

// Writes the image of `base` (a graph without a base of its own), tagged with `key`, to `sink`
// in blocks of `blockSize` bytes (the last may be shorter); whether the sink took them all.
// Builds the derived tables if this process has not yet.
BTFORGE_API bool writeBaseImage(const std::shared_ptr<const TypeGraph>& base, std::string_view key,
                                const ImageSink& sink, size_t blockSize);
// The same image as one vector.
BTFORGE_API std::vector<std::byte> writeBaseImage(const std::shared_ptr<const TypeGraph>& base,
                                                  std::string_view key);

// The base an image holds, its derived tables installed for it, or null when the image was
// written for another key or is cut short. `bytes` must be 8-aligned (a mapping is) and stay
// alive, through `owner`, as long as the base does.
BTFORGE_API std::shared_ptr<const TypeGraph> readBaseImage(std::span<const std::byte> bytes,
                                                           std::string_view key,
                                                           std::shared_ptr<const void> owner);

} // namespace btforge::ir
