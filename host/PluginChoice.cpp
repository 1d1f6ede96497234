// Choosing the plugin a run uses: by name, by capability, or by the inputs' bids.
#include "PluginChoice.h"

#include "btforge/elf/ElfSections.h"

#include <cstdio>
#include <mutex>
#include <set>

namespace btforge::host {
namespace {

using plugin::PluginKind;

std::string namesOf(const PluginRegistry& registry, PluginKind kind) {
    std::string names;
    for (const LoadedPlugin* p : registry.ofKind(kind))
        names += (names.empty() ? "" : ", ") + std::string(p->descriptor->name);
    return names.empty() ? "none found; see 'btforge plugins'" : names;
}

// A plugin found earlier in the search path silently replaces one of the same name otherwise (an
// old plugin directory in BTFORGE_PLUGIN_PATH, a test's): each run that uses it says so, --quiet
// or not, as its output may differ from the plugin's it shadows (docs/security.md).
const LoadedPlugin* announced(const PluginRegistry& registry, const LoadedPlugin* p) {
    // A batch conversion chooses plugins on several workers at once.
    static std::mutex lock;
    static std::set<const LoadedPlugin*> told;
    std::lock_guard guard(lock);
    if (!told.insert(p).second)
        return p;
    const char* kind = p->descriptor->kind == PluginKind::Loader ? "loader" : "emitter";
    for (const std::string& shadowed : registry.shadowedBy(*p))
        std::fprintf(stderr, "btforge: note: %s '%s' is %s, which shadows %s\n", kind,
                     p->descriptor->name, p->path.c_str(), shadowed.c_str());
    return p;
}

} // namespace

Expected<const LoadedPlugin*> requirePlugin(const PluginRegistry& registry, PluginKind kind,
                                            const std::string& name) {
    if (const LoadedPlugin* p = registry.find(kind, name))
        return announced(registry, p);
    const char* what = kind == PluginKind::Loader ? "loader" : "emitter";
    return Error::usage("unknown " + std::string(what) + " '" + name +
                        "' (available: " + namesOf(registry, kind) + ")");
}

Expected<const LoadedPlugin*> btfLoader(const PluginRegistry& registry) {
    for (const LoadedPlugin* p : registry.ofKind(PluginKind::Loader)) {
        if (p->descriptor->has(plugin::Capability::ReadsBtf))
            return announced(registry, p);
    }
    return Error::usage("no loader reads BTF (loaders: " + namesOf(registry, PluginKind::Loader) +
                        ")");
}

Expected<const LoadedPlugin*> chooseLoader(const PluginRegistry& registry, const MappedFile& input,
                                           bool carried) {
    const std::string& path = input.path();
    if (carried && elf::looksLikeElf(input.bytes()) && elf::hasSection(input.bytes(), ".BTF"))
        return btfLoader(registry);
    plugin::InputProbe probe{path, input.bytes()};

    const LoadedPlugin* best = nullptr;
    unsigned bestScore = 0;
    for (const LoadedPlugin* p : registry.ofKind(PluginKind::Loader)) {
        unsigned score = p->descriptor->makeLoader()->probe(probe);
        if (score > bestScore) {
            best = p;
            bestScore = score;
        }
    }
    if (!best)
        return Error::badInput(path + ": no loader recognises this input (loaders: " +
                               namesOf(registry, PluginKind::Loader) + ")");
    return announced(registry, best);
}

} // namespace btforge::host
