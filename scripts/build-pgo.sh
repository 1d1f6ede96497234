#!/usr/bin/env bash
# build-pgo.sh [DIR [cmake options...]]: a release build of btforge optimised with a profile of
# its own runs (docs/performance.md has what it gains), in DIR (default build/pgo), in three
# steps: a build instrumented to record a profile (-DBTFORGE_PGO=GENERATE), the training (the
# command in $BTFORGE_PGO_TRAINING, default scripts/pgo-training.sh, given the instrumented
# btforge), then the build optimised with that profile (-DBTFORGE_PGO=USE), which replaces the
# instrumented one. GCC or clang (for clang, llvm-profdata merges the profile).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/build/pgo}
shift || true
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
profile=$dir/pgo-profile
training=${BTFORGE_PGO_TRAINING:-$root/scripts/pgo-training.sh}

# A profile left by an earlier training would be added to, not replaced.
rm -rf "$profile"
echo "build-pgo: instrumented build in $dir" >&2
"$root/scripts/build.sh" "$dir" -DBTFORGE_TESTS=OFF "$@" -DBTFORGE_PGO=GENERATE \
    -DBTFORGE_PGO_DIR="$profile"
echo "build-pgo: training ($training)" >&2
"$training" "$dir/bin/btforge"
if compgen -G "$profile/*.profraw" > /dev/null; then
    profdata=$(command -v llvm-profdata || compgen -c llvm-profdata- | sort -V | tail -n 1)
    [ -n "$profdata" ] || { echo "build-pgo: clang's profile needs llvm-profdata" >&2; exit 1; }
    "$profdata" merge -o "$profile/btforge.profdata" "$profile"/*.profraw
fi
echo "build-pgo: build with the profile" >&2
"$root/scripts/build.sh" "$dir" -DBTFORGE_PGO=USE
echo "build-pgo: $dir/bin/btforge" >&2
