#!/usr/bin/env bash
# dwarf-program.sh PROGRAM: the DWARF -> BTF rules on a program a real compiler built from
# tests/inputs/dwarf (PROGRAM's name says gcc/clang, DWARF 4/5, -O0/-O2), and on PROGRAM.o, the
# same units linked with -r (a relocatable object, like a kernel module):
#  - libbpf parses the output and the kernel's verifier accepts it;
#  - every test struct's size, member offsets and bitfield sizes equal what the compiler says
#    (the program prints them with offsetof/sizeof/bit scans when run with an argument);
#  - the static function with one prototype in two units never gives two FUNCs; the one with
#    two prototypes gives none and the skip report says why; at -O2 the function whose unused
#    parameter the optimizer dropped is skipped for it; follows_convention and wide_arguments,
#    whose arguments arrive where the calling convention says, are kept; varargs survive;
#  - variables in .data..percpu are VARs of DATASEC '.data..percpu', sorted by offset.
source "$(dirname "$0")/lib.sh"
program=$1
require_file "$program"
name=$(basename "$program")

"$BTFORGE" --quiet convert "$program" -o "$work/out.btf" --report-skipped "$work/skipped.json"
"$BTF_ORACLE" parse "$work/out.btf" > /dev/null || fail "libbpf rejects the output"
"$BPFTOOL" btf dump file "$work/out.btf" > "$work/dump.txt"

# Layouts: the compiler's own numbers against the dump, struct by struct, in one shape:
#   STRUCT name size=N / <TAB>'member' bits_offset=N [bitfield_size=N]
"$program" layouts > "$work/expected.txt"
awk '
    /^\[[0-9]+\] (STRUCT|UNION) / { gsub("\047", "", $3); print $2, $3, $4; keep = 1; next }
    /^\[/ { keep = 0 }
    keep && /^\t/ { sub(/ type_id=[0-9]+/, ""); print }
' "$work/dump.txt" > "$work/actual.txt"
block() { awk -v name="$2" '$1 ~ /^(STRUCT|UNION)$/ { f = ($2 == name) } f' "$1"; }
structs=$(awk '/^(STRUCT|UNION) / { print $2 }' "$work/expected.txt")
[ -n "$structs" ] || fail "$name: the program printed no layouts"
for struct in $structs; do
    diff <(block "$work/expected.txt" "$struct") <(block "$work/actual.txt" "$struct") ||
        fail "$name: $struct differs from the compiler's layout (< compiler, > BTF)"
done

count() { grep -cE "^\[[0-9]+\] FUNC '$1' " "$work/dump.txt" || true; }
skipped_reason() { grep -o "\"name\":\"$1\",\"reason\":\"[^\"]*\"" "$work/skipped.json" | sed 's/.*"reason":"//; s/"$//'; }

[ "$(count same_helper)" -le 1 ] || fail "$name: same_helper has two FUNCs"
[ "$(count clashing_helper)" = 0 ] || fail "$name: clashing_helper (two prototypes) has a FUNC"
[ -n "$(skipped_reason clashing_helper)" ] || fail "$name: the report does not say why clashing_helper is skipped"
case "$name" in
*-O2)
    if [ "$(count drops_parameter)" != 0 ]; then
        fail "$name: drops_parameter (optimized-out parameter) has a FUNC"
    fi
    ;;
*-O0) [ "$(count drops_parameter)" = 1 ] || fail "$name: drops_parameter is missing at -O0" ;;
esac
for kept in follows_convention wide_arguments; do
    [ "$(count $kept)" = 1 ] || fail "$name: $kept is not kept"
done
grep -qE "^\[[0-9]+\] FUNC 'global_sum' type_id=[0-9]+ " "$work/dump.txt" ||
    fail "$name: global_sum is missing"
proto=$(grep -E "^\[[0-9]+\] FUNC 'global_sum'" "$work/dump.txt" | sed 's/.*type_id=\([0-9]*\).*/\1/')
awk -v id="[$proto]" '$1 == id {f = 1; next} /^\[/ {f = 0} f' "$work/dump.txt" | tail -n 1 |
    grep -q "'(anon)' type_id=0" || fail "$name: global_sum lost its '...'"

"$BTFORGE" --quiet convert "$program.o" -o "$work/object.btf"
"$BTF_ORACLE" parse "$work/object.btf" > /dev/null || fail "libbpf rejects the output for $name.o"
"$BPFTOOL" btf dump file "$work/object.btf" > "$work/object.txt"
datasec=$(awk '/^\[[0-9]+\] DATASEC .\.data\.\.percpu./ {f = 1; next} /^\[/ {f = 0} f' "$work/object.txt")
for var in percpu_counter percpu_local stats; do
    echo "$datasec" | grep "(VAR '$var')" > /dev/null || fail "$name: $var is not in DATASEC .data..percpu"
done
echo "$datasec" | sed 's/.*offset=\([0-9]*\).*/\1/' | sort -c -n || fail "$name: DATASEC not sorted by offset"

"$BTF_ORACLE" load "$work/out.btf" > /dev/null
echo "$name: layouts equal the compiler's; function and per-CPU rules hold; $(grep -c '^\[' "$work/dump.txt") types"
