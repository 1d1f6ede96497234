#!/usr/bin/env bash
# json-roundtrip.sh MODE ...: BTF rewritten through JSON reads back as it was (the json loader,
# docs/json-rewriting.md), judged by bpftool.
#   bpftool [-B BASE] INPUT  bpftool's JSON of INPUT (-j), and btforge's (dump --json), converted
#                            back to BTF (-f json, and chosen by content): bpftool dumps the BTF
#                            as it dumps INPUT, byte for byte, and libbpf reads the tags as
#                            INPUT's (through bpftool's JSON, but for their kind_flag: bpftool
#                            does not print it)
#   btforge VMLINUX          btforge's BTF of VMLINUX (from its DWARF) through bpftool's JSON and
#                            btforge's, and back: the same bytes
#   attributes ELF           attribute-form tags (kind_flag 1): ELF's BTF with the attributes
#                            feature (arena pointers' TYPE_TAGs), and a DECL_TAG written as JSON,
#                            through btforge's JSON and back: the same bytes, and libbpf reads
#                            the same kind_flags
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
# tags FILE: its TYPE_TAGs and DECL_TAGs as libbpf reads them, kind_flag included.
tags() {
    "$BTF_ORACLE" tags "$1" ${base[1]:+"${base[1]}"} || fail "libbpf cannot read the tags of $1"
}
# same_tags A B [--without-kind-flag]: libbpf reads the tags of A and B alike.
same_tags() {
    local filter=(cat)
    [ "${3:-}" = --without-kind-flag ] && filter=(sed 's/ kind_flag=[01] / /')
    tags "$1" | "${filter[@]}" > "$work/a.tags"
    tags "$2" | "${filter[@]}" > "$work/b.tags"
    cmp "$work/a.tags" "$work/b.tags" || {
        diff "$work/a.tags" "$work/b.tags" | head -20
        fail "libbpf reads the tags of $2 differently from $1's"
    }
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
    same_tags "$input" "$work/from-bpftool.btf" --without-kind-flag
    "$BTFORGE" --quiet dump "$input" -f btf "${base[@]}" --json > "$work/btforge.json"
    back "$work/btforge.json" "$work/from-btforge.btf" # the loader chosen by content
    same_dump "$input" "$work/from-btforge.btf"
    same_tags "$input" "$work/from-btforge.btf"
    echo "bpftool's and btforge's JSON read back: $(grep -c '^\[' "$work/a.txt") types as bpftool dumps them," \
        "$(grep -c 'kind_flag=1' "$work/a.tags") attribute-form tags kept through btforge's"
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
attributes)
    "$BTFORGE" --quiet convert "$input" --features default,attributes -o "$work/original.btf"
    tags "$work/original.btf" | grep -q "^[0-9]* TYPE_TAG kind_flag=1 " ||
        fail "no attribute-form TYPE_TAG in the BTF of $input"
    "$BTFORGE" --quiet dump "$work/original.btf" --json > "$work/btforge.json"
    back "$work/btforge.json" "$work/back.btf"
    cmp "$work/original.btf" "$work/back.btf" || fail "the BTF read back from btforge's JSON differs"
    same_tags "$work/original.btf" "$work/back.btf"
    # A DECL_TAG in both forms, as someone editing the JSON writes it.
    cat > "$work/decl.json" <<'JSON'
{"types":[{"id":1,"kind":"INT","name":"int","size":4,"bits_offset":0,"nr_bits":32,"encoding":"SIGNED"},
{"id":2,"kind":"DECL_TAG","name":"bpf_fastcall","type_id":1,"component_idx":-1,"kind_flag":1},
{"id":3,"kind":"DECL_TAG","name":"kfunc","type_id":1,"component_idx":-1}]}
JSON
    back "$work/decl.json" "$work/decl.btf"
    printf "%s\n" "2 DECL_TAG kind_flag=1 'bpf_fastcall' type_id=1" \
        "3 DECL_TAG kind_flag=0 'kfunc' type_id=1" | cmp - <(tags "$work/decl.btf") ||
        fail "libbpf does not read the DECL_TAGs' kind_flags as the JSON gives them"
    "$BTFORGE" --quiet dump "$work/decl.btf" --json > "$work/decl-again.json"
    back "$work/decl-again.json" "$work/decl-again.btf"
    cmp "$work/decl.btf" "$work/decl-again.btf" || fail "the DECL_TAGs do not read back alike"
    echo "$(grep -c 'kind_flag=1' "$work/a.tags") attribute-form tags and two DECL_TAGs through btforge's JSON: BTF identical"
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
