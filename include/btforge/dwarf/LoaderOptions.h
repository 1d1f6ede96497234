// The options every DWARF loader declares (--plugin-opt dwarf.KEY=VALUE), listed once here so
// that both loaders take the same keys and the host's shorthands (--lang-exclude, --dwarf-alt,
// --no-dedup, --nested-arrays, --func-addr-base, --func-addr) and emitter capabilities
// (NeedsFuncAddresses, ShowsDeclarations, ShowsTypesOnly) set them on whichever loader reads the
// input.
#pragma once

#include "btforge/plugin/Plugin.h"

namespace btforge::dwarf {

inline constexpr const char* kLanguageExcludeOption = "lang-exclude";
inline constexpr const char* kDwarfAltOption = "dwarf-alt";
inline constexpr const char* kDedupOption = "dedup";
inline constexpr const char* kNestedArraysOption = "nested-arrays";
inline constexpr const char* kFuncAddrBaseOption = "func-addr-base";
inline constexpr const char* kFuncPerAddressOption = "func-per-address";
inline constexpr const char* kDeclarationTagsOption = "declaration-tags";
inline constexpr const char* kReadUntilOption = "read-until";
inline constexpr const char* kTypesOnlyOption = "types-only";
// The DECL_TAG declaration-tags puts on a member whose anonymous type is declared inside its
// struct's DIE, right after it (clang does so; gcc declares such types outside).
inline constexpr std::string_view kNestedTypeTag = "btforge:nested";
// The DECL_TAG declaration-tags puts on a struct, union or enum defined inside a function.
inline constexpr std::string_view kLocalTypeTag = "btforge:local";
// The DECL_TAG declaration-tags puts, when units are not deduplicated, on the first type of each
// unit: pahole looks up -C names unit by unit, so a listing by name needs to know where units
// begin.
inline constexpr std::string_view kUnitTag = "btforge:unit";

// The reports a DWARF loader writes when the host asks (plugin::Session::reports): every
// function it left out with the reason, as JSON (--report-skipped), and as pahole --verbose's
// lines, "NAME : skipping BTF encoding of function due to REASON" (--list-skipped).
inline constexpr std::string_view kSkippedFunctionsReport = "skipped-functions";
inline constexpr std::string_view kSkippedFunctionLines = "skipped-function-lines";

inline constexpr plugin::OptionSpec kLoaderOptions[] = {
    {kLanguageExcludeOption, "rust",
     "skip units of these DWARF languages, comma-separated ('' for none; --lang-exclude)"},
    {kDwarfAltOption, "",
     "the file the input's .gnu_debugaltlink names (dwz -m), instead of looking for it "
     "(--dwarf-alt)"},
    {kDedupOption, "true",
     "false: keep every unit's types as read, to compare deduplicators (--no-dedup)"},
    {kNestedArraysOption, "false",
     "true: int m[3][4] as ARRAY of ARRAY, as LLVM writes it, not one ARRAY of 12 "
     "(--nested-arrays)"},
    {kFuncAddrBaseOption, "_text",
     "FUNC addresses are relative to this symbol when the input has it ('' = absolute; "
     "--func-addr-base)"},
    {kFuncPerAddressOption, "false",
     "true: one FUNC per function address, carrying it (the FUNC-address extension; --func-addr, "
     "-t btf-func-addr)"},
    {kDeclarationTagsOption, "false",
     "true: what declarations say that BTF has no room for, as DECL_TAGs: DW_AT_alignment as the "
     "attribute 'aligned(N)' (kind_flag 1) of its struct, union or member, 'btforge:nested' on a "
     "member whose anonymous type the struct's DIE holds, 'btforge:local' on a type defined in "
     "a function, and without dedup 'btforge:unit' on each unit's first type (set for emitters "
     "that show declarations, -t layout)"},
    {kReadUntilOption, "",
     "without dedup: stop reading units once these types (comma-separated) are found as pahole "
     "finds -C names, unit by unit (set by -t layout -C)"},
    {kTypesOnlyOption, "false",
     "true: types alone, no FUNCs, VARs or DATASECs; without dedup nothing is merged (set for "
     "emitters that show types only, -t layout)"},
};

} // namespace btforge::dwarf
