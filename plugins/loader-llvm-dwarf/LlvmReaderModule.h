// The llvm-dwarf loader is two shared objects: the plugin, which the host loads with every other
// one at every start, and the reader module, linked against libLLVM (~100 MB, ~45 MB resident
// once its relocations are applied), which the plugin loads only when it reads an input. The
// module exports one symbol, kOpenReaderSymbol: a pointer to the function below.
#pragma once

#include "btforge/dwarf/UnitReader.h"
#include "btforge/support/MappedFile.h"

#include <memory>
#include <string>

namespace btforge::dwarf {

using OpenLlvmReader =
    Expected<std::unique_ptr<UnitReader>> (*)(const std::shared_ptr<MappedFile>& file);

inline constexpr const char* kReaderModuleFile = "btforge-llvm-dwarf-reader.so";
inline constexpr const char* kOpenReaderSymbol = "btforge_open_llvm_reader";

} // namespace btforge::dwarf
