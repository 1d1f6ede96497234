#!/usr/bin/env bash
# vmlinux-pahole.sh VMLINUX PAHOLE_BTF_XZ PAHOLE_SKIPPED_TSV: btforge's main job on the Debian
# cloud kernel, against pahole v1.31's output on the same vmlinux (shared/data) and against the
# kernel and libbpf:
#  - the kernel accepts the BTF (BPF_BTF_LOAD) and libbpf parses it;
#  - named STRUCT/UNION/ENUM/ENUM64/TYPEDEF/FWD/INT/FLOAT and the per-CPU DATASEC and its VARs
#    equal pahole's (btforge diff: names, sizes, members, offsets, bitfields, values, types);
#  - every FUNC only one side has is listed with the reason the other side gives for leaving it
#    out; a difference nobody explains fails the test (docs/functions.md defends each kind);
#  - -j1, -j2 and -j4 give byte-identical output, and so does a second run (under the
#    sanitizers: -j4 against -j2 only);
#  - dedup oracle: libbpf's btf__dedup, given btforge's output without dedup (--no-dedup),
#    reaches no fewer types than btforge does.
source "$(dirname "$0")/lib.sh"
vmlinux=$1 reference=$2 reference_skipped=$3
require_file "$vmlinux" "fetch it with scripts/fetch-debian-kernel.sh"
require_file "$reference"
require_file "$reference_skipped"

convert() { # jobs output
    "$BTFORGE" --quiet -j "$1" convert "$vmlinux" -o "$2" --report-skipped "$2.skipped.json"
}
convert 2 "$work/j2.btf"
"$BTF_ORACLE" parse "$work/j2.btf" || fail "libbpf rejects the output"
set +e
"$BTF_ORACLE" load "$work/j2.btf"
verdict=$?
set -e
[ "$verdict" = 0 ] || [ "$verdict" = "$SKIP" ] || fail "the kernel rejects the output"

xz -dc "$reference" > "$work/pahole.btf"
set +e
# Both flatten multi-dimensional arrays: compared as written.
"$BTFORGE" diff -f btf --kinds STRUCT,UNION,ENUM,ENUM64,TYPEDEF,FWD,INT,FLOAT,VAR,DATASEC \
    "$work/pahole.btf" "$work/j2.btf" > "$work/types.diff"
types=$?
set -e
head -n 20 "$work/types.diff"
[ "$types" = 0 ] || { sed -n '20,80p' "$work/types.diff"; fail "named types differ from pahole's"; }

# FUNC sets, by name: every name one side has and the other lacks needs the other's reason.
"$BPFTOOL" btf dump file "$work/j2.btf" | sed -n "s/^\[[0-9]*\] FUNC '\([^']*\)'.*/\1/p" | sort > "$work/ours"
"$BPFTOOL" btf dump file "$work/pahole.btf" | sed -n "s/^\[[0-9]*\] FUNC '\([^']*\)'.*/\1/p" | sort > "$work/theirs"
# btforge's reason with its detail (which parameter, which symbol, which DIEs).
sed -n 's/^{"name":"\([^"]*\)","reason":"\([^"]*\)"\(,"detail":"\([^"]*\)"\)\{0,1\}.*/\1\t\2 (\4)/p' \
    "$work/j2.btf.skipped.json" | sed 's/ ()$//' | sort > "$work/our-reasons"
# pahole's list also carries comparison details; keep each name's final reason.
grep -E "$(printf '\t')(optimized parameters|ambiguous address|reordered parameters|inconsistet prototype|unexpected register usage for parameter|uncertain parameter location)\$" \
    "$reference_skipped" | sort -t "$(printf '\t')" -k1,1 -u > "$work/their-reasons"
