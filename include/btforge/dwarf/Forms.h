// DWARF forms, in one table both readers and the tests' DWARF writer use: the class of value each
// form holds (what the reader rules take) and how its value is laid out in a DIE (what a reader
// steps over and a writer writes); and a constant as read (part of the DWARF reader contract).
#pragma once

#include "btforge/Export.h"

#include <cstdint>
#include <optional>

namespace btforge::dwarf {

// A constant attribute value as a reader read it from its form.
struct Constant {
    uint64_t bits = 0;
    bool isSigned = false; // DW_FORM_sdata or DW_FORM_implicit_const: `bits` holds an int64_t
};

// The class of value a form holds (DWARF 5, 7.5.5), as DieAttributes takes them. Constant also
// stands for the forms a reader can only try to read as one (DW_FORM_sec_offset, ...).
enum class FormClass : uint8_t { Flag, String, Reference, Address, Block, Expression, Constant };

// How a form's value is laid out in a DIE.
enum class FormLayout : uint8_t {
    None,        // no bytes in the DIE (flag_present; implicit_const's value is the abbreviation's)
    Fixed,       // FormInfo::size bytes
    AddressSize, // the unit's address size
    OffsetSize,  // 4 in DWARF32, 8 in DWARF64
    RefAddr,     // the address size in DWARF 2, the offset size since
    Uleb,        // an unsigned LEB128
    Sleb,        // a signed LEB128
    String,      // NUL-terminated bytes
    Block1,      // a 1-, 2- or 4-byte length, then that many bytes
    Block2,
    Block4,
    BlockUleb,   // a ULEB128 length, then that many bytes (block, exprloc)
    Indirect,    // a ULEB128 form, then a value of that form
    Unsupported, // a value no reader here steps over (DW_FORM_LLVM_addrx_offset)
};

struct FormInfo {
    FormClass valueClass;
    FormLayout layout;
    uint8_t size = 0; // for FormLayout::Fixed
};

// The form's class and layout; nullopt for a form no DWARF version (nor GNU's or LLVM's
// extensions) defines.
BTFORGE_API std::optional<FormInfo> formInfo(unsigned form);
// Its class; Constant also for a form not defined (a reader can only try to read it as one).
BTFORGE_API FormClass formClass(unsigned form);
// The constant forms whose value is signed: DW_FORM_sdata, DW_FORM_implicit_const.
BTFORGE_API bool isSignedForm(unsigned form);

} // namespace btforge::dwarf
