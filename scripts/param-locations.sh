#!/usr/bin/env bash
# param-locations.sh FILE FUNC|0xDIE...: where each parameter of a function's out-of-line code is
# at its entry, from llvm-dwarfdump, beside the register its position would get from the
# calling convention if every earlier parameter took one register (the naive positional model:
# x86-64 rdi rsi rdx rcx r8 r9, aarch64 x0-x7). One line per DIE with code (DW_AT_low_pc):
#   DIE NAME @LOW_PC: #0 NAME TYPE = LOCATION [slot REG]; ...
# LOCATION is the location at low_pc: a register (also DW_OP_entry_value(reg): the value the
# register had at entry), stack+N (DW_OP_fbreg: the caller's frame, where memory arguments are),
# const, (GNU_parameter_ref) (a value only the caller has), or none (no location: the code does
# not receive it). It is the input the FUNC rules
# (docs/functions.md) judge; docs/module-funcs.md uses it.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 FILE FUNC|0xDIE..." >&2; exit 2; }
file=$1
shift
dwarfdump=$(command -v llvm-dwarfdump-19 || command -v llvm-dwarfdump) ||
    { echo "error: no llvm-dwarfdump" >&2; exit 1; }
case "$(readelf -h "$file" | sed -n 's/^ *Machine: *//p')" in
*X86-64*) regs="RDI RSI RDX RCX R8 R9" ;;
*AArch64*) regs="W0/X0 W1/X1 W2/X2 W3/X3 W4/X4 W5/X5 W6/X6 W7/X7" ;;
*) regs="" ;;
esac
for f in "$@"; do
    case "$f" in
    0x*) "$dwarfdump" --debug-info="$f" --show-children "$file" ;;
    *) "$dwarfdump" --name="$f" --show-children "$file" ;;
    esac
done | awk -v regs="$regs" '
    function flush_param() {
        if (!inparam) return
        slot = (np < nregs) ? R[np + 1] : "stack"
        line = line sprintf("%s#%d %s %s = %s [slot %s]", np ? "; " : " ", np, pname, ptype, ploc, slot)
        np++
        inparam = 0
    }
    function flush_sub() {
        flush_param()
        if (insub && lowpc != "") print sub_die " " sname " @" lowpc ":" line
        insub = 0
    }
    # The location an expression gives: a register, stack+N, or the expression.
    function where(e) {
        if (match(e, /DW_OP_entry_value\(DW_OP_(reg|breg)[0-9]+ [A-Z0-9]+/)) {
            e = substr(e, RSTART, RLENGTH); sub(/.* /, "", e); return e
        }
        if (match(e, /^DW_OP_reg[0-9]+ [A-Z0-9]+/)) { e = substr(e, RSTART, RLENGTH); sub(/.* /, "", e); return e }
        if (match(e, /^DW_OP_fbreg [-+]?[0-9]+/)) { e = substr(e, RSTART + 12, RLENGTH - 12); return "stack" e }
        # llvm-dwarfdump 19 does not decode DW_OP_GNU_parameter_ref (0xfa): a value the caller
        # knows, not passed.
        if (e ~ /^<decoding error> fa /) return "(GNU_parameter_ref: not passed)"
        # A value computed from constants only is a constant.
        if (e ~ /^DW_OP_(lit[0-9]+|const[1248]?[us]|constu|consts)( 0x[0-9a-f]+| -?[0-9]+)?, DW_OP_stack_value$/) return "const"
        gsub(/DW_OP_/, "", e)
        return "(" e ")"
    }
    # Addresses as text: a kernel address does not fit a double exactly.
    function hex(s) { s = tolower(s); sub(/^0x0*/, "", s); return "0x" (s == "" ? "0" : s) }
    BEGIN { nregs = split(regs, R, " ") }
    /^0x[0-9a-f]+: *DW_TAG_/ || /^0x[0-9a-f]+: *NULL/ {
        match($0, /: +/)
        depth = (RLENGTH - 2) / 2
        tag = $2
        if (depth == 0) {
            flush_sub()
            if (tag == "DW_TAG_subprogram") {
                insub = 1; sub_die = substr($1, 1, length($1) - 1); sname = "?"; lowpc = ""; line = ""; np = 0
                inranges = 0
            }
            cur = "sub"
        } else if (depth == 1 && insub) {
            flush_param()
            if (tag == "DW_TAG_formal_parameter") {
                inparam = 1; pname = "?"; ptype = ""; ploc = "none"; cur = "param"
            } else cur = ""
        } else cur = ""
        inloc = 0
        next
    }
    cur == "sub" && /DW_AT_(name|abstract_origin)/ { if (match($0, /"[^"]*"/)) sname = substr($0, RSTART + 1, RLENGTH - 2) }
    cur == "sub" && /DW_AT_low_pc/ { if (match($0, /0x[0-9a-f]+/)) lowpc = hex(substr($0, RSTART, RLENGTH)) }
    # Code in several ranges (a clone with a .cold part): the entry is the first range.
    cur == "sub" && /DW_AT_ranges/ { inranges = 1; next }
    cur == "sub" && inranges && /^ *\[0x/ {
        if (lowpc == "" && match($0, /0x[0-9a-f]+/)) lowpc = hex(substr($0, RSTART, RLENGTH))
        if ($0 ~ /\)\)$/) inranges = 0
        next
    }
    cur == "param" && /DW_AT_(name|abstract_origin)/ { if (match($0, /"[^"]*"/)) pname = substr($0, RSTART + 1, RLENGTH - 2) }
    cur == "param" && /DW_AT_type/ { if (match($0, /"[^"]*"/)) ptype = "(" substr($0, RSTART + 1, RLENGTH - 2) ")" }
    cur == "param" && /DW_AT_const_value/ { ploc = "const" }
    cur == "param" && /DW_AT_location/ {
        if ($0 ~ /\(0x[0-9a-f]+: *$/ || $0 ~ /\(0x[0-9a-f]+: *\)?$/) { inloc = 1; ploc = "none"; next }
        e = $0; sub(/.*DW_AT_location\t\(/, "", e); sub(/\)$/, "", e)
        ploc = where(e)
        next
    }
    cur == "param" && inloc && /^ *\[0x/ {
        if (match($0, /\[0x[0-9a-f]+/) && hex(substr($0, RSTART + 1, RLENGTH - 1)) == lowpc) {
            e = $0; sub(/^[^)]*\): /, "", e); sub(/\)$/, "", e)
            ploc = where(e)
        }
        if ($0 ~ /\)$/) inloc = 0
        next
    }
    END { flush_sub() }'
