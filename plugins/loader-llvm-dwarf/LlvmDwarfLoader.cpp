// Loader "llvm-dwarf": the DWARF of ELF files read with LLVM's DebugInfo library, converted by
// the same core as the "dwarf" loader; a second reader to check the first against.
#include "LlvmUnitReader.h"

#include "btforge/dwarf/DwarfLoader.h"

namespace btforge {
namespace {

class LlvmDwarfLoader final : public dwarf::DwarfLoader {
public:
    // Below the libdw loader's bid: chosen with -f llvm-dwarf.
    LlvmDwarfLoader() : DwarfLoader(40) {}

private:
    Expected<std::unique_ptr<dwarf::UnitReader>> openReader(const std::string& path) override {
        auto reader = dwarf::LlvmUnitReader::open(path);
        if (!reader)
            return std::move(reader).error();
        return std::unique_ptr<dwarf::UnitReader>(std::move(*reader));
    }
};

} // namespace
} // namespace btforge

BTFORGE_LOADER_PLUGIN("llvm-dwarf", "DWARF of ELF files, read with LLVM's DebugInfo library",
                      btforge::LlvmDwarfLoader);
