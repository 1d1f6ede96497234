// Loader "llvm-dwarf": the DWARF of ELF files read with LLVM's DebugInfo library, converted by
// the same core as the "dwarf" loader; a second reader to check the first. The reader itself is
// in a module of its own, loaded on first use (LlvmReaderModule.h).
#include "LlvmReaderModule.h"

#include "btforge/dwarf/DwarfLoader.h"
#include "btforge/dwarf/LoaderOptions.h"

#include <dlfcn.h>

namespace btforge {
namespace {

class LlvmDwarfLoader final : public dwarf::DwarfLoader {
public:
    // Below the libdw loader's bid: chosen with -f llvm-dwarf.
    LlvmDwarfLoader() : DwarfLoader(40) {}

private:
    // No alt file: LLVM does not follow .gnu_debugaltlink, and the reader refuses such inputs;
    // one given (--dwarf-alt) is refused rather than ignored.
    Expected<std::unique_ptr<dwarf::UnitReader>> openReader(const std::shared_ptr<MappedFile>& file,
                                                            const std::string& alt) override {
        if (!alt.empty())
            return Error::usage(file->path() + ": --dwarf-alt " + alt +
                                ": the llvm-dwarf loader reads no alt file (LLVM does not follow "
                                ".gnu_debugaltlink); read it with -f dwarf");
        if (!open_) {
            auto module = loadModule(file->path());
            if (!module)
                return std::move(module).error();
            open_ = *module;
        }
        return open_(file);
    }

    // The module sits next to this plugin. It stays loaded until the process ends: LLVM does
    // not support being unloaded, and readers it made may still be alive.
    static Expected<dwarf::OpenLlvmReader> loadModule(const std::string& input) {
        Dl_info self{};
        if (!dladdr(reinterpret_cast<void*>(&LlvmDwarfLoader::loadModule), &self) ||
            !self.dli_fname)
            return Error::io(input + ": llvm-dwarf: cannot find where its plugin is");
        std::string file = self.dli_fname;
        file = file.substr(0, file.find_last_of('/') + 1) + dwarf::kReaderModuleFile;
        void* module = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
        const char* problem = module ? nullptr : dlerror();
        auto* symbol =
            module
                ? static_cast<const dwarf::OpenLlvmReader*>(dlsym(module, dwarf::kOpenReaderSymbol))
                : nullptr;
        if (!symbol)
            return Error::io(input + ": llvm-dwarf: cannot load its reader " + file + " (" +
                             (problem ? problem : "no entry point") + ")");
        return *symbol;
    }

    dwarf::OpenLlvmReader open_ = nullptr;
};

} // namespace
} // namespace btforge

BTFORGE_LOADER_PLUGIN("llvm-dwarf", "DWARF of ELF files, read with LLVM's DebugInfo library",
                      btforge::LlvmDwarfLoader,
                      .capabilities = btforge::plugin::Capability::MakesVariables,
                      .options = btforge::dwarf::kLoaderOptions);
