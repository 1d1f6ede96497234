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

# A writable copy: the tests build tests/bin there. Symbolic links (pfunct, pdwtags,
# lib/*.so.1) are kept there as small text files naming the file they point to.
cp -r "$tools" "$work/pahole"
chmod -R u+w "$work/pahole"
while read -r f; do
    target=$(cat "$f")
    [ -e "$(dirname "$f")/$target" ] && ln -sf "$target" "$f"
done < <(find "$work/pahole" -type f ! -perm -u+x -size -64c)
mkdir "$work/bin"
ln -s "$BTFORGE" "$work/bin/pahole"

# run ENCODER NAME: the suite's output in $work/NAME.log, one "TEST RESULT" line per test in
# $work/NAME.results (pass, fail, skip).
run() {
    (cd "$work" && TMPDIR="$work" "$work/pahole/run-tests-with" "$1" "${tests[@]}" -- "$vmlinux") \
        > "$work/$2.log" 2>&1 || true
    gawk '/^== / { if (t != "") print t, r; t = $2; r = "pass"; next }
          /^FAILED: / { r = "fail" }
          /Skipping test/ { if (r == "pass") r = "skip" }
          END { if (t != "") print t, r }' "$work/$2.log" > "$work/$2.results"
    [ -s "$work/$2.results" ] || fail "$2: no test ran: $(tail -5 "$work/$2.log")"
}
tests=("$@")
run upstream upstream
run "$work/bin/pahole" btforge

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
