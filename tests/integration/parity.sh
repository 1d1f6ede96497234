#!/usr/bin/env bash
# parity.sh [-B BASE] [--kernel same|require] [--finalize] INPUT
#
# btforge against tools nobody here wrote, on one input:
#  - `btforge dump` and `dump --json` are byte-identical to `bpftool btf dump file` and `-j`;
#  - `btforge convert -o out.btf`: libbpf parses out.btf, bpftool dumps it identically to the
#    input, and the kernel's verifier (BPF_BTF_LOAD) gives it the verdict it gives the input
#    (--kernel same) or accepts it (--kernel require). Split BTF cannot go through BPF_BTF_LOAD.
# --finalize: the input is a BPF object; test the BTF libbpf makes of it before loading (DATASEC
# sizes and offsets filled in) instead of the raw .BTF section.
source "$(dirname "$0")/lib.sh"

base=() base_bpftool=() kernel=same finalize=0
while [ $# -gt 1 ]; do
    case "$1" in
    -B) base=(-B "$2"); base_bpftool=(--base-btf "$2"); require_file "$2"; shift 2 ;;
    --kernel) kernel=$2; shift 2 ;;
    --finalize) finalize=1; shift ;;
    *) fail "unknown option $1" ;;
    esac
done
input=$1
require_file "$input" "fetch it with scripts/fetch-debian-kernel.sh"

if [ "$finalize" = 1 ]; then
    "$BTF_ORACLE" finalize "$input" "$work/finalized.btf" || fail "libbpf cannot open $input"
    input=$work/finalized.btf
fi

"$BPFTOOL" btf dump file "$input" "${base_bpftool[@]}" > "$work/bpftool.txt"
"$BPFTOOL" btf dump file "$input" "${base_bpftool[@]}" -j > "$work/bpftool.json"
[ -s "$work/bpftool.txt" ] || fail "bpftool printed nothing for $input"

"$BTFORGE" --quiet dump "$input" -f btf "${base[@]}" > "$work/btforge.txt"
"$BTFORGE" --quiet dump "$input" -f btf "${base[@]}" --json > "$work/btforge.json"
cmp "$work/bpftool.txt" "$work/btforge.txt" || {
    diff "$work/bpftool.txt" "$work/btforge.txt" | head -20
    fail "text dump differs from bpftool's"
}
cmp "$work/bpftool.json" "$work/btforge.json" || fail "JSON dump differs from bpftool's"

"$BTFORGE" --quiet convert "$input" -f btf "${base[@]}" -o "$work/out.btf"
"$BTF_ORACLE" parse "$work/out.btf" ${base[1]:+"${base[1]}"} > /dev/null ||
    fail "libbpf rejects the converted BTF"
"$BPFTOOL" btf dump file "$work/out.btf" "${base_bpftool[@]}" > "$work/roundtrip.txt"
"$BPFTOOL" btf dump file "$work/out.btf" "${base_bpftool[@]}" -j > "$work/roundtrip.json"
cmp "$work/bpftool.txt" "$work/roundtrip.txt" || fail "bpftool dumps the converted BTF differently"
cmp "$work/bpftool.json" "$work/roundtrip.json" || fail "bpftool's JSON of the converted BTF differs"
types=$(grep -c '^\[' "$work/bpftool.txt")
echo "dump, JSON and round trip identical to bpftool: $types types"

if [ ${#base[@]} -gt 0 ]; then
    echo "kernel check not applicable: BPF_BTF_LOAD takes standalone BTF, this is split BTF"
    exit 0
fi
set +e
"$BTF_ORACLE" load "$work/out.btf"
ours=$?
"$BTF_ORACLE" load "$input" > /dev/null 2>&1
theirs=$?
set -e
[ "$ours" = "$SKIP" ] && skip "BPF_BTF_LOAD is not permitted here"
case "$kernel" in
require) [ "$ours" = 0 ] || fail "the kernel rejects the converted BTF" ;;
same) [ "$ours" = "$theirs" ] ||
    fail "the kernel's verdict differs: converted $ours, input $theirs" ;;
esac
