// The one table of DWARF forms (Forms.h): each form's class of value and its layout in a DIE.
#include "btforge/dwarf/Forms.h"

#include <dwarf.h>

namespace btforge::dwarf {
namespace {

// DW_FORM_LLVM_addrx_offset, which elfutils' dwarf.h does not have.
constexpr unsigned kFormLlvmAddrxOffset = 0x2001;

using C = FormClass;
using L = FormLayout;

} // namespace

std::optional<FormInfo> formInfo(unsigned form) {
    switch (form) {
    case DW_FORM_flag_present:
        return FormInfo{C::Flag, L::None};
    case DW_FORM_implicit_const:
        return FormInfo{C::Constant, L::None};
    case DW_FORM_flag:
        return FormInfo{C::Flag, L::Fixed, 1};
    case DW_FORM_data1:
        return FormInfo{C::Constant, L::Fixed, 1};
    case DW_FORM_data2:
        return FormInfo{C::Constant, L::Fixed, 2};
    case DW_FORM_data4:
        return FormInfo{C::Constant, L::Fixed, 4};
    case DW_FORM_data8:
        return FormInfo{C::Constant, L::Fixed, 8};
    case DW_FORM_data16:
        return FormInfo{C::Constant, L::Fixed, 16};
    case DW_FORM_udata:
    case DW_FORM_loclistx:
    case DW_FORM_rnglistx:
        return FormInfo{C::Constant, L::Uleb};
    case DW_FORM_sdata:
        return FormInfo{C::Constant, L::Sleb};
    case DW_FORM_sec_offset:
        return FormInfo{C::Constant, L::OffsetSize};
    case DW_FORM_ref1:
        return FormInfo{C::Reference, L::Fixed, 1};
    case DW_FORM_ref2:
        return FormInfo{C::Reference, L::Fixed, 2};
    case DW_FORM_ref4:
    case DW_FORM_ref_sup4:
        return FormInfo{C::Reference, L::Fixed, 4};
    case DW_FORM_ref8:
    case DW_FORM_ref_sig8:
    case DW_FORM_ref_sup8:
        return FormInfo{C::Reference, L::Fixed, 8};
    case DW_FORM_ref_udata:
        return FormInfo{C::Reference, L::Uleb};
    case DW_FORM_ref_addr:
        return FormInfo{C::Reference, L::RefAddr};
    case DW_FORM_GNU_ref_alt:
        return FormInfo{C::Reference, L::OffsetSize};
    case DW_FORM_string:
        return FormInfo{C::String, L::String};
    case DW_FORM_strp:
    case DW_FORM_line_strp:
    case DW_FORM_strp_sup:
    case DW_FORM_GNU_strp_alt:
        return FormInfo{C::String, L::OffsetSize};
    case DW_FORM_strx1:
        return FormInfo{C::String, L::Fixed, 1};
    case DW_FORM_strx2:
        return FormInfo{C::String, L::Fixed, 2};
    case DW_FORM_strx3:
        return FormInfo{C::String, L::Fixed, 3};
    case DW_FORM_strx4:
        return FormInfo{C::String, L::Fixed, 4};
    case DW_FORM_strx:
    case DW_FORM_GNU_str_index:
        return FormInfo{C::String, L::Uleb};
    case DW_FORM_addr:
        return FormInfo{C::Address, L::AddressSize};
    case DW_FORM_addrx1:
        return FormInfo{C::Address, L::Fixed, 1};
    case DW_FORM_addrx2:
        return FormInfo{C::Address, L::Fixed, 2};
    case DW_FORM_addrx3:
        return FormInfo{C::Address, L::Fixed, 3};
    case DW_FORM_addrx4:
        return FormInfo{C::Address, L::Fixed, 4};
    case DW_FORM_addrx:
    case DW_FORM_GNU_addr_index:
        return FormInfo{C::Address, L::Uleb};
    case kFormLlvmAddrxOffset:
        return FormInfo{C::Address, L::Unsupported};
    case DW_FORM_block1:
        return FormInfo{C::Block, L::Block1};
    case DW_FORM_block2:
        return FormInfo{C::Block, L::Block2};
    case DW_FORM_block4:
        return FormInfo{C::Block, L::Block4};
    case DW_FORM_block:
        return FormInfo{C::Block, L::BlockUleb};
    case DW_FORM_exprloc:
        return FormInfo{C::Expression, L::BlockUleb};
    case DW_FORM_indirect:
        return FormInfo{C::Constant, L::Indirect};
    default:
        return std::nullopt;
    }
}

FormClass formClass(unsigned form) {
    const auto info = formInfo(form);
    return info ? info->valueClass : FormClass::Constant;
}

bool isSignedForm(unsigned form) {
    return form == DW_FORM_sdata || form == DW_FORM_implicit_const;
}

} // namespace btforge::dwarf
