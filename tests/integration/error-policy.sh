#!/usr/bin/env bash
# error-policy.sh SOURCE_DIR: one error policy (docs/architecture.md): Expected for what input can
# reach, assert for invariants, never an exception thrown by btforge's own code (a worker's would
# end the process through std::terminate; none may cross a plugin boundary).
source "$(dirname "$0")/lib.sh"
src=$1
# Code lines only: comments (// ...) are not code.
if grep -rnE --include='*.cpp' --include='*.h' '^[^/]*\bthrow\b' \
    "$src/core" "$src/host" "$src/plugins" "$src/include" > "$work/throws"; then
    cat "$work/throws"
    fail "btforge's code throws: return an Expected, or assert an invariant"
fi
echo "PASS: no throw in core/, host/, plugins/ or include/"
