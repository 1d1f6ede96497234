// Reading one DIE's attribute values with LLVM into what the reader rules take (DieAttributes,
// DieAttributes.h): LlvmUnitReader's attribute decoder.
#pragma once

#include "btforge/dwarf/DieAttributes.h"
#include "btforge/dwarf/UnitDies.h"

#include <cstdint>
#include <llvm/DebugInfo/DWARF/DWARFDataExtractor.h>
#include <llvm/DebugInfo/DWARF/DWARFDebugInfoEntry.h>
#include <llvm/DebugInfo/DWARF/DWARFFormValue.h>
#include <llvm/DebugInfo/DWARF/DWARFUnit.h>
#include <optional>
#include <string>
#include <vector>

namespace btforge::dwarf {

class LlvmUnitReader;

// Where a DIE is read from: the reader (addresses, type unit signatures), its unit, the unit's
// section data and forms, where the unit ends, the key of the unit's header (unit-relative
// references), and the unit's string section up to its last NUL (strings inside it end there).
struct DieSource {
    const LlvmUnitReader& reader;
    llvm::DWARFUnit& unit;
    const llvm::DWARFDataExtractor& data;
    const llvm::dwarf::FormParams& params;
    uint64_t end;
    DieOffset unitStart;
    llvm::StringRef strings;
};

// Decodes the attributes of the DIE at `dieOffset`, whose abbreviation is `decl` and whose values
// start at `*at`, into `die` of `out`: the values the rules use, the others stepped over; the
// first address range when the rules need one for a low_pc. Moves `*at` past the values; false
// when they run past the unit.
bool decodeAttributes(const DieSource& where, const llvm::DWARFAbbreviationDeclaration& decl,
                      uint64_t dieOffset, uint64_t* at, UnitDies& out, Die& die,
                      std::vector<LocationOp>& scratchOps);
// Steps `*at` over the values of a DIE whose abbreviation is `decl`; false when they run past
// the unit.
bool skipAttributes(const DieSource& where, const llvm::DWARFAbbreviationDeclaration& decl,
                    uint64_t* at);

// What is wrong with the values of a DIE (abbreviation `decl`, values at `at`) that
// decodeAttributes or skipAttributes refused: which attribute has an unknown form or runs past
// the unit, as the libdw reader words it.
std::string valuesProblem(const DieSource& where, const llvm::DWARFAbbreviationDeclaration& decl,
                          uint64_t at);

// A constant as libdw's dwarf_formudata reads it: the signed forms as their bits.
std::optional<uint64_t> unsignedValue(const llvm::DWARFFormValue& value);
// A string value, or null.
const char* stringValue(const llvm::DWARFFormValue& value);

} // namespace btforge::dwarf