unexplained=0
explain() { # names-file reasons-file who
    while IFS= read -r name; do
        reason=$(awk -F '\t' -v n="$name" '$1 == n {print $2; exit}' "$2")
        echo "  $name: $3 skip it: ${reason:-NO REASON}"
        [ -n "$reason" ] || unexplained=$((unexplained + 1))
    done < "$1"
}
comm -13 "$work/ours" "$work/theirs" > "$work/only-pahole"
comm -23 "$work/ours" "$work/theirs" > "$work/only-btforge"
echo "FUNC: btforge $(wc -l < "$work/ours"), pahole $(wc -l < "$work/theirs")"
echo "FUNCs pahole emits and btforge does not ($(wc -l < "$work/only-pahole")), with btforge's reason:"
explain "$work/only-pahole" "$work/our-reasons" btforge
echo "FUNCs btforge emits and pahole does not ($(wc -l < "$work/only-btforge")), with pahole's reason:"
explain "$work/only-btforge" "$work/their-reasons" pahole
# Where btforge says 'optimized parameters' and pahole keeps the function, either the code is a
# gcc clone (.isra/.constprop) split into hot and cold parts (a .cold symbol): its DWARF gives
# the address as DW_AT_ranges, which pahole does not read, so pahole misses that the code is the
# clone (upstream skips such clones when it sees them, commit fb8328e: same rule, seen more);
# or each parameter btforge names is past the six argument registers, where pahole checks
# nothing, and llvm-dwarfdump shows the clone is not passed it (at entry: no location, a
# constant, or DW_OP_GNU_parameter_ref, the caller's value).
nm "$vmlinux" | awk '$3 ~ /\.(isra|constprop)\.[0-9]+\.cold$/ { sub(/\..*/, "", $3); print $3 }' |
    sort -u > "$work/cold-clones"
not_passed_on_stack() { # name
    local detail die n locations
    detail=$(awk -F '\t' -v n="$1" '$1 == n {print $2; exit}' "$work/our-reasons")
    die=$(sed -n 's/.*(DIE \(0x[0-9a-f]*\)))$/\1/p' <<< "$detail")
    [ -n "$die" ] || return 1
    locations=$("$(dirname "$0")/../../scripts/param-locations.sh" "$vmlinux" "$die")
    for n in $(grep -oE "[0-9]+ '[^']*'" <<< "$detail" | cut -d' ' -f1); do
        grep -qE "#$n [^;]*= (\(GNU_parameter_ref[^)]*\)|const|none) \[slot stack\]" <<< "$locations" ||
            return 1
    done
}
while IFS= read -r name; do
    grep -q "^$name$(printf '\t')optimized parameters" "$work/our-reasons" || continue
    grep -qx "$name" "$work/cold-clones" || not_passed_on_stack "$name" ||
        { echo "  $name: neither a cold-split clone nor short of a stack argument"; unexplained=$((unexplained + 1)); }
done < "$work/only-pahole"
echo "by reason:"
cut -d: -f2- <(explain "$work/only-pahole" "$work/our-reasons" btforge) | sed 's/ (.*//' |
    sort | uniq -c | sort -rn | sed 's/^/  /'
[ "$unexplained" = 0 ] || fail "$unexplained FUNC differences have no reason"

# Under the sanitizers each conversion takes minutes: -j4 alone there, the rest in release.
runs=(1 4 2)
[ "${BTFORGE_SANITIZED:-0}" != 1 ] || runs=(4)
for jobs in "${runs[@]}"; do
    convert "$jobs" "$work/again.btf"
    cmp "$work/j2.btf" "$work/again.btf" || fail "-j$jobs output differs from the first -j2 run"
done
"$BTFORGE" --quiet convert "$vmlinux" --no-dedup -o "$work/no-dedup.btf"
ours=$("$BTF_ORACLE" parse "$work/j2.btf" | cut -d' ' -f1)
theirs=$("$BTF_ORACLE" dedup "$work/no-dedup.btf" | cut -d' ' -f1)
echo "types: btforge $ours; libbpf's btf__dedup of btforge's output before dedup: $theirs"
[ "$ours" -le "$theirs" ] || fail "btforge's dedup leaves more types than libbpf's"
rm -f "$work/no-dedup.btf"
echo "kernel-accepted, pahole-equal named types, explained FUNC differences, identical at -j1/-j2/-j4, dedup <= libbpf"
