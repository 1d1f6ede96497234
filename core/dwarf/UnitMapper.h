// Decides what each DIE of one unit means in BTF terms: types into a unit TypeGraph, functions
// and variables into observations. The single place where DWARF semantics live; both DWARF
// loaders feed it.
#pragma once

#include "dedup/GraphMerger.h"
#include "dwarf/CallingConvention.h"
#include "dwarf/Observations.h"

#include "btforge/dwarf/UnitDies.h"
#include "btforge/elf/Target.h"
#include "btforge/ir/TypeGraph.h"

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace btforge::dwarf {

using dedup::kNotPreMapped;

// DIEs of one tag the mapper could not express, counted; reported once per tag.
struct UnmappedDies {
    uint16_t tag = 0;
    DieOffset example = kNoDie;
    uint32_t count = 0;
    const char* why = "";
    std::string exampleName; // the example's DW_AT_name, if any
};

struct MappedUnit {
    ir::TypeGraph graph;
    // Per own type of `graph`: kNotPreMapped, or (for placeholders of DIEs in other units) the
    // merged id the caller resolved through `externals`.
    std::vector<ir::TypeId> preMapped;
    // Placeholder type id -> the DIE in another unit it stands for.
    std::vector<std::pair<ir::TypeId, DieOffset>> externals;
    // Abstract origins and declarations of its functions that lie in other units (partial units;
    // with link-time optimisation, other compile units).
    std::vector<DieOffset> outsideOrigins;
    // For partial and type units: every type DIE with its id, so later units can refer to them.
    std::vector<std::pair<DieOffset, ir::TypeId>> exportedTypes;
    UnitObservations observations;
    std::vector<UnmappedDies> unmapped;
    uint32_t referencesAsPointers = 0; // C++ references, encoded as PTR
};

// True for the tags of DIEs that are types (base, pointer, struct, typedef, array, ...).
bool isTypeDie(uint16_t tag);

// How a multi-dimensional array becomes BTF: int m[3][4] as ARRAY 3 of ARRAY 4 of int (Nested,
// as LLVM writes it), or as one ARRAY of 12 (Flattened, as pahole writes it: a module's types must
// be spelt as its base spells them to be found there).
enum class ArrayShape : uint8_t { Nested, Flattened };

// Which function definitions to observe, by name; empty: all.
using FunctionFilter = std::function<bool(std::string_view name)>;

// What mapping a unit needs to know beyond its DIEs.
struct MappingRules {
    ArrayShape arrays = ArrayShape::Nested;
    // DECL_TAGs for what BTF drops (LoaderOptions.h, declaration-tags): a DW_AT_alignment as the
    // attribute 'aligned(N)' of its struct, union or member; kNestedTypeTag on a member whose
    // anonymous type the struct's DIE holds; kLocalTypeTag on a type declared in a function.
    bool declarationTags = false;
    // The input's machine: how DWARF 2-4 number bitfield bits (from the storage unit's most
    // significant bit, which is its first byte only on a big-endian target), and the byte order
    // and pointer size of the unit's graph.
    elf::Target target;
    // Where arguments arrive, for the unexpected-register rule; nullptr: not checked.
    const CallingConvention* convention = nullptr;
    FunctionFilter observe;
};

// `unitOrder` is the unit's position in the input; it orders everything made from it.
MappedUnit mapUnit(const UnitDies& unit, uint32_t unitOrder, const MappingRules& rules);

} // namespace btforge::dwarf
