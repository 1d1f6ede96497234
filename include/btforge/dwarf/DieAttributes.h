// What a kept DIE's attributes mean: a reader hands each attribute's value, read from its form,
// to DieAttributes, which fills the Die alike for every reader (part of the DWARF reader
// contract).
#pragma once

#include "btforge/Export.h"
#include "btforge/dwarf/Forms.h"
#include "btforge/dwarf/UnitDies.h"

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace btforge::dwarf {

// DW_OP_entry_value(DW_OP_regN), optionally followed by DW_OP_stack_value: register N, or 0xff.
BTFORGE_API uint8_t entryValueRegister(std::span<const LocationOp> ops);

// What one kept DIE's attributes mean. A reader turns each attribute's form into a value of its
// class (flag, constant, string, reference, address, block, expression operations) and hands it
// here with the attribute's name; the rules decide what the Die gets. Values of a class an
// attribute does not take are ignored.
class BTFORGE_API DieAttributes {
public:
    DieAttributes(UnitDies& unit, Die& die, std::vector<LocationOp>& scratch)
        : unit_(unit), die_(die), scratch_(scratch) {}

    // The attributes the rules look at: a reader may skip the others unread.
    static bool isUsed(unsigned attribute);
    // Whether the operations of an expression (DW_FORM_exprloc) of `attribute` matter.
    static bool usesOperations(unsigned attribute);
    // Whether a value of class `kind` of `attribute` is to be decoded as operations and given
    // to operations(): DWARF 2 and 3 have no exprloc and write expressions as blocks.
    static bool takesOperations(unsigned attribute, FormClass kind);
    // Whether DW_AT_location in `form` is a location list (else an expression).
    static bool isLocationList(unsigned form, uint16_t version);

    void flag(unsigned attribute, bool value);
    void constant(unsigned attribute, Constant value);
    // Unmeasured strings are fine: the view's size may be how far its NUL may lie.
    void string(unsigned attribute, std::string_view value);
    void reference(unsigned attribute, DieOffset target); // kNoDie: unresolved
    void address(unsigned attribute, uint64_t address);
    // A constant in a block (DW_AT_const_value), in the target's byte order.
    void block(unsigned attribute, std::span<const uint8_t> bytes, bool bigEndian);
    // A DW_FORM_data16 constant, in the target's byte order. The IR holds 64 bits: a value whose
    // upper half only extends the lower (zeros, or ones over a negative lower half) is that
    // value, signed when negative; a wider one is left out, as BTF cannot hold it.
    void wideConstant(unsigned attribute, std::span<const uint8_t> bytes, bool bigEndian);
    void operations(unsigned attribute, std::span<const LocationOp> ops);

    // DW_AT_location, in any form. Its value is one expression or a list of them; the rules
    // look at the first expression, and for a parameter at the register an entry value names.
    // Only the expressions wanted() are decoded: each into the vector expression() returns (the
    // list's in list order), followed by expressionRead(whether its operations could be read).
    void location(bool isList);
    bool wanted() const;
    std::vector<LocationOp>& expression();
    void expressionRead(bool read);

    // DW_AT_ranges, in any form. Once all attributes are in: whether the DIE needs the start of
    // its first range as its low_pc (a function in pieces), to be given to address().
    void ranges() { hasRanges_ = true; }
    bool needsFirstRange() const;

private:
    UnitDies& unit_;
    Die& die_;
    std::vector<LocationOp>& scratch_;
    bool hasRanges_ = false;
    bool isList_ = false;
    uint32_t expressions_ = 0; // begun with expression()
    uint32_t first_ = 0;       // where the first one starts in unit_.locationOps
};

} // namespace btforge::dwarf
