#!/bin/bash
# The DWARF fixture writer's files (tests/support/DwarfFixture.h) as two independent readers see
# them: llvm-dwarfdump --verify finds no error, readelf decodes every unit without a warning.
source "$(dirname "$0")/lib.sh"
: "${DWARF_FIXTURES:?}"
command -v llvm-dwarfdump-19 >/dev/null || skip "llvm-dwarfdump-19 is not installed"

"$DWARF_FIXTURES" "$work"
count=0
for fixture in "$work"/*.elf; do
    llvm-dwarfdump-19 --verify "$fixture" >"$work/verify.txt" 2>&1 ||
        { cat "$work/verify.txt"; fail "llvm-dwarfdump --verify rejects $(basename "$fixture")"; }
    readelf --debug-dump=info "$fixture" >"$work/info.txt" 2>"$work/warnings.txt" ||
        fail "readelf cannot read $(basename "$fixture")"
    [ ! -s "$work/warnings.txt" ] ||
        { cat "$work/warnings.txt"; fail "readelf warns about $(basename "$fixture")"; }
    # Every DIE the description has, the last one included, decoded.
    grep -q 'DW_AT_name.*: v$' "$work/info.txt" ||
        fail "readelf does not reach the variable 'v' of $(basename "$fixture")"
    count=$((count + 1))
done
[ "$count" = 16 ] || fail "expected 16 fixtures, found $count"
echo "PASS: $count DWARF fixtures accepted by llvm-dwarfdump --verify and readelf"
