// Location expressions and lists read straight from their sections. libdw keeps every location
// it decodes until the file is closed (tens of MB on a kernel), while the rules only ever look at
// a list's first expression and at entry-value registers: decoding them here keeps that memory.
#pragma once

#include "btforge/dwarf/UnitDies.h"

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace btforge::dwarf {

enum class Decoded : uint8_t {
    Ok,
    NeedsAddressTable, // DW_OP_addrx and kin: the address is in .debug_addr (ask libdw)
    Malformed,
};

// Appends the operations of one expression to `ops`. Operations after one this decoder does not
// know are not appended (their operand sizes are unknown); the ones before it are. Fixed-size
// operands are in the file's byte order.
Decoded decodeExpression(std::span<const uint8_t> bytes, uint8_t addressSize, bool bigEndian,
                         std::vector<LocationOp>& ops);

// Calls visit(expression bytes) for each entry of the location list at `offset`: DWARF 5
// .debug_loclists entries when version >= 5, else .debug_loc pairs. False when malformed.
bool forEachLocationEntry(std::span<const uint8_t> section, uint64_t offset, uint16_t version,
                          uint8_t addressSize, bool bigEndian,
                          const std::function<void(std::span<const uint8_t>)>& visit);

} // namespace btforge::dwarf
