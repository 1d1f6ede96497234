#!/usr/bin/env bash
# pahole-upstream.sh TOOLS VMLINUX [--except TEST.sh,...] [TEST.sh ...]
# Upstream pahole's own test suite (or the TESTs named, or all but those --except names) with
# btforge's `pahole` link doing every BTF encoding (TOOLS/run-tests-with, see TOOLS/README.md),
# against the same suite with upstream pahole encoding: every test the baseline passes must pass
# through btforge too. The baseline runs only the tests btforge does not pass: a pass needs no
# oracle, and the suite's longest test (btf_functions, a shell loop over every function of the
# vmlinux) takes minutes whoever encodes. Tests the baseline fails or skips too (a compiler
# missing, gcc too old) say nothing and are only listed.
source "$(dirname "$0")/lib.sh"
tools=$1 vmlinux=$2 except=
shift 2
if [ "${1:-}" = --except ]; then
    except=$2
    shift 2
fi
require_file "$tools/run-tests-with" "upstream pahole and its tests, in ../shared/tools"
require_file "$vmlinux" "fetch it with scripts/fetch-debian-kernel.sh"
command -v gawk > /dev/null || skip "the suite needs gawk (scripts/install-deps.sh)"
# A test of behaviour that runs btforge on the vmlinux a dozen times: the release build's job.
[ "${BTFORGE_SANITIZED:-0}" != 1 ] || skip "run by the release build only (minutes under ASan)"

# One writable copy per run (the tests build tests/bin there). Symbolic links (pfunct, pdwtags,
# lib/*.so.1) are kept in TOOLS as small text files naming the file they point to.
for copy in upstream btforge; do
    runnable_copy "$tools" "$work/$copy"
done
mkdir "$work/bin"
ln -s "$(readlink -f "$BTFORGE")" "$work/bin/pahole"

# run NAME ENCODER TEST...: the suite's output appended to $work/NAME.log, one "TEST RESULT" line
# per test (pass, fail, skip) in $work/NAME.results.
run() {
    local name=$1 encoder=$2
    shift 2
    (cd "$work" && "$work/$name/run-tests-with" "$encoder" "$@" -- "$vmlinux") \
        >> "$work/$name.log" 2>&1 || true
    gawk '/^== / { if (t != "") print t, r; t = $2; r = "pass"; next }
          /^FAILED: / { r = "fail" }
          /Skipping test/ { if (r == "pass") r = "skip" }
          END { if (t != "") print t, r }' "$work/$name.log" > "$work/$name.results"
}
tests=("$@")
[ ${#tests[@]} -gt 0 ] || mapfile -t tests < <(cd "$tools/tests" && ls ./*.sh | sed 's|^\./||' |
    grep -v -x -F -e test_lib.sh -e "${except//,/$'\n'}")
run btforge "$work/bin/pahole" "${tests[@]}"
[ -s "$work/btforge.results" ] || fail "no test ran: $(tail -5 "$work/btforge.log")"
mapfile -t unpassed < <(awk '$2 != "pass" { print $1 }' "$work/btforge.results")
[ ${#unpassed[@]} -eq 0 ] || run upstream upstream "${unpassed[@]}"

# Failing tests leave their data in /tmp ("Test data is in DIR"): remove what these runs left.
sed -n 's|.*Test data is in \(/tmp/[A-Za-z0-9_.-]*\).*|\1|p' "$work"/*.log |
    while read -r dir; do rm -rf "$dir"; done

printf '%-36s %-9s %s\n' test btforge upstream
broken=()
while read -r test got; do
    want="(not run)"
    [ "$got" = pass ] || want=$(awk -v t="$test" '$1 == t { print $2 }' "$work/upstream.results")
    printf '%-36s %-9s %s\n' "$test" "$got" "${want:-missing}"
    [ "$want" != pass ] || broken+=("$test")
done < "$work/btforge.results"
[ "$(wc -l < "$work/btforge.results")" -eq ${#tests[@]} ] ||
    fail "$(wc -l < "$work/btforge.results") results for ${#tests[@]} tests: $(tail -5 "$work/btforge.log")"
for test in "${broken[@]}"; do
    echo "--- $test through btforge:"
    gawk -v t="$test" '/^== / { on = ($2 == t) } on' "$work/btforge.log" | tail -20
done
[ ${#broken[@]} -eq 0 ] || fail "${#broken[@]} test(s) upstream passes fail through btforge: ${broken[*]}"
echo "every test upstream pahole passes passes with btforge's pahole link"
