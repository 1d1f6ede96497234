#!/usr/bin/env bash
# docs-example.sh PAGE: runs a documentation page's worked example as written: its ```sh blocks, in
# order, in one shell (set -euo pipefail) in an empty directory, with the btforge under test first
# on PATH; a ```text block right after a ```sh block is that block's output, compared exactly.
source "$(dirname "$0")/lib.sh"
page=$1
require_file "$page"
mkdir "$work/bin" "$work/example" "$work/out"
ln -s "$BTFORGE" "$work/bin/btforge"

python3 - "$page" "$work/example.sh" "$work/out" <<'PY'
import re, sys
page, script, out = sys.argv[1:]
blocks = re.findall(r"^```(\w*)\n(.*?)^```\s*$", open(page).read(), re.S | re.M)
lines = ["set -euo pipefail"]
for i, (lang, text) in enumerate(blocks):
    if lang == "sh":
        lines.append("{\n" + text + "} > " + f"{out}/{i}.out")
        if i + 1 < len(blocks) and blocks[i + 1][0] == "text":
            open(f"{out}/{i}.expected", "w").write(blocks[i + 1][1])
open(script, "w").write("\n".join(lines) + "\n")
PY
grep -q . "$work/example.sh" || fail "no sh block in $page"
(cd "$work/example" && PATH="$work/bin:$PATH" bash "$work/example.sh") ||
    fail "the example of $page fails as written"
compared=0
for expected in "$work"/out/*.expected; do
    [ -e "$expected" ] || continue
    got=${expected%.expected}.out
    cmp "$expected" "$got" || {
        diff "$expected" "$got" | head -20
        fail "block $(basename "${got%.out}") of $page prints something else than the page shows"
    }
    compared=$((compared + 1))
done
echo "$page: $(ls "$work"/out/*.out | wc -l) sh blocks ran as written, $compared outputs as shown"
