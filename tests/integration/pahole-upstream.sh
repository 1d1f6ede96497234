#!/usr/bin/env bash
# pahole-upstream.sh TOOLS VMLINUX [TEST.sh ...]
# Upstream pahole's own test suite with btforge's `pahole` link doing every BTF encoding
# (TOOLS/run-tests-with, see TOOLS/README.md), against the same suite with upstream pahole
# encoding: every test the baseline passes must pass through btforge too. Tests the baseline
# fails or skips (a compiler missing, gcc too old) say nothing and are only listed.
source "$(dirname "$0")/lib.sh"
tools=$1 vmlinux=$2
shift 2
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

# run NAME ENCODER TEST...: the suite's output appended to $work/NAME.log.
run() {
    local name=$1 encoder=$2
    shift 2
    (cd "$work" && "$work/$name/run-tests-with" "$encoder" "$@" -- "$vmlinux") \
        >> "$work/$name.log" 2>&1 || true
}
tests=("$@")
[ ${#tests[@]} -gt 0 ] || mapfile -t tests < <(cd "$tools/tests" && ls ./*.sh | sed 's|^\./||' |
    grep -v '^test_lib.sh$')
# The two runs side by side, but reproducible_build, which counts the threads of every process
# named pahole, one run at a time.
parallel=() serial=()
for t in "${tests[@]}"; do
    if [ "$t" = reproducible_build.sh ]; then serial+=("$t"); else parallel+=("$t"); fi
done
if [ ${#parallel[@]} -gt 0 ]; then
    run upstream upstream "${parallel[@]}" &
    run btforge "$work/bin/pahole" "${parallel[@]}"
    wait
fi
for t in "${serial[@]}"; do
    run upstream upstream "$t"
    run btforge "$work/bin/pahole" "$t"
done
# One "TEST RESULT" line per test (pass, fail, skip) in $work/NAME.results.
for name in upstream btforge; do
    gawk '/^== / { if (t != "") print t, r; t = $2; r = "pass"; next }
          /^FAILED: / { r = "fail" }
          /Skipping test/ { if (r == "pass") r = "skip" }
          END { if (t != "") print t, r }' "$work/$name.log" > "$work/$name.results"
    [ -s "$work/$name.results" ] || fail "$name: no test ran: $(tail -5 "$work/$name.log")"
done

# Failing tests leave their data in /tmp ("Test data is in DIR"): remove what these runs left.
sed -n 's|.*Test data is in \(/tmp/[A-Za-z0-9_.-]*\).*|\1|p' "$work/upstream.log" "$work/btforge.log" |
    while read -r dir; do rm -rf "$dir"; done

printf '%-36s %-9s %s\n' test upstream btforge
broken=()
while read -r test want; do
    got=$(awk -v t="$test" '$1 == t { print $2 }' "$work/btforge.results")
    printf '%-36s %-9s %s\n' "$test" "$want" "${got:-missing}"
    if [ "$want" = pass ] && [ "$got" != pass ]; then
        broken+=("$test")
    fi
done < "$work/upstream.results"
for test in "${broken[@]}"; do
    echo "--- $test through btforge:"
    gawk -v t="$test" '/^== / { on = ($2 == t) } on' "$work/btforge.log" | tail -20
done
[ ${#broken[@]} -eq 0 ] || fail "${#broken[@]} test(s) upstream passes fail through btforge: ${broken[*]}"
echo "every test upstream pahole passes passes with btforge's pahole link"
