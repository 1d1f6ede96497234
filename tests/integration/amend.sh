#!/usr/bin/env bash
# amend.sh CASE INPUT [FEATURE...]
#
# Amending BTF that exists (btforge convert -f btf --features/--keep/--drop), checked with bpftool
# (kinds counted, values read back), libbpf's parser and the kernel's verifier (BPF_BTF_LOAD).
#  features INPUT   each of decl_tag, decl_tag_kfuncs, type_tag, enum64, float off alone, then all
#                   of them: the kinds they name are gone, nothing else changed kind, ENUM64 values
#                   read back as their low 32 bits, FLOATs as unsigned INTs of their size
#                   (FEATURE...: only these; "all" for all of them off); global_var on raw
#                   BTF input changes nothing and says why
#  globalvar INPUT  global_var on the .BTF of an ELF file (given one first by convert --elf when
#                   it has none): the VARs are the input's plus one per data object readelf
#                   lists, picked by the same rules computed here; existing DATASEC entries stay
#  select INPUT     --keep and --drop on /sys/kernel/btf/vmlinux-like input: bpftool's C rendering
#                   of a kept struct is the input's, the kept C header compiles, dropping a FUNC
#                   removes it and only what it alone needed, a still-needed type is refused
# INPUT ending in .bpf.o is finalized by libbpf first (DATASEC sizes and offsets, as before any
# load), so the kernel can take it.
source "$(dirname "$0")/lib.sh"
case_=$1 input=$2
offs=("${@:3}")
[ ${#offs[@]} -gt 0 ] || offs=(decl_tag decl_tag_kfuncs type_tag enum64 float all)
require_file "$input"
if [[ "$input" == *.bpf.o ]]; then
    "$BTF_ORACLE" finalize "$input" "$work/input.btf" || fail "libbpf cannot open $input"
    input=$work/input.btf
fi
defaults=encode_force,var,float,decl_tag,type_tag,enum64,optimized_func,consistent_func,decl_tag_kfuncs

kinds() { # FILE -> "count KIND" lines
    "$BPFTOOL" btf dump file "$1" | sed -n 's/^\[[0-9]*\] \([A-Z_0-9]*\) .*/\1/p' | sort | uniq -c |
        awk '{print $2, $1}'
}
count() { # KIND in a kinds listing file
    awk -v k="$1" '$1 == k {print $2; found = 1} END {if (!found) print 0}' "$2"
}
kernel_accepts() {
    local status=0
    "$BTF_ORACLE" load "$1" > /dev/null || status=$?
    [ "$status" = "$SKIP" ] && { echo "kernel check skipped: BPF_BTF_LOAD not permitted"; return; }
    [ "$status" = 0 ] || fail "the kernel rejects $1"
}
convert() { # OUT ARGS...
    local out=$1
    shift
    "$BTFORGE" --quiet convert "$input" -f btf -o "$out" "$@"
    "$BTF_ORACLE" parse "$out" > /dev/null || fail "libbpf rejects $out"
}

case "$case_" in
features)
    kinds "$input" > "$work/in.kinds"
    "$BPFTOOL" btf dump file "$input" > "$work/in.txt"
    for off in "${offs[@]}"; do
        if [ "$off" = all ]; then
            features=encode_force,var
        else
            features=$(echo "$defaults" | tr , '\n' | grep -vx "$off" | paste -sd,)
        fi
        convert "$work/$off.btf" --features "$features"
        kinds "$work/$off.btf" > "$work/$off.kinds"
        "$BPFTOOL" btf dump file "$work/$off.btf" > "$work/$off.txt"
        for kind in $(awk '{print $1}' "$work/in.kinds"); do
            before=$(count "$kind" "$work/in.kinds") after=$(count "$kind" "$work/$off.kinds")
            expected=$before
            case "$off:$kind" in
            decl_tag:DECL_TAG | type_tag:TYPE_TAG | enum64:ENUM64 | float:FLOAT) expected=0 ;;
            all:DECL_TAG | all:TYPE_TAG | all:ENUM64 | all:FLOAT) expected=0 ;;
            enum64:ENUM | all:ENUM) expected=$((before + $(count ENUM64 "$work/in.kinds"))) ;;
            float:INT | all:INT) expected=$((before + $(count FLOAT "$work/in.kinds"))) ;;
            decl_tag_kfuncs:DECL_TAG)
                expected=$((before - $(grep -cE "^\[[0-9]*\] DECL_TAG 'bpf_(kfunc|fastcall)' type_id=[0-9]* component_idx=-1" "$work/in.txt" || true))) ;;
            esac
            [ "$after" = "$expected" ] || fail "--features without $off: $after ${kind}s, expected $expected"
        done
        if [ "$off" = decl_tag_kfuncs ]; then
            ! grep -qE "DECL_TAG 'bpf_(kfunc|fastcall)'" "$work/$off.txt" || fail "kfunc tags left"
        fi
        if [ "$off" = enum64 ] || [ "$off" = all ]; then
            # Each ENUM64's values, read back as their low 32 bits in an ENUM of the same size.
            awk '/^\[[0-9]+\] ENUM64 /{e = $3; next} /^\[/{e = ""} e != "" && /val=/ {
                    v = $2; sub(/val=/, "", v); sub(/U?LL$/, "", v); print e, $1, v }' \
                "$work/in.txt" > "$work/enum64.values"
            [ -s "$work/enum64.values" ] || [ "$(count ENUM64 "$work/in.kinds")" = 0 ] ||
                fail "read no ENUM64 values"
            while read -r name value_name value; do
                hex=$(printf '%016x' "$value") # bash's printf reads it as C's strtoumax does
                low=$((16#${hex: -8}))
                awk -v e="$name" -v n="$value_name" '/^\[[0-9]+\] ENUM /{x = ($3 == e); next}
                    /^\[/{x = 0} x && $1 == n {print $2}' "$work/$off.txt" | grep -x "val=$low" > /dev/null ||
                    fail "$name $value_name: not val=$low after enum64 off"
            done < "$work/enum64.values"
        fi
        if [ "$off" = float ]; then
            grep "^\[[0-9]*\] FLOAT " "$work/in.txt" | sed "s/.*FLOAT \('[^']*'\) size=\([0-9]*\)/\2 \1/" |
                while read -r size name; do
                    grep -q "INT $name size=$size bits_offset=0 nr_bits=$((size * 8)) encoding=(none)" "$work/$off.txt" ||
                        fail "FLOAT $name is not an INT of $size bytes"
                done
        fi
        kernel_accepts "$work/$off.btf"
        echo "without $off: $(grep -c '^\[' "$work/$off.txt") types (input $(grep -c '^\[' "$work/in.txt"))"
    done
    # Raw BTF has no symbol table to find variables in: said once, the BTF written as it is.
    if ! head -c4 "$input" | grep "ELF" > /dev/null; then
        "$BTFORGE" convert "$input" -f btf -o "$work/gv.btf" --features default,global_var 2> "$work/err"
        grep -q "global_var adds nothing: the input has no ELF symbol table" "$work/err" ||
            fail "no word about global_var"
        "$BTFORGE" --quiet convert "$input" -f btf -o "$work/default.btf"
        cmp -s "$work/gv.btf" "$work/default.btf" || fail "global_var changed raw BTF input"
    fi
    ;;
globalvar)
    elf=$input
    if ! readelf -SW "$input" | grep ' \.BTF ' > /dev/null; then
        "$BTFORGE" --quiet convert "$input" --elf -o "$work/input.elf"
        elf=$work/input.elf
    fi
    convert_elf() { "$BTFORGE" --quiet convert "$elf" -f btf -o "$1" --features default,global_var; }
    convert_elf "$work/gv.btf"
    "$BTF_ORACLE" parse "$work/gv.btf" > /dev/null || fail "libbpf rejects $work/gv.btf"
    "$BPFTOOL" btf dump file "$elf" > "$work/in.txt"
    "$BPFTOOL" btf dump file "$work/gv.btf" > "$work/gv.txt"
    var_names() { sed -n "s/^\[[0-9]*\] VAR '\([^']*\)' .*/\1/p" "$1"; }
    datasec_entries() { # "SECTION OFFSET SIZE VAR" per DATASEC entry
        awk '/^\[[0-9]+\] DATASEC /{s = $3; gsub(/'"'"'/, "", s); next} /^\[/{s = ""}
            s != "" && /offset=/ {o = $2; z = $3; v = $5; sub(/offset=/, "", o); sub(/size=/, "", z)
                gsub(/['"'"')]/, "", v); print s, o, z, v}' "$1"
    }
    var_names "$work/in.txt" | sort > "$work/in.vars"
    datasec_entries "$work/in.txt" > "$work/in.entries"
    # The rules, from readelf: STT_OBJECT of nonzero size defined in an SHF_ALLOC section, a C
    # identifier, not compiler-made, no VAR of that name yet; by (section, offset, name), each
    # that does not overlap an existing entry or one placed before it.
    type=$(readelf -hW "$elf" | awk '$1 == "Type:" {print $2}')
    readelf -SW "$elf" > "$work/sections"
    readelf -sW "$elf" > "$work/symbols"
    awk -v rel="$([ "$type" = REL ] && echo 1 || echo 0)" '
        function hex(s,   i, n) { s = tolower(s); sub(/^0x/, "", s); n = 0
            for (i = 1; i <= length(s); i++) n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
            return n }
        function low(s) { return hex(substr(s, length(s) - 11)) } # 48 bits: exact in a double
        FILENAME == ARGV[1] { have[$1] = 1; next }
        FILENAME == ARGV[2] { if (match($0, /^ *\[ *[0-9]+\]/)) {
                idx = substr($0, RSTART, RLENGTH); gsub(/[][ ]/, "", idx)
                $0 = substr($0, RSTART + RLENGTH)
                if (idx > 0) { name[idx] = $1; addr[idx] = $3; alloc[idx] = (NF == 10 && $7 ~ /A/) } }
            next }
        /^Symbol table/ { symtab = ($3 == "'"'.symtab'"'"); next }
        !symtab || $4 != "OBJECT" || $7 !~ /^[0-9]+$/ || !alloc[$7] { next }
        { size = ($3 ~ /^0x/) ? hex($3) : $3 + 0; n = $8 }
        size == 0 || n !~ /^[A-Za-z_][A-Za-z0-9_]*$/ || (n in have) { next }
        n ~ /^(__UNIQUE_ID|__tpstrtab_|__exitcall_|__gendwarfksyms_ptr_|__func_stack_frame_non_standard_|__BTF_ID__)/ { next }
        { v = $2; a = addr[$7]
          if (rel) off = hex(v)
          else if (length(v) != length(a) || (v "") < (a "")) next
          else { off = low(v) - low(a); if (off < 0) off += 2^48 }
          if (off + size > 4294967295) next
          print $7, off, size, name[$7], n }' "$work/in.vars" "$work/sections" "$work/symbols" |
        sort -k1,1n -k2,2n -k5,5 |
        awk 'FILENAME == ARGV[1] { n = ++count[$1]; eb[$1, n] = $2; ee[$1, n] = $2 + $3; next }
            $1 != sec { sec = $1; placed = 0 }
            { b = $2; e = $2 + $3; if (b < placed) next
              for (i = 1; i <= count[$4]; i++) if (b < ee[$4, i] && eb[$4, i] < e) next
              placed = e; print $5 }' "$work/in.entries" - > "$work/added.vars"
    sort "$work/in.vars" "$work/added.vars" > "$work/expected.vars"
    var_names "$work/gv.txt" | sort > "$work/gv.vars"
    diff "$work/expected.vars" "$work/gv.vars" > "$work/vars.diff" ||
        fail "VARs differ from readelf's objects (< expected, > written): $(head -5 "$work/vars.diff")"
    [ -s "$work/added.vars" ] || fail "readelf lists no data object to add: a test that cannot fail"
    # Existing entries stay where they were; entries sorted, none overlapping.
    datasec_entries "$work/gv.txt" > "$work/gv.entries"
    [ -z "$(sort "$work/in.entries" | comm -23 - <(sort "$work/gv.entries"))" ] ||
        fail "an existing DATASEC entry changed"
    awk '$1 != s {s = $1; end = 0} $2 + 0 < end {print; bad = 1} {end = $2 + $3} END {exit bad}' \
        "$work/gv.entries" > /dev/null || fail "DATASEC entries unsorted or overlapping"
    kernel_accepts "$work/gv.btf"
    echo "global_var: $(wc -l < "$work/in.vars") VARs in, $(wc -l < "$work/gv.vars") out ($(wc -l < "$work/added.vars") expected from readelf), $(grep -c "^\[[0-9]*\] DATASEC" "$work/gv.txt") DATASECs"
    ;;
select)
    "$BPFTOOL" btf dump file "$input" format c > "$work/in.h"
    convert "$work/keep.btf" --keep task_struct,vfs_read
    convert "$work/keep2.btf" --keep vfs_read --keep task_struct
    cmp -s "$work/keep.btf" "$work/keep2.btf" || fail "--keep depends on how names are given"
    "$BTFORGE" --quiet -j1 convert "$input" -f btf -o "$work/keep-j1.btf" --keep task_struct,vfs_read
    cmp -s "$work/keep.btf" "$work/keep-j1.btf" || fail "--keep output depends on -j"
    kernel_accepts "$work/keep.btf"
    "$BPFTOOL" btf dump file "$work/keep.btf" > "$work/keep.txt"
    grep -q "^\[[0-9]*\] FUNC 'vfs_read' " "$work/keep.txt" || fail "FUNC vfs_read not kept"
    "$BPFTOOL" btf dump file "$work/keep.btf" format c > "$work/keep.h"
    struct_of() { awk '/^struct task_struct \{/{p = 1} p {print} p && /^\};/{exit}' "$1"; }
    struct_of "$work/in.h" > "$work/in.struct"
    struct_of "$work/keep.h" > "$work/keep.struct"
    [ -s "$work/in.struct" ] && cmp -s "$work/in.struct" "$work/keep.struct" ||
        fail "bpftool renders struct task_struct differently after --keep"
    clang-19 --target=bpf -w -fsyntax-only -x c "$work/keep.h" || fail "the kept types do not compile as C"
    echo "--keep task_struct,vfs_read: $(grep -c '^\[' "$work/keep.txt") of $(grep -c '^\[' <("$BPFTOOL" btf dump file "$input")) types"

    convert "$work/drop.btf" --drop vfs_read
    kernel_accepts "$work/drop.btf"
    kinds "$input" > "$work/in.kinds" && kinds "$work/drop.btf" > "$work/drop.kinds"
    [ "$(count FUNC "$work/drop.kinds")" = $(($(count FUNC "$work/in.kinds") - 1)) ] ||
        fail "--drop vfs_read did not remove exactly one FUNC"
    ! "$BPFTOOL" btf dump file "$work/drop.btf" | grep "FUNC 'vfs_read'" > /dev/null || fail "vfs_read left"
    # Every struct, union, enum and typedef stays: other functions need them, or nothing needed them.
    for kind in STRUCT UNION ENUM TYPEDEF; do
        [ "$(count $kind "$work/drop.kinds")" = "$(count $kind "$work/in.kinds")" ] ||
            fail "--drop vfs_read removed a $kind"
    done
    status=0
    "$BTFORGE" --quiet convert "$input" -f btf -o "$work/refused.btf" --drop task_struct 2> "$work/err" || status=$?
    [ "$status" = 2 ] && grep -q "still needed by" "$work/err" || fail "--drop task_struct not refused"
    [ ! -e "$work/refused.btf" ] || fail "output left after a refusal"
    echo "refused: $(cat "$work/err")"
    ;;
*) fail "unknown case $case_" ;;
esac
