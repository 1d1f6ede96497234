// DATASEC emission: the variables with a static address, as VARs in one DATASEC per section.
#pragma once

#include "dwarf/DwarfConversion.h"
#include "dwarf/Observations.h"

#include "btforge/Features.h"
#include "btforge/dwarf/UnitReader.h"
#include "btforge/elf/ElfSymbolTable.h"
#include "btforge/ir/TypeGraph.h"

namespace btforge::dwarf {

// Per-CPU variables: one VAR each, in DATASEC '.data..percpu' sorted by offset; with
// global_var, every variable with a static address, one DATASEC per data section.
void emitVariables(ir::TypeGraph& graph, const UnitObservations& obs,
                   const elf::ElfSymbolTable& elf, const UnitReader& reader,
                   const FeatureSet& features, DwarfConversionReport& report);

} // namespace btforge::dwarf
