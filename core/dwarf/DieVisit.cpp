// Which DIEs a reader keeps (DieVisit.h).
#include "btforge/dwarf/DieVisit.h"

#include "dwarf/UnitMapper.h"

#include "btforge/dwarf/UnitDies.h"

#include <dwarf.h>

namespace btforge::dwarf {
namespace {

// Types, and the DIEs that make up a type's description.
bool isTypeOrPart(uint16_t tag) {
    switch (tag) {
    case DW_TAG_member:
    case DW_TAG_inheritance:
    case DW_TAG_enumerator:
    case DW_TAG_subrange_type:
    case kTagLlvmAnnotation:
        return true;
    default:
        return isTypeDie(tag);
    }
}

} // namespace

Visit classifyDie(uint16_t tag, uint16_t parentTag) {
    if (isTypeOrPart(tag))
        return Visit::Keep;
    bool atUnitScope = parentTag == DW_TAG_compile_unit || parentTag == DW_TAG_partial_unit ||
                       parentTag == DW_TAG_type_unit || parentTag == DW_TAG_namespace;
    switch (tag) {
    case DW_TAG_subprogram:
    case DW_TAG_namespace:
        return Visit::Keep;
    case DW_TAG_variable:
        return atUnitScope ? Visit::Keep : Visit::Skip;
    case DW_TAG_formal_parameter:
    case DW_TAG_unspecified_parameters:
        return parentTag == DW_TAG_subprogram || parentTag == DW_TAG_subroutine_type ? Visit::Keep
                                                                                     : Visit::Skip;
    case DW_TAG_lexical_block:
        return Visit::Descend;
    default:
        return Visit::Skip;
    }
}

} // namespace btforge::dwarf
