// DWARF forms as the reader rules take their values: the class of value each form holds, and a
// constant as read (part of the DWARF reader contract).
#pragma once

#include "btforge/Export.h"

#include <cstdint>

namespace btforge::dwarf {

// A constant attribute value as a reader read it from its form.
struct Constant {
    uint64_t bits = 0;
    bool isSigned = false; // DW_FORM_sdata or DW_FORM_implicit_const: `bits` holds an int64_t
};

// The class of value a form holds (DWARF 5, 7.5.5), as DieAttributes takes them. Constant also
// stands for the forms a reader can only try to read as one (DW_FORM_sec_offset, ...).
enum class FormClass : uint8_t { Flag, String, Reference, Address, Block, Expression, Constant };
BTFORGE_API FormClass formClass(unsigned form);
// The constant forms whose value is signed: DW_FORM_sdata, DW_FORM_implicit_const.
BTFORGE_API bool isSignedForm(unsigned form);

} // namespace btforge::dwarf
