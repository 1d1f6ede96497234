// Loader "dwarf": the DWARF of ELF files (executables, shared objects, relocatable objects
// such as kernel modules), read with elfutils libdw and converted by core.
#include "LibdwUnitReader.h"

#include "btforge/dwarf/DwarfLoader.h"
#include "btforge/dwarf/LoaderOptions.h"

namespace btforge {
namespace {

class LibdwLoader final : public dwarf::DwarfLoader {
public:
    // Above the btf loader's bid for ELF: DWARF is the richer source when both are there.
    LibdwLoader() : DwarfLoader(50) {}

private:
    Expected<std::unique_ptr<dwarf::UnitReader>> openReader(const std::shared_ptr<MappedFile>& file,
                                                            const std::string& altFile) override {
        auto reader = dwarf::LibdwUnitReader::open(file, altFile);
        if (!reader)
            return std::move(reader).error();
        return std::unique_ptr<dwarf::UnitReader>(std::move(*reader));
    }
};

} // namespace
} // namespace btforge

BTFORGE_LOADER_PLUGIN("dwarf", "DWARF of ELF files, read with elfutils libdw", btforge::LibdwLoader,
                      .capabilities = btforge::plugin::Capability::MakesVariables,
                      .options = btforge::dwarf::kLoaderOptions);
