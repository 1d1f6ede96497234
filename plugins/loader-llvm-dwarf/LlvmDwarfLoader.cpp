// Loader "llvm-dwarf": the DWARF of ELF files read with LLVM's DebugInfo library, converted by
// the same core as the "dwarf" loader; a second reader to check the first. The reader itself is
// in a companion, loaded on first use (LlvmReaderModule.h).
#include "LlvmReaderModule.h"

#include "btforge/dwarf/DwarfLoader.h"
#include "btforge/dwarf/LoaderOptions.h"
#include "btforge/plugin/Companion.h"

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
            auto entry = plugin::loadCompanion<dwarf::OpenLlvmReader>(
                &kCompanionAnchor, dwarf::kReaderModuleFile, file->path() + ": llvm-dwarf");
            if (!entry)
                return std::move(entry).error();
            open_ = *entry;
        }
        return open_(file);
    }

    static constexpr char kCompanionAnchor = 0; // an address in this plugin
    dwarf::OpenLlvmReader open_ = nullptr;
};

} // namespace
} // namespace btforge

BTFORGE_LOADER_PLUGIN("llvm-dwarf", "DWARF of ELF files, read with LLVM's DebugInfo library",
                      btforge::LlvmDwarfLoader,
                      .capabilities = btforge::plugin::Capability::MakesVariables,
                      .options = btforge::dwarf::kLoaderOptions);
