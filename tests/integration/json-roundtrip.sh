#!/usr/bin/env bash
# json-roundtrip.sh MODE ...: BTF rewritten through JSON reads back as it was (the json loader,
# docs/json-rewriting.md), judged by bpftool.
#   bpftool [-B BASE] INPUT  bpftool's JSON of INPUT (-j), and btforge's (dump --json), converted
#                            back to BTF (-f json, and chosen by content): bpftool dumps the BTF
#                            as it dumps INPUT, byte for byte
#   btforge VMLINUX          btforge's BTF of VMLINUX (from its DWARF) through bpftool's JSON and
#                            btforge's, and back: the same bytes
#   func-addr VMLINUX        the address-carrying FUNC extension (-t btf-func-addr), in both forms
#                            (kind_flag, and the layout feature's kind 20), through btforge's JSON
#                            and back: the same bytes
source "$(dirname "$0")/lib.sh"

mode=$1
shift
base_args "$@"
shift $base_shift
input=$1
require_file "$input" "fetch it with scripts/fetch-debian-kernel.sh"

# back JSON OUT [btforge options...]: JSON converted back to BTF; the output must exist.
back() {
    local json=$1 out=$2
    shift 2
    "$BTFORGE" --quiet convert "$json" "${base[@]}" "$@" -o "$out" ||
        fail "btforge cannot read back $json"
    [ -s "$out" ] || fail "no BTF written from $json"
}
# same_dump A B: bpftool prints A and B alike.
same_dump() {
    "$BPFTOOL" btf dump file "$1" "${base_bpftool[@]}" > "$work/a.txt"
    "$BPFTOOL" btf dump file "$2" "${base_bpftool[@]}" > "$work/b.txt"
    cmp "$work/a.txt" "$work/b.txt" || {
        diff "$work/a.txt" "$work/b.txt" | head -20
        fail "bpftool dumps $2 differently from $1"
    }
}

case "$mode" in
bpftool)
    "$BPFTOOL" btf dump file "$input" "${base_bpftool[@]}" -j > "$work/bpftool.json"
    back "$work/bpftool.json" "$work/from-bpftool.btf" -f json
    same_dump "$input" "$work/from-bpftool.btf"
    "$BTFORGE" --quiet dump "$input" -f btf "${base[@]}" --json > "$work/btforge.json"
    back "$work/btforge.json" "$work/from-btforge.btf" # the loader chosen by content
    same_dump "$input" "$work/from-btforge.btf"
    echo "bpftool's and btforge's JSON read back: $(grep -c '^\[' "$work/a.txt") types as bpftool dumps them"
    ;;
btforge)
    "$BTFORGE" --quiet convert "$input" -o "$work/original.btf"
    "$BPFTOOL" btf dump file "$work/original.btf" -j > "$work/bpftool.json"
    "$BTFORGE" --quiet dump "$work/original.btf" --json > "$work/btforge.json"
    for json in bpftool btforge; do
        back "$work/$json.json" "$work/back.btf"
        cmp "$work/original.btf" "$work/back.btf" || fail "the BTF read back from $json's JSON differs"
    done
    same_dump "$work/original.btf" "$work/back.btf"
    echo "btforge's BTF of $input: identical through bpftool's and btforge's JSON ($(stat -c %s "$work/back.btf") bytes)"
    ;;
func-addr)
    for features in default default,layout; do
        "$BTFORGE" --quiet convert "$input" -t btf-func-addr --features "$features" \
            -o "$work/original.btf"
        "$BTFORGE" --quiet dump "$work/original.btf" --json > "$work/addr.json"
        grep -q '"addr":"0x' "$work/addr.json" || fail "no FUNC address in the JSON ($features)"
        back "$work/addr.json" "$work/back.btf" -t btf-func-addr --features "$features"
        cmp "$work/original.btf" "$work/back.btf" ||
            fail "the extension's BTF read back from JSON differs ($features)"
        echo "$features: $(grep -o '"addr"' "$work/addr.json" | wc -l) FUNC addresses read back, BTF identical"
    done
    ;;
*) fail "unknown mode $mode" ;;
esac
