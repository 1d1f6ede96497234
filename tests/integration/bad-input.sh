#!/usr/bin/env bash
# bad-input.sh INPUT: corruptions of INPUT (truncated, bit-flipped, garbage) must each give
# either exit 1 with one error line naming the file and no output file, or - where a flip
# happens to leave valid BTF - exit 0 with output libbpf accepts. Never a crash, never a hang.
source "$(dirname "$0")/lib.sh"
: "${MUTATE:?}"
input=$1
require_file "$input"
# Every corruption in the release build, a sample under the sanitizers (lib.sh's mutations).
mutations "$input" "$work/cases" 1

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

# An ELF input also goes through --elf, whose writer reads the headers on its own: a corrupt
# one gives exit 1 and no output, or a copy that libbpf reads whenever it reads the input (the
# copy keeps the input's other sections, corrupt ones too). Never a crash.
if cmp -s -n 4 "$input" <(printf '\177ELF'); then
    written=0
    for case in "$work/cases"/*; do
        out="$work/elf-$(basename "$case")"
        set +e
        timeout 20 "$BTFORGE" --quiet convert "$case" -f btf --elf -o "$out" 2> "$work/stderr"
        rc=$?
        set -e
        case "$rc" in
        0) if "$BTF_ORACLE" parse "$case" > /dev/null 2>&1; then
               "$BTF_ORACLE" parse "$out" > /dev/null || fail "$case: --elf wrote a file libbpf rejects"
           fi
           written=$((written + 1)) ;;
        1) [ ! -e "$out" ] || fail "$case: --elf failed but left an output file" ;;
        *) cat "$work/stderr"; fail "$case: --elf exit status $rc (crash or hang)" ;;
        esac
    done
    echo "--elf: $written corrupted ELF inputs still written, the others rejected cleanly"
fi
[ "$rejected" -gt 0 ] || fail "no corruption was rejected: the test is not testing anything"
