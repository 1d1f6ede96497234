#!/usr/bin/env bash
# vmlinux-arch.sh VMLINUX: btforge's main job on another architecture's Debian kernel (arm64,
# s390x: whatever VMLINUX was built for), against Debian's pahole 1.24 on the same vmlinux: the
# vmlinux's own .BTF when it has one (pahole 1.24 made it in Debian's build), else pahole 1.24
# run here with the flags Debian's 6.1 build passes it.
#  - named STRUCT/UNION/ENUM/ENUM64/TYPEDEF/FWD/INT/FLOAT, the per-CPU VARs and their DATASEC
#    equal pahole's, multi-dimensional arrays flattened by both;
#  - the BTF is in the vmlinux's byte order; libbpf parses it; the kernel accepts it when byte
#    order and ELF class are this machine's;
#  - the FUNC count is within 3 % of pahole's, and every name only one side has is explained:
#    btforge's skip reason, or (names only btforge has) the function exists only as a compiler
#    clone (foo.isra.0), which pahole < 1.25 cannot match to its DWARF;
#  - -j1 and -j2 give byte-identical output.
source "$(dirname "$0")/lib.sh"
vmlinux=$1
require_file "$vmlinux" "fetch it with scripts/fetch-debian-kernel.sh ARCH"
name=$(basename "$(dirname "$vmlinux")")

"$BTFORGE" --quiet -j 2 convert "$vmlinux" -o "$work/ours.btf" --report-skipped "$work/skipped.json"
"$BTF_ORACLE" parse "$work/ours.btf" > /dev/null || fail "$name: libbpf rejects the output"

# Byte order: the BTF magic as the file's first two bytes, against the ELF's EI_DATA.
elf_data=$(od -An -tu1 -j5 -N1 "$vmlinux" | tr -d ' ')
magic=$(od -An -tx1 -N2 "$work/ours.btf" | tr -d ' ')
case "$elf_data:$magic" in
1:9feb) little=1 ;;
2:eb9f) little=0 ;;
*) fail "$name: BTF magic bytes $magic do not match the ELF byte order (EI_DATA $elf_data)" ;;
esac
# The kernel here judges member sizes with its own pointer size: it can only check BTF of its
# own byte order and ELF class.
host_little=$([ "$(printf '\1\0' | od -An -tu2 | tr -d ' ')" = 1 ] && echo 1 || echo 0)
elf_class=$(od -An -tu1 -j4 -N1 "$vmlinux" | tr -d ' ')
host_class=$([ "$(getconf LONG_BIT)" = 64 ] && echo 2 || echo 1)
if [ "$little" = "$host_little" ] && [ "$elf_class" = "$host_class" ]; then
    require_kernel_accepts "$work/ours.btf"
fi

# The reference: the .BTF section's bytes, or pahole 1.24's output.
if section_bytes "$vmlinux" .BTF "$work/pahole.btf"; then
    echo "$name: reference is the vmlinux's own .BTF (pahole 1.24 in Debian's build)"
else
    command -v pahole > /dev/null || skip "no .BTF in $vmlinux and no pahole to make one"
    pahole --version | grep -qx 'v1.24' || skip "the reference is pahole 1.24; this is $(pahole --version)"
    pahole -J -j2 --btf_gen_floats --lang_exclude=rust --btf_encode_detached="$work/pahole.btf" \
        "$vmlinux" > /dev/null
    echo "$name: reference is Debian's pahole 1.24 run on it (-J -j --btf_gen_floats --lang_exclude=rust)"
fi

set +e
"$BTFORGE" diff -f btf \
    --kinds STRUCT,UNION,ENUM,ENUM64,TYPEDEF,FWD,INT,FLOAT,VAR,DATASEC \
    "$work/pahole.btf" "$work/ours.btf" > "$work/types.diff"
types=$?
set -e
head -n 20 "$work/types.diff"
[ "$types" = 0 ] || { sed -n '20,80p' "$work/types.diff"; fail "$name: named types differ from pahole's"; }

funcs() { "$BTFORGE" dump "$1" | sed -n "s/^\[[0-9]*\] FUNC '\([^']*\)'.*/\1/p" | sort -u; }
funcs "$work/ours.btf" > "$work/ours"
funcs "$work/pahole.btf" > "$work/theirs"
ours=$(wc -l < "$work/ours") theirs=$(wc -l < "$work/theirs")
echo "$name: FUNC names: btforge $ours, pahole 1.24 $theirs"
[ $((ours * 100)) -ge $((theirs * 97)) ] && [ $((ours * 100)) -le $((theirs * 103)) ] ||
    fail "$name: FUNC count not within 3 % of pahole's"
sed -n 's/^{"name":"\([^"]*\)","reason":"\([^"]*\)".*/\1\t\2/p' "$work/skipped.json" |
    sort -t "$(printf '\t')" -k1,1 -u > "$work/reasons"
readelf -sW "$vmlinux" | awk '$4 == "FUNC" { print $8 }' | sort -u > "$work/symbols"
comm -13 "$work/ours" "$work/theirs" > "$work/only-pahole"
comm -23 "$work/ours" "$work/theirs" > "$work/only-btforge"
# Names only pahole has: btforge's reason. Names only btforge has: no symbol of that exact name.
join -t "$(printf '\t')" -a 1 -e 'NO REASON' -o 0,2.2 "$work/only-pahole" "$work/reasons" \
    > "$work/only-pahole.why"
comm -12 "$work/only-btforge" "$work/symbols" > "$work/only-btforge.unexplained"
echo "FUNCs pahole 1.24 emits and btforge does not, by btforge's reason:"
cut -f2 "$work/only-pahole.why" | sort | uniq -c | sort -rn | sed 's/^/  /'
echo "FUNCs btforge emits and pahole 1.24 does not: $(wc -l < "$work/only-btforge"), of which" \
    "$(($(wc -l < "$work/only-btforge") - $(wc -l < "$work/only-btforge.unexplained"))) exist only" \
    "as compiler clones (pahole < 1.25 matches exact symbol names)"
unexplained=$(grep -c 'NO REASON' "$work/only-pahole.why" || true)
grep 'NO REASON' "$work/only-pahole.why" | head -n 20 || true
head -n 20 "$work/only-btforge.unexplained"
[ "$unexplained" = 0 ] && [ ! -s "$work/only-btforge.unexplained" ] ||
    fail "$name: FUNC differences without a reason"
grep -o '"register_check":"[^"]*"' "$work/skipped.json"

"$BTFORGE" --quiet -j 1 convert "$vmlinux" -o "$work/j1.btf"
cmp "$work/ours.btf" "$work/j1.btf" || fail "$name: -j1 output differs from -j2"
echo "$name: pahole-equal named types and per-CPU DATASEC, explained FUNC differences, -j1 = -j2"
