// Finds plugin libraries, loads them with Boost.DLL and checks their ABI version.
//
// An emitter's library named libbtforge-emitter-NAME.so is loaded only when a run asks for emitter
// NAME, for all emitters, or lists the plugins: a run writes with one emitter, and loading the
// others cost a small module's run 3-4 % of its time (a kernel build starts btforge once per
// module). Such a library must hold emitter NAME. Every other library is loaded at the start.
#pragma once

#include "btforge/plugin/Plugin.h"

#include <boost/dll/shared_library.hpp>

#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace btforge::host {

struct LoadedPlugin {
    boost::dll::shared_library library; // keeps the code mapped while the plugin is used
    const plugin::PluginDescriptor* descriptor;
    std::string path;
    plugin::OptionValues options; // its declared options: defaults, then --plugin-opt values
    size_t order;                 // its place in the search: the first of a kind and name wins
};

// An option of the emitter's own set by a convert option (Cli's emitter shorthands).
struct EmitterSetting {
    std::string flag; // the convert option, for messages
    std::string key;
    std::string value;
};

struct PluginFailure {
    std::string path;
    std::string reason;
};

// A plugin not used because one of the same kind and name came earlier in the search path.
struct ShadowedPlugin {
    std::string name;
    plugin::PluginKind kind;
    std::string path; // the plugin not used
    std::string by;   // the one used instead
};

class PluginRegistry {
public:
    // Searches the directories in order; the first plugin of a given kind and name wins.
    void discover(const std::vector<std::string>& directories);
    // Applies --plugin-opt NAME.KEY=VALUE settings: to the plugins named NAME that declare KEY
    // (a loader and an emitter may share a name); a usage error when none does.
    Expected<void> configure(const std::vector<std::string>& settings);
    // Applies the shorthands of loader options (--lang-exclude, ...): each KEY's value to every
    // loader that declares KEY, so to whichever reads the input; to none when none does (BTF
    // input has no DWARF units to exclude).
    void configureLoaders(const plugin::OptionValues& settings);
    // Applies convert's shorthands of an emitter's options (-C, ...) to the emitter of that name;
    // a usage error naming the option when it declares no such key.
    Expected<void> configureEmitter(std::string_view name,
                                    const std::vector<EmitterSetting>& settings);
    // The values loaders were given for KEY, other than empty (--dwarf-alt's files, to check).
    std::vector<std::string> loaderValues(std::string_view key) const;

    // Every plugin (all libraries loaded first), in search order; what failed or was shadowed.
    std::vector<const LoadedPlugin*> plugins() const;
    const std::vector<PluginFailure>& failures() const { return failures_; }
    const std::vector<ShadowedPlugin>& shadowed() const { return shadowed_; }
    // The paths of the plugins `p` shadows.
    std::vector<std::string> shadowedBy(const LoadedPlugin& p) const;
    const LoadedPlugin* find(plugin::PluginKind kind, std::string_view name) const;
    // In search order.
    std::vector<const LoadedPlugin*> ofKind(plugin::PluginKind kind) const;

private:
    // An emitter library not loaded yet, and the emitter its file name says it holds.
    struct Deferred {
        std::string path;
        std::string emitter;
        size_t order;
        bool loaded = false;
    };
    // Loading on demand changes no answer a caller already had: each accessor first loads every
    // library that could hold what it returns, so a plugin handed out stays the winner. Under
    // `loading_`: a batch conversion looks plugins up on several workers at once.
    void loadDeferred(std::string_view emitter) const; // empty: every emitter
    void loadLibrary(const std::string& path, size_t order,
                     std::string_view expectedEmitter = {}) const;
    // The loaded plugins `keep` accepts, in search order (loading on demand appends out of it).
    template <typename Keep> std::vector<const LoadedPlugin*> inOrder(Keep&& keep) const;

    // A deque: loading more never moves a plugin already handed out.
    mutable std::deque<LoadedPlugin> plugins_;
    mutable std::vector<Deferred> deferred_;
    mutable std::vector<PluginFailure> failures_;
    mutable std::vector<ShadowedPlugin> shadowed_;
    mutable std::mutex loading_;
};

// Where plugins are looked for: --plugin-dir values, then $BTFORGE_PLUGIN_PATH (colon-separated),
// then plugins/ next to the executable (a build tree), then the installed plugin directory.
std::vector<std::string> pluginSearchPath(const std::vector<std::string>& pluginDirs);

} // namespace btforge::host
