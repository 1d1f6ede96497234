// The address-carrying FUNC extension (docs/func-addr-extension.md): a FUNC with
// kind_flag 1 is followed by `struct btf_func { __u64 addr; }`, one FUNC per function address.
// Its markers, and the conversions to the forms stock tools read.
#pragma once

#include "btforge/Export.h"
#include "btforge/ir/TypeGraph.h"
#include "btforge/support/Error.h"

#include <optional>
#include <string>
#include <string_view>

namespace btforge::btf {

// DECL_TAGs (component_idx -1) on a FUNC that make the extension self-describing:
// "func_addr:base=<symbol>" on the first FUNC with an address says addresses are relative to that
// symbol, "func_addr:absolute" that they are not, "func_addr:section-offset" that they are offsets
// into the function's section (relocatable files: kernel modules);
// "func_addr:not-in-standard=<reason>" on a name's first FUNC says standard BTF leaves the name
// out, and why (a name at several addresses, or instances without code that contradict the one at
// the address).
inline constexpr std::string_view kFuncAddrBasePrefix = "func_addr:base=";
inline constexpr std::string_view kFuncAddrAbsolute = "func_addr:absolute";
inline constexpr std::string_view kFuncAddrSectionOffset = "func_addr:section-offset";
inline constexpr std::string_view kFuncAddrNotInStandardPrefix = "func_addr:not-in-standard=";
// The original RFC's form: one DECL_TAG per address on a FUNC without one.
inline constexpr std::string_view kAddressTagPrefix = "address=";

BTFORGE_API bool isFuncAddrMarker(std::string_view tag);
BTFORGE_API std::string funcAddrBaseMarker(std::optional<std::string_view> baseSymbol,
                                           bool sectionOffsets = false);

// The first FUNC carrying an address, or void when the graph is standard BTF.
BTFORGE_API ir::TypeId firstAddressedFunc(const ir::TypeGraph& graph);

// Both conversions return a graph without addresses unchanged.

// Extension -> standard BTF: a name keeps its FUNC (without address) when it has exactly one and
// no not-in-standard marker; the others are dropped, as the DWARF path drops them, and so are the
// markers and the FUNC_PROTOs only dropped FUNCs used.
// On the extension the DWARF loader writes, the result equals what it writes as standard BTF.
BTFORGE_API ir::TypeGraph funcAddrToStandard(ir::TypeGraph graph);

// Extension -> the RFC's DECL_TAG form: one FUNC per name and prototype, followed by one
// "address=0x..." DECL_TAG per address it has (relative to the same base, whose marker stays).
BTFORGE_API ir::TypeGraph funcAddrToDeclTags(ir::TypeGraph graph);

} // namespace btforge::btf
