// Loading a plugin's companion (btforge/plugin/Companion.h).
#include "btforge/plugin/Companion.h"

#include <dlfcn.h>

namespace btforge::plugin {

Expected<const void*> companionSymbol(const void* anchor, const std::string& file,
                                      const char* symbol, const std::string& user) {
    Dl_info plugin{};
    if (!dladdr(anchor, &plugin) || !plugin.dli_fname)
        return Error::io(user + ": cannot find where its plugin is");
    std::string path = plugin.dli_fname;
    path = path.substr(0, path.find_last_of('/') + 1) + file;
    // RTLD_NOW: a symbol the companion lacks is this error, not a crash in the middle of a run.
    void* module = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    const char* problem = module ? nullptr : dlerror();
    const void* address = module ? dlsym(module, symbol) : nullptr;
    if (!address) {
        if (module)
            dlclose(module); // of no use without its entry point
        return Error::io(user + ": cannot load its companion " + path + " (" +
                         (problem ? problem : "no entry point") + ")");
    }
    return address;
}

} // namespace btforge::plugin
