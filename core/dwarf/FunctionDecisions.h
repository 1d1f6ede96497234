// After every unit is read: which functions become FUNC records, and why the others do not.
// One deterministic pass over all observations (docs/functions.md): per name, the ELF symbols it
// has and every instance the DWARF shows are combined into one decision.
#pragma once

#include "dwarf/Observations.h"

#include "btforge/Features.h"
#include "btforge/dwarf/UnitReader.h"
#include "btforge/elf/ElfSymbolTable.h"
#include "btforge/ir/TypeGraph.h"

#include <optional>
#include <string>
#include <vector>

namespace btforge::dwarf {

struct FunctionDecision {
    std::string_view name;
    // The instance whose prototype the FUNC takes (the first in unit order), or null if skipped.
    const FunctionObservation* chosen = nullptr;
    std::string_view skipReason; // empty when emitted
    std::string detail;          // what disagrees, and where (DIE offsets), for the skip report
    size_t instances = 0;        // observations of this name (at this address, per address)
    size_t addresses = 0;        // distinct ELF addresses of this name
    // Per address: the ELF address this decision is about (its symbol's value). Per name: the
    // name's one address when it has exactly one.
    std::optional<uint64_t> address;
    // The FUNC takes only the parameters that arrive (not kParamNotArriving): true_signature
    // for code the compiler re-signatured.
    bool trueSignature = false;
};

enum class FunctionGranularity {
    PerName,    // standard BTF: one FUNC per name, none for a name at several addresses
    PerAddress, // the address-carrying FUNC extension: one FUNC per address
};

// `observations` must already carry final ids of `graph` (so equal types have equal ids).
// Decisions come sorted by name (then address). Per address, each address of a name is decided
// on the instances whose code is there and the other definitions of their units (the abstract
// instance a concrete one refers to), so a prototype right for its address is kept whatever
// instances elsewhere say; an address no instance describes is skipped.
std::vector<FunctionDecision>
decideFunctions(const ir::TypeGraph& graph, const UnitObservations& observations,
                const elf::ElfSymbolTable& elf, const UnitReader& reader,
                const FeatureSet& features,
                FunctionGranularity granularity = FunctionGranularity::PerName);

} // namespace btforge::dwarf
