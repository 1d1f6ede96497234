// DWARF -> TypeGraph, the whole way: units read and mapped in parallel, merged into one
// deduplicated graph, then functions decided and variables placed. Both DWARF loaders call this
// with their own UnitReader.
#pragma once

#include "dwarf/FunctionDecisions.h"
#include "dwarf/UnitMapper.h"

#include "btforge/Features.h"
#include "btforge/dwarf/UnitReader.h"
#include "btforge/elf/ElfSymbolTable.h"
#include "btforge/ir/TypeGraph.h"
#include "btforge/plugin/Session.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace btforge::dwarf {

struct DwarfConversionOptions {
    FeatureSet features = FeatureSet::defaults();
    std::vector<uint16_t> excludedLanguages; // DW_LANG_* codes whose units are skipped
    // Off: every unit's types as they are, one after another (what a dedup pass starts from).
    bool dedup = true;
    // Multi-dimensional arrays without a base; over a base, as the base spells them.
    ArrayShape arrays = ArrayShape::Flattened;
    // What declarations say that BTF drops, as DECL_TAGs (MappingRules::declarationTags).
    bool declarationTags = false;
    // Without dedup: units are read until these types are found as pahole finds -C names
    // (UnitNameLookup); the rest are not read. Empty: every unit.
    std::vector<std::string> readUntil;
    // Types alone: no FUNCs, VARs or DATASECs. Without dedup the merger, which only decides
    // functions then, does not run at all.
    bool typesOnly = false;
    // Per address: one FUNC with an address for each function address (the extension).
    FunctionGranularity functions = FunctionGranularity::PerName;
    // Per address: the symbol addresses are relative to, when the ELF file has it; empty or
    // missing: absolute addresses.
    std::string addressBase = "_text";
};

struct SkippedFunction {
    std::string name;
    std::string reason;
    std::string detail;
    std::optional<uint64_t> address; // per address: the address left without a FUNC
};

struct DwarfConversionReport {
    std::vector<SkippedFunction> skippedFunctions; // sorted by name
    std::vector<UnmappedDies> unmapped;
    uint32_t referencesAsPointers = 0;
    uint32_t unitsExcluded = 0;
    uint32_t unresolvedReferences = 0; // references into units btforge could not read
    uint64_t typesBeforeDedup = 0;
    bool declarationsCutShort = false; // GraphMerger::Result's
    uint32_t functions = 0;
    uint32_t variables = 0;
    // Whether parameters were checked against the target's argument registers, and why not.
    std::string registerCheck;
};

// Multi-dimensional arrays are as options.arrays says, or over a base as the base spells them
// (flattened unless it has an ARRAY of ARRAY), so the unit's types are found in the base instead
// of being repeated.
Expected<ir::TypeGraph> convertDwarf(UnitReader& reader, const elf::ElfSymbolTable& elf,
                                     std::shared_ptr<const ir::TypeGraph> base,
                                     plugin::Session& session,
                                     const DwarfConversionOptions& options,
                                     DwarfConversionReport& report);

// The words of a comma-separated option value, empty ones left out.
std::vector<std::string_view> commaSeparated(std::string_view list);

// Parses --lang-exclude style names ("rust,go") into DW_LANG codes.
Expected<std::vector<uint16_t>> parseLanguages(std::string_view names);

} // namespace btforge::dwarf
