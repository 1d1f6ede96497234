// FUNC emission: the functions decideFunctions chose become FUNC_PROTOs, FUNCs and their
// DECL_TAGs (kfunc tags, per-address markers), in the order of the decisions.
#pragma once

#include "dwarf/DwarfConversion.h"
#include "dwarf/Observations.h"

#include "btforge/dwarf/UnitReader.h"
#include "btforge/elf/ElfSymbolTable.h"
#include "btforge/ir/TypeGraph.h"

namespace btforge::dwarf {

// Decides the functions on `graph` (the deduplicated types) and the observations `all`, and
// writes them into `output` with the types of `written`: `all` again, or the same observations
// with the ids of the --no-dedup graph.
Expected<void> emitFunctions(ir::TypeGraph& output, const ir::TypeGraph& graph,
                             const UnitObservations& all, const UnitObservations& written,
                             const elf::ElfSymbolTable& elf, const UnitReader& reader,
                             const DwarfConversionOptions& options, DwarfConversionReport& report);

} // namespace btforge::dwarf
