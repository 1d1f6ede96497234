#!/usr/bin/env bash
# amend.sh CASE INPUT [FEATURE...]
#
# Amending BTF that exists (btforge convert -f btf --features/--keep/--drop), checked with bpftool
# (kinds counted, values read back), libbpf's parser and the kernel's verifier (BPF_BTF_LOAD).
#  features INPUT   each of decl_tag, decl_tag_kfuncs, type_tag, enum64, float off alone, then all
#                   of them: the kinds they name are gone, nothing else changed kind, ENUM64 values
#                   read back as their low 32 bits, FLOATs as unsigned INTs of their size
#                   (FEATURE...: only these; "all" for all of them off); global_var on BTF
#                   input changes nothing and says why
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
                    /^\[/{x = 0} x && $1 == n {print $2}' "$work/$off.txt" | grep -qx "val=$low" ||
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
    # global_var cannot add what BTF has no type for: said once, the BTF written as it is.
    "$BTFORGE" convert "$input" -f btf -o "$work/gv.btf" --features default,global_var 2> "$work/err"
    grep -q "global_var adds nothing to BTF input" "$work/err" || fail "no word about global_var"
    "$BTFORGE" --quiet convert "$input" -f btf -o "$work/default.btf"
    cmp -s "$work/gv.btf" "$work/default.btf" || fail "global_var changed BTF input"
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
    ! "$BPFTOOL" btf dump file "$work/drop.btf" | grep -q "FUNC 'vfs_read'" || fail "vfs_read left"
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
