#!/usr/bin/env bash
# func-addr-vmlinux.sh VMLINUX FUNC_LOWPC: the address-carrying FUNC extension on a kernel, against
# an independent view of where its functions are: function symbols from `readelf -s` (split-off
# .cold/.part pieces aside, names cut at the first '.') and the code addresses elfutils reports
# for each DW_TAG_subprogram (FUNC_LOWPC: low_pc, or each range's start). A symbol is matched by
# code of its name that starts at it, or inside it: arm64 and riscv64 kernels' functions begin
# with ftrace's NOPs, between the symbol and the DWARF's entry.
#   - every (address, name) both show is a FUNC with that address or a skipped address with a
#     rule's reason (never 'no DWARF at address'); no FUNC has an address they do not show; a
#     skipped address they do not show is one no DWARF describes
#   - addresses are relative to _text, and marked so; extension -> IR -> extension is byte-identical;
#     extension -> standard (--func-addr=merge) equals DWARF -> standard
source "$(dirname "$0")/lib.sh"
vmlinux=$1
func_lowpc=$2
require_file "$vmlinux" "scripts/fetch-debian-kernel.sh fetches it"

"$BTFORGE" -q convert "$vmlinux" -t btf-func-addr --report-skipped "$work/skipped.json" \
    -o "$work/ext.btf" || fail "btf-func-addr fails on $vmlinux"
"$BTFORGE" dump "$work/ext.btf" >"$work/ext.txt"
grep -q "DECL_TAG 'func_addr:base=_text'" "$work/ext.txt" || fail "no func_addr:base=_text marker"
# The name and section index are the last two fields (64-bit PowerPC's symbols have a
# "[<localentry>: 8]" before them).
text=$(readelf -sW "$vmlinux" | awk '$NF == "_text" && !seen++ { print $2 }')
[ -n "$text" ] || fail "no _text symbol"

# FUNCs with an address, made absolute again: "address name".
sed -n "s/^\[[0-9]*\] FUNC '\([^']*\)' type_id=[0-9]* linkage=static addr=0x\([0-9a-f]*\)$/\2 \1/p" \
    "$work/ext.txt" | while read -r rel name; do
    printf '%016x %s\n' "$((16#$rel + 16#$text))" "$name"
done | sort >"$work/funcs"
without=$(grep -c "^\[[0-9]*\] FUNC '[^']*' type_id=[0-9]* linkage=static$" "$work/ext.txt" || true)

# Skipped addresses: "address name reason".
sed -n 's/^{"name":"\([^"]*\)","address":"0x\([0-9a-f]*\)","reason":"\([^"]*\)".*/\2 \1 \3/p' \
    "$work/skipped.json" | while read -r a name reason; do
    printf '%016x %s %s\n' "$((16#$a))" "$name" "$reason"
done | sort >"$work/skipped"

# The independent view.
readelf -sW "$vmlinux" | awk '$4 == "FUNC" && $(NF - 1) != "UND" && $NF !~ /\.(cold|part)/ {
    n = $NF; sub(/\..*/, "", n); printf "%016s %s %s\n", $2, $3, n }' | sort -u >"$work/symbols"
"$func_lowpc" "$vmlinux" | awk '{ printf "%016s %s\n", $1, $2 }' | sort -u >"$work/code"
python3 - "$work/symbols" "$work/code" <<'EOF' | sort -u >"$work/matched"
import collections, sys
code = collections.defaultdict(list)
for line in open(sys.argv[2]):
    address, name = line.split()
    code[name].append(int(address, 16))
for line in open(sys.argv[1]):
    address, size, name = line.split()
    start, size = int(address, 16), int(size, 0)
    if any(start <= entry < start + max(size, 1) for entry in code[name]):
        print(f"{start:016x} {name}")
EOF

cut -d' ' -f1,2 "$work/skipped" | sort -u >"$work/skipped-at"
comm -23 "$work/funcs" "$work/matched" >"$work/unexplained-funcs"
[ ! -s "$work/unexplained-funcs" ] ||
    fail "FUNCs at addresses no DWARF subprogram of that name starts at: $(head -3 "$work/unexplained-funcs")"
comm -12 "$work/funcs" "$work/skipped-at" | grep . > /dev/null && fail "an address is both a FUNC and skipped"
comm -23 "$work/matched" "$work/funcs" >"$work/missing"
comm -23 "$work/missing" "$work/skipped-at" >"$work/unexplained"
[ ! -s "$work/unexplained" ] ||
    fail "$(wc -l <"$work/unexplained") matched addresses neither FUNC nor skipped: $(head -3 "$work/unexplained")"
# Where the independent view sees DWARF code, btforge must too.
awk '$3 == "no" && $4 == "DWARF" { print $1, $2 }' "$work/skipped" | sort -u |
    comm -12 "$work/matched" - >"$work/unseen"
[ ! -s "$work/unseen" ] ||
    fail "$(wc -l <"$work/unseen") addresses with DWARF code skipped as 'no DWARF at address': $(head -3 "$work/unseen")"
comm -13 "$work/matched" "$work/skipped-at" >"$work/skipped-elsewhere"
if [ -s "$work/skipped-elsewhere" ]; then
    join -j1 <(awk '{ print $1 "_" $2, $0 }' "$work/skipped-elsewhere" | sort) \
        <(awk '{ print $1 "_" $2, $0 }' "$work/skipped" | sort) |
        grep -v " no DWARF at address$" && fail "a skip reason other than 'no DWARF at address' for an address without DWARF"
fi

funcs=$(wc -l <"$work/funcs")
matched=$(wc -l <"$work/matched")
ruled=$(comm -12 "$work/matched" "$work/skipped-at" | wc -l)
[ "$funcs" -eq "$((matched - ruled))" ] || fail "$funcs FUNCs with addresses, expected $matched - $ruled"
multi=$(awk '{ print $2 }' "$work/matched" | sort | uniq -d | wc -l)
multi_present=$(awk '{ print $2 }' "$work/funcs" | sort | uniq -d | wc -l)
echo "symbols with DWARF code of their name in them: $matched; FUNCs with addresses: $funcs;" \
    "skipped by a rule: $ruled; FUNCs without address (no DWARF at the symbol): $without"
echo "names at several matched addresses: $multi; with FUNCs at several: $multi_present"

"$BTFORGE" -q convert "$work/ext.btf" -t btf-func-addr -o "$work/ext2.btf" || fail "ext -> ext fails"
cmp "$work/ext.btf" "$work/ext2.btf" || fail "extension -> IR -> extension is not byte-identical"
"$BTFORGE" -q convert "$work/ext.btf" --func-addr=merge -o "$work/merged.btf" || fail "merge fails"
"$BTFORGE" -q convert "$vmlinux" -o "$work/std.btf" || fail "DWARF -> standard fails"
cmp "$work/std.btf" "$work/merged.btf" || fail "extension -> standard differs from DWARF -> standard"
"$BTF_ORACLE" parse "$work/merged.btf" >/dev/null || fail "libbpf rejects extension -> standard"
echo "ok: sizes: standard $(stat -c %s "$work/std.btf"), extension $(stat -c %s "$work/ext.btf")"
