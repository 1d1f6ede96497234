// Loading one graph as every command does: the input opened once, the loader named or the best
// bidder, over its base.
#pragma once

#include "BaseCache.h"
#include "PluginRegistry.h"

#include "btforge/support/MappedFile.h"

#include <memory>
#include <optional>
#include <string>

namespace btforge::host {

// Where a graph comes from: the input, the loader that reads it and the base it continues.
struct GraphSource {
    std::string input;
    std::optional<std::string> loader; // chosen by probing the input when absent
    std::optional<std::string> base;   // implicit for /sys/kernel/btf/<module>
    // What the input carries (dump, diff): an ELF file's .BTF when it has one, as bpftool reads
    // it, rather than the DWARF convert makes BTF from.
    bool carried = false;
    // The base already read (a batch reads it once for all its inputs); else `base` is read.
    std::shared_ptr<const ir::TypeGraph> loadedBase;
    // Where the base is looked for prepared, and prepared for later runs (--base-cache).
    std::shared_ptr<const BaseCache> baseCache;
};

// Opens an input once, as every command does (MappedFile's rules, --stream-limit): the loader
// probes and reads these bytes, never the path again.
Expected<std::shared_ptr<MappedFile>> openInput(const std::string& path,
                                                const plugin::Session& session);

// Reads a base (-B) as loadGraph does: always its BTF (raw, or an ELF file's .BTF); from
// `cache` when it holds the base prepared, else read and then prepared there. Timed as the
// "base" phase (--stats).
Expected<std::shared_ptr<const ir::TypeGraph>> loadBase(const PluginRegistry& registry,
                                                        const std::string& path,
                                                        plugin::Session& session,
                                                        const BaseCache* cache = nullptr);

// Loads one graph as every command does: the loader named or the best bidder, over its base.
// `loaderUsed`, when given, receives the descriptor of the loader that read it; `input`, when
// given, is source.input already opened.
Expected<ir::TypeGraph> loadGraph(const PluginRegistry& registry, const GraphSource& source,
                                  plugin::Session& session,
                                  const plugin::PluginDescriptor** loaderUsed = nullptr,
                                  std::shared_ptr<MappedFile> input = nullptr);

} // namespace btforge::host
