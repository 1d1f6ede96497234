// The llvm-dwarf loader keeps its reader in a companion (btforge/plugin/Companion.h) linked
// against libLLVM (~100 MB, ~45 MB resident once its relocations are applied): its entry opens a
// reader on an input.
#pragma once

#include "btforge/dwarf/UnitReader.h"
#include "btforge/support/MappedFile.h"

#include <memory>

namespace btforge::dwarf {

using OpenLlvmReader =
    Expected<std::unique_ptr<UnitReader>> (*)(const std::shared_ptr<MappedFile>& file);

inline constexpr const char* kReaderModuleFile = "btforge-llvm-dwarf-reader.so";

} // namespace btforge::dwarf
