#!/usr/bin/env bash
# bad-input.sh INPUT: corruptions of INPUT (truncated, bit-flipped, garbage) must each give
# either exit 1 with one error line naming the file and no output file, or - where a flip
# happens to leave valid BTF - exit 0 with output libbpf accepts. Never a crash, never a hang.
source "$(dirname "$0")/lib.sh"
: "${MUTATE:?}"
input=$1
require_file "$input"
mkdir "$work/cases"
"$MUTATE" "$input" "$work/cases"

rejected=0 accepted=0
for case in "$work/cases"/*; do
    name=$(basename "$case")
    out="$work/out-$name.btf"
    set +e
    timeout 20 "$BTFORGE" --quiet convert "$case" -f btf -o "$out" 2> "$work/stderr"
    rc=$?
    set -e
    case "$rc" in
    0)
        [[ "$name" != trunc-* ]] || fail "$name: a truncated input was accepted"
        "$BTF_ORACLE" parse "$out" > /dev/null || fail "$name: accepted, but libbpf rejects the output"
        accepted=$((accepted + 1))
        ;;
    1)
        [ ! -e "$out" ] || fail "$name: failed but left an output file"
        [ "$(wc -l < "$work/stderr")" = 1 ] || { cat "$work/stderr"; fail "$name: not one error line"; }
        grep -q "^btforge: error: $case" "$work/stderr" || { cat "$work/stderr"; fail "$name: the error does not name the file"; }
        rejected=$((rejected + 1))
        ;;
    *)
        cat "$work/stderr"
        fail "$name: exit status $rc (crash or hang)"
        ;;
    esac
done
echo "$rejected corrupted inputs rejected cleanly, $accepted still valid and accepted"
[ "$rejected" -gt 0 ] || fail "no corruption was rejected: the test is not testing anything"
