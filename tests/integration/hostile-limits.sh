#!/usr/bin/env bash
# hostile-limits.sh CASE [--loader NAME]: inputs built at test time to hit btforge's limits.
#   deep-chain   a 20,000-deep anonymous pointer chain converts (dedup is not quadratic), one PTR
#                per level as bpftool counts them
source "$(dirname "$0")/lib.sh"
case_name=$1
loader=dwarf
if [ "${2:-}" = --loader ]; then
    loader=$3
fi

# expect_error INPUT PATTERN [ARGS...]: conversion fails with exit 1, one line
# `btforge: error: ...` matching PATTERN (grep -E), and no output.
expect_error() {
    local input=$1 pattern=$2 rc
    shift 2
    set +e
    "$BTFORGE" convert "$input" -f "$loader" -o "$work/out.btf" "$@" 2> "$work/stderr"
    rc=$?
    set -e
    cat "$work/stderr"
    [ "$rc" = 1 ] || fail "$input: exit $rc, expected 1"
    [ "$(wc -l < "$work/stderr")" = 1 ] || fail "$input: not one line on stderr"
    grep -Eq "^btforge: error: .*$pattern" "$work/stderr" || fail "$input: error does not match '$pattern'"
    [ ! -e "$work/out.btf" ] || fail "$input: an output was left behind"
}

deep_chain() {
    python3 -c 'print("int " + "*" * 20000 + "p;")' > "$work/chain.c"
    gcc -g -c "$work/chain.c" -o "$work/chain.o"
    "$BTFORGE" convert "$work/chain.o" -f "$loader" -o "$work/chain.btf"
    local pointers
    pointers=$("$BPFTOOL" btf dump file "$work/chain.btf" | grep -c "^\[[0-9]*\] PTR ")
    [ "$pointers" = 20000 ] || fail "chain: $pointers PTR types, expected 20000"
}

case "$case_name" in
deep-chain) deep_chain ;;
*) fail "unknown case $case_name" ;;
esac
echo "PASS: $case_name ($loader)"
