#include "LocationDecoder.h"

#include "Cursor.h"

#include <cstring>
#include <dwarf.h>

namespace btforge::dwarf {

Decoded decodeExpression(std::span<const uint8_t> bytes, uint8_t addressSize, bool bigEndian,
                         std::vector<LocationOp>& ops) {
    Cursor in(bytes, bigEndian);
    while (!in.atEnd()) {
        uint8_t atom = static_cast<uint8_t>(in.fixed(1));
        LocationOp op{atom, 0, 0};
        if ((atom >= DW_OP_lit0 && atom <= DW_OP_lit31) ||
            (atom >= DW_OP_reg0 && atom <= DW_OP_reg31)) {
            // no operand
        } else if (atom >= DW_OP_breg0 && atom <= DW_OP_breg31) {
            op.number = static_cast<uint64_t>(in.sleb());
        } else {
            switch (atom) {
            case DW_OP_addr:
                op.number = in.fixed(addressSize);
                break;
            case DW_OP_const1u:
            case DW_OP_deref_size:
            case DW_OP_xderef_size:
            case DW_OP_pick:
                op.number = in.fixed(1);
                break;
            case DW_OP_const2u:
            case DW_OP_call2:
                op.number = in.fixed(2);
                break;
            case DW_OP_const4u:
            case DW_OP_call4:
            case DW_OP_GNU_parameter_ref:
                op.number = in.fixed(4);
                break;
            case DW_OP_const8u:
            case DW_OP_const8s:
                op.number = in.fixed(8);
                break;
            // Signed operands are held sign-extended, as LLVM holds them.
            case DW_OP_const1s:
                op.number = static_cast<uint64_t>(int64_t{static_cast<int8_t>(in.fixed(1))});
                break;
            case DW_OP_const2s:
            case DW_OP_skip:
            case DW_OP_bra:
                op.number = static_cast<uint64_t>(int64_t{static_cast<int16_t>(in.fixed(2))});
                break;
            case DW_OP_const4s:
                op.number = static_cast<uint64_t>(int64_t{static_cast<int32_t>(in.fixed(4))});
                break;
            case DW_OP_constu:
            case DW_OP_plus_uconst:
            case DW_OP_regx:
            case DW_OP_piece:
            case DW_OP_convert:
            case DW_OP_reinterpret:
                op.number = in.uleb();
                break;
            case DW_OP_deref_type:
                op.number = in.fixed(1);
                op.number2 = in.uleb();
                break;
            case DW_OP_regval_type:
                op.number = in.uleb();
                op.number2 = in.uleb();
                break;
            case DW_OP_const_type:
                op.number = in.uleb();
                op.number2 = in.fixed(1);
                in.block(op.number2);
                break;
            case DW_OP_consts:
            case DW_OP_fbreg:
                op.number = static_cast<uint64_t>(in.sleb());
                break;
            case DW_OP_bregx:
                op.number = in.uleb();
                op.number2 = static_cast<uint64_t>(in.sleb());
                break;
            case DW_OP_bit_piece:
                op.number = in.uleb();
                op.number2 = in.uleb();
                break;
            case DW_OP_entry_value:
            case DW_OP_GNU_entry_value:
            case DW_OP_implicit_value: {
                op.number = in.uleb();
                auto block = in.block(op.number);
                op.number2 = block.empty() ? 0 : block[0];
                break;
            }
            case DW_OP_addrx:
            case DW_OP_GNU_addr_index:
            case DW_OP_constx:
            case DW_OP_GNU_const_index:
                return Decoded::NeedsAddressTable;
            case DW_OP_stack_value:
            case DW_OP_deref:
            case DW_OP_dup:
            case DW_OP_drop:
            case DW_OP_plus:
            case DW_OP_minus:
            case DW_OP_and:
            case DW_OP_or:
            case DW_OP_xor:
            case DW_OP_not:
            case DW_OP_neg:
            case DW_OP_call_frame_cfa:
            case DW_OP_over:
            case DW_OP_swap:
            case DW_OP_rot:
            case DW_OP_xderef:
            case DW_OP_abs:
            case DW_OP_div:
            case DW_OP_mod:
            case DW_OP_mul:
            case DW_OP_shl:
            case DW_OP_shr:
            case DW_OP_shra:
            case DW_OP_eq:
            case DW_OP_ge:
            case DW_OP_gt:
            case DW_OP_le:
            case DW_OP_lt:
            case DW_OP_ne:
            case DW_OP_nop:
            case DW_OP_push_object_address:
            case DW_OP_form_tls_address:
            case DW_OP_GNU_push_tls_address:
                break;
            default:
                ops.push_back(op); // known to be there, operands unknown: nothing after it
                return Decoded::Ok;
            }
        }
        if (!in.ok())
            return Decoded::Malformed;
        ops.push_back(op);
    }
    return Decoded::Ok;
}

bool forEachLocationEntry(std::span<const uint8_t> section, uint64_t offset, uint16_t version,
                          uint8_t addressSize, bool bigEndian,
                          const std::function<void(std::span<const uint8_t>)>& visit) {
    if (offset >= section.size())
        return false;
    Cursor in(section.subspan(offset), bigEndian);
    // A list has one entry per address range of a variable's life: a few dozen at most. The
    // bound keeps a malformed list from running through the whole section.
    for (int entries = 0; entries < 4096 && in.ok() && !in.atEnd(); ++entries) {
        if (version < 5) {
            uint64_t begin = in.fixed(addressSize);
            uint64_t end = in.fixed(addressSize);
            uint64_t all = addressSize == 4 ? 0xffffffffu : ~uint64_t(0);
            if (begin == 0 && end == 0)
                return in.ok();
            if (begin == all) // base address selection
                continue;
            visit(in.block(in.fixed(2)));
            continue;
        }
        switch (in.fixed(1)) {
        case DW_LLE_end_of_list:
            return in.ok();
        case DW_LLE_base_addressx:
            in.uleb();
            continue;
        case DW_LLE_startx_endx:
        case DW_LLE_startx_length:
        case DW_LLE_offset_pair:
            in.uleb();
            in.uleb();
            break;
        case DW_LLE_default_location:
            break;
        case DW_LLE_base_address:
            in.fixed(addressSize);
            continue;
        case DW_LLE_start_end:
            in.fixed(addressSize);
            in.fixed(addressSize);
            break;
        case DW_LLE_start_length:
            in.fixed(addressSize);
            in.uleb();
            break;
        case DW_LLE_GNU_view_pair:
            in.uleb();
            in.uleb();
            continue;
        default:
            return false;
        }
        auto expression = in.block(in.uleb());
        if (in.ok())
            visit(expression);
    }
    return in.ok();
}

} // namespace btforge::dwarf
