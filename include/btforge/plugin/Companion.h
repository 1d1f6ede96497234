// A plugin's companion: a shared object beside the plugin that holds the part of its work that
// needs a large library (libLLVM, libbpf, Boost.JSON). The host loads every loader plugin (and
// every plugin not named for its emitter) at every start, and a kernel build starts btforge once
// per module: a plugin that linked such a library itself would make every run map and relocate
// it. The plugin loads its companion the first time it is used; the companion stays loaded until
// the process ends (LLVM cannot be unloaded, and what it made may still be alive).
//
// A companion exports one symbol, kCompanionSymbol: a Companion<Entry> whose entry is what the
// plugin calls (a function pointer whose type the two agree on). It is not named libbtforge-*,
// so the host never takes it for a plugin.
#pragma once

#include "btforge/Export.h"
#include "btforge/plugin/Plugin.h"
#include "btforge/support/Error.h"

#include <cstdint>
#include <string>

namespace btforge::plugin {

inline constexpr const char* kCompanionSymbol = "btforge_companion";

template <typename Entry> struct Companion {
    uint32_t abiVersion; // kAbiVersion of the btforge it was built with: first, as a plugin's
    Entry entry;
};

// The address of symbol `symbol` in `file`, loaded from the directory of the plugin that holds
// `anchor` (any address in its code or data). `user` names what needed it, for the error: a
// one-line reason when the companion is missing or cannot be loaded.
BTFORGE_API Expected<const void*> companionSymbol(const void* anchor, const std::string& file,
                                                  const char* symbol, const std::string& user);

// The entry of companion `file` of the plugin holding `anchor`, checked against this ABI.
template <typename Entry>
Expected<Entry> loadCompanion(const void* anchor, const std::string& file,
                              const std::string& user) {
    auto symbol = companionSymbol(anchor, file, kCompanionSymbol, user);
    if (!symbol)
        return std::move(symbol).error();
    const auto& companion = *static_cast<const Companion<Entry>*>(*symbol);
    if (companion.abiVersion != kAbiVersion)
        return Error::io(user + ": companion " + file + " has plugin ABI version " +
                         std::to_string(companion.abiVersion) + ", this btforge needs " +
                         std::to_string(kAbiVersion));
    return companion.entry;
}

} // namespace btforge::plugin

// Defines the exported entry of a companion.
#define BTFORGE_COMPANION(ENTRY_TYPE, ENTRY)                                                       \
    BTFORGE_PLUGIN_EXPORT const ::btforge::plugin::Companion<ENTRY_TYPE> btforge_companion {       \
        ::btforge::plugin::kAbiVersion, ENTRY                                                      \
    }
