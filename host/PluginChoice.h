// Choosing the plugin a run uses: by name (-f, -t), by capability (the loader of BTF), or by
// the input's bids. A chosen plugin that shadows a built-in one says so on stderr, once.
#pragma once

#include "PluginRegistry.h"

#include "btforge/support/MappedFile.h"

#include <string>

namespace btforge::host {

// The plugin of that kind and name (usage error naming those there are).
Expected<const LoadedPlugin*> requirePlugin(const PluginRegistry& registry, plugin::PluginKind kind,
                                            const std::string& name);
// The loader that reads BTF as stored, for bases and what ELF files carry.
Expected<const LoadedPlugin*> btfLoader(const PluginRegistry& registry);
// The loader that bids highest for `input`; with `carried`, an ELF file's .BTF when it has one.
Expected<const LoadedPlugin*> chooseLoader(const PluginRegistry& registry, const MappedFile& input,
                                           bool carried);

} // namespace btforge::host
