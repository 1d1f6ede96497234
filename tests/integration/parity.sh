#!/usr/bin/env bash
# parity.sh [-B BASE] [--kernel same|require] [--finalize] INPUT
#
# btforge against tools nobody here wrote, on one input:
#  - `btforge dump` and `dump --json` are byte-identical to `bpftool btf dump file` and `-j`, but
#    for the kind_flag btforge adds to attribute-form tags, which bpftool does not print: exactly
#    the tags libbpf reads with kind_flag 1 have it;
#  - `btforge convert -o out.btf`: libbpf parses out.btf, bpftool dumps it identically to the
#    input, libbpf reads its tags' kind_flags as the input's, and the kernel's verifier
#    (BPF_BTF_LOAD) gives it the verdict it gives the input (--kernel same) or accepts it
#    (--kernel require). Split BTF cannot go through BPF_BTF_LOAD.
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
"$BTF_ORACLE" tags "$input" ${base[1]:+"${base[1]}"} > "$work/tags.txt" ||
    fail "libbpf cannot read the tags of $input"
attributes=$(awk '$3 == "kind_flag=1" {print $1}' "$work/tags.txt")
tag_line='^\[\([0-9]*\)\] \(TYPE_TAG\|DECL_TAG\) .* kind_flag=1$'
[ "$(sed -n "s/$tag_line/\1/p" "$work/btforge.txt")" = "$attributes" ] ||
    fail "the text dump's kind_flag=1 tags are not libbpf's attribute-form tags"
json_tag='"id":[0-9]*,"kind":"[A-Z_]*TAG","name":"[^"]*","type_id":[0-9]*,'
json_tag+='\("component_idx":-*[0-9]*,\)*"kind_flag":1}'
[ "$(grep -o "$json_tag" "$work/btforge.json" | sed 's/^"id":\([0-9]*\),.*/\1/')" = "$attributes" ] ||
    fail "the JSON dump's kind_flag tags are not libbpf's attribute-form tags"
sed "/$tag_line/s/ kind_flag=1\$//" "$work/btforge.txt" > "$work/btforge-as-bpftool.txt"
sed 's/,"kind_flag":1}/}/g' "$work/btforge.json" > "$work/btforge-as-bpftool.json"
cmp "$work/bpftool.txt" "$work/btforge-as-bpftool.txt" || {
    diff "$work/bpftool.txt" "$work/btforge-as-bpftool.txt" | head -20
    fail "text dump differs from bpftool's"
}
cmp "$work/bpftool.json" "$work/btforge-as-bpftool.json" || fail "JSON dump differs from bpftool's"

"$BTFORGE" --quiet convert "$input" -f btf "${base[@]}" -o "$work/out.btf"
"$BTF_ORACLE" parse "$work/out.btf" ${base[1]:+"${base[1]}"} > /dev/null ||
    fail "libbpf rejects the converted BTF"
"$BPFTOOL" btf dump file "$work/out.btf" "${base_bpftool[@]}" > "$work/roundtrip.txt"
"$BPFTOOL" btf dump file "$work/out.btf" "${base_bpftool[@]}" -j > "$work/roundtrip.json"
cmp "$work/bpftool.txt" "$work/roundtrip.txt" || fail "bpftool dumps the converted BTF differently"
cmp "$work/bpftool.json" "$work/roundtrip.json" || fail "bpftool's JSON of the converted BTF differs"
"$BTF_ORACLE" tags "$work/out.btf" ${base[1]:+"${base[1]}"} | cmp - "$work/tags.txt" ||
    fail "libbpf reads the converted BTF's tags differently"
types=$(grep -c '^\[' "$work/bpftool.txt")
echo "dump, JSON and round trip identical to bpftool: $types types ($(echo $attributes | wc -w) attribute-form tags)"

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
