// After every unit is read: which functions become FUNC records, and why the others do not.
// One deterministic pass over all observations (seeds 000-002): per name, the ELF symbols it has
// and every instance the DWARF shows are combined into one decision.
#pragma once

#include "btforge/Features.h"
#include "btforge/dwarf/Observations.h"
#include "btforge/dwarf/UnitReader.h"
#include "btforge/elf/ElfSymbolTable.h"
#include "btforge/ir/TypeGraph.h"

#include <string>
#include <vector>

namespace btforge::dwarf {

struct FunctionDecision {
    std::string_view name;
    // The instance whose prototype the FUNC takes (the first in unit order), or null if skipped.
    const FunctionObservation* chosen = nullptr;
    std::string_view skipReason; // empty when emitted
    std::string detail;          // what disagrees, and where (DIE offsets), for the skip report
    size_t instances = 0;        // observations of this name
    size_t addresses = 0;        // distinct ELF addresses of this name
};

// `observations` must already carry final ids of `graph` (so equal types have equal ids).
// Decisions come sorted by name.
std::vector<FunctionDecision> decideFunctions(const ir::TypeGraph& graph,
                                              const UnitObservations& observations,
                                              const elf::ElfSymbolTable& elf,
                                              const UnitReader& reader, const FeatureSet& features);

} // namespace btforge::dwarf
