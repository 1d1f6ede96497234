#!/usr/bin/env bash
# func-addr-program.sh SRCDIR: the address-carrying FUNC extension on a program built at test time
# from two units, one compiled by gcc and one by clang (-O2 -g), each with a static `helper` (same
# prototype) and a static `differ` (different prototypes). Addresses are checked against nm.
#   - -t btf-func-addr (the same at -j1): two FUNCs per name at nm's addresses; the helpers share one FUNC_PROTO,
#     the differs do not; absolute addresses (no _text), or relative to --func-addr-base
#   - text and JSON dumps show the addresses; libbpf refuses the extension (it is not standard)
#   - extension -> IR -> extension is byte-identical; extension -> standard (--func-addr=merge)
#     equals DWARF -> standard; the btf emitter refuses the extension, naming it
#   - --func-addr=decl-tag: one FUNC per name and prototype with nm's addresses as DECL_TAGs;
#     libbpf parses it and the standard form
source "$(dirname "$0")/lib.sh"
src=$1
require_file "$src/unit_a.c"
command -v gcc >/dev/null || skip "no gcc"
command -v clang >/dev/null || skip "no clang"

prog=$work/prog
gcc -O2 -g -c "$src/unit_a.c" -o "$work/a.o" || fail "gcc does not build unit_a.c"
clang -O2 -g -c "$src/unit_b.c" -o "$work/b.o" || fail "clang does not build unit_b.c"
gcc "$work/a.o" "$work/b.o" -o "$prog" || fail "cannot link the program"

# nm_addresses NAME: the addresses of NAME's local function symbols, sorted, as 0x... without
# leading zeros.
nm_addresses() {
    nm "$prog" | awk -v n="$1" '$2 == "t" && $3 == n { print $1 }' | sort |
        while read -r a; do printf '0x%x\n' "$((16#$a))"; done
}
# funcs DUMP NAME: "type_id addr" of NAME's FUNCs in a text dump, sorted by address.
funcs() {
    sed -n "s/^\[[0-9]*\] FUNC '$2' type_id=\([0-9]*\) linkage=static addr=\(0x[0-9a-f]*\)$/\1 \2/p" \
        "$1" | sort -k2
}

"$BTFORGE" -q convert "$prog" -t btf-func-addr -o "$work/ext.btf" || fail "btf-func-addr fails"
"$BTFORGE" -q -j1 convert "$prog" -t btf-func-addr -o "$work/ext-j1.btf" || fail "-j1 fails"
cmp "$work/ext.btf" "$work/ext-j1.btf" || fail "the extension differs between -j1 and the default"
"$BTFORGE" dump "$work/ext.btf" >"$work/ext.txt" || fail "cannot dump the extension"
for name in helper differ; do
    expected=$(nm_addresses "$name")
    [ "$(echo "$expected" | wc -l)" = 2 ] || fail "nm shows no two '$name' symbols: $expected"
    got=$(funcs "$work/ext.txt" "$name")
    [ "$(echo "$got" | awk '{print $2}')" = "$expected" ] ||
        fail "'$name' FUNC addresses [$got] are not nm's [$expected]"
    protos=$(echo "$got" | awk '{print $1}' | sort -u | wc -l)
    case $name in
    helper) [ "$protos" = 1 ] || fail "the two helpers do not share one FUNC_PROTO: $got" ;;
    differ) [ "$protos" = 2 ] || fail "the two differs share a FUNC_PROTO: $got" ;;
    esac
done
grep -q "DECL_TAG 'func_addr:absolute'" "$work/ext.txt" ||
    fail "a program without _text has no 'func_addr:absolute' marker"
grep -q "DECL_TAG 'func_addr:not-in-standard=ambiguous address' type_id=" "$work/ext.txt" ||
    fail "no not-in-standard marker on a name at two addresses"
"$BTFORGE" dump --json "$work/ext.btf" | grep '"kind":"FUNC","name":"helper","type_id":[0-9]*,"linkage":"static","addr":"0x' > /dev/null ||
    fail "the JSON dump does not show FUNC addresses"

# Relative to another symbol: the address minus the symbol's value.
main=$(nm "$prog" | awk '$3 == "main" { print $1 }')
"$BTFORGE" -q convert "$prog" -t btf-func-addr --func-addr-base main -o "$work/rel.btf" ||
    fail "--func-addr-base main fails"
"$BTFORGE" dump "$work/rel.btf" >"$work/rel.txt"
grep -q "DECL_TAG 'func_addr:base=main'" "$work/rel.txt" || fail "no 'func_addr:base=main' marker"
expected=$(nm_addresses helper | while read -r a; do printf '0x%x\n' "$((a - 16#$main))"; done | sort)
[ "$(funcs "$work/rel.txt" helper | awk '{print $2}' | sort)" = "$expected" ] ||
    fail "helper addresses relative to main are not [$expected]"

"$BTF_ORACLE" parse "$work/ext.btf" >/dev/null 2>&1 && fail "libbpf parses the extension"

"$BTFORGE" -q convert "$work/ext.btf" -t btf-func-addr -o "$work/ext2.btf" ||
    fail "extension -> extension fails"
cmp "$work/ext.btf" "$work/ext2.btf" || fail "extension -> IR -> extension is not byte-identical"

"$BTFORGE" -q convert "$prog" -o "$work/std.btf" || fail "DWARF -> standard fails"
"$BTFORGE" -q convert "$work/ext.btf" --func-addr=merge -o "$work/merged.btf" ||
    fail "extension -> standard fails"
cmp "$work/std.btf" "$work/merged.btf" || fail "extension -> standard differs from DWARF -> standard"
"$BTF_ORACLE" parse "$work/merged.btf" >/dev/null || fail "libbpf rejects extension -> standard"

status=0
"$BTFORGE" -q convert "$work/ext.btf" -o "$work/refused.btf" 2>"$work/stderr" || status=$?
[ "$status" = 1 ] || fail "the btf emitter on the extension exits $status, not 1"
grep -q "address-carrying FUNC extension" "$work/stderr" ||
    fail "the btf emitter's refusal does not name the extension: $(cat "$work/stderr")"
[ ! -e "$work/refused.btf" ] || fail "a refused conversion left an output file"

"$BTFORGE" -q convert "$work/ext.btf" --func-addr=decl-tag -o "$work/tags.btf" ||
    fail "extension -> DECL_TAG form fails"
"$BTF_ORACLE" parse "$work/tags.btf" >/dev/null || fail "libbpf rejects the DECL_TAG form"
"$BPFTOOL" btf dump file "$work/tags.btf" >"$work/tags.txt" || fail "bpftool cannot dump it"
[ "$(grep -c "FUNC 'helper'" "$work/tags.txt")" = 1 ] || fail "DECL_TAG form: not one helper FUNC"
[ "$(grep -c "FUNC 'differ'" "$work/tags.txt")" = 2 ] || fail "DECL_TAG form: not two differ FUNCs"
helper_id=$(sed -n "s/^\[\([0-9]*\)\] FUNC 'helper'.*/\1/p" "$work/tags.txt")
tags=$(sed -n "s/^\[[0-9]*\] DECL_TAG 'address=\(0x[0-9a-f]*\)' type_id=$helper_id .*/\1/p" \
    "$work/tags.txt" | sort)
[ "$tags" = "$(nm_addresses helper)" ] || fail "helper's address tags [$tags] are not nm's"
echo "ok: helper and differ at nm's addresses in all three forms"
