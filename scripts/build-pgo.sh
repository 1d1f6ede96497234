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
    # clang's raw profile, merged by the llvm-profdata of its own version (another version may
    # not read its format).
    cxx=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$dir/CMakeCache.txt")
    major=$("$cxx" -dumpversion | cut -d. -f1)
    profdata=$(command -v "llvm-profdata-$major" || true)
    if [ -z "$profdata" ] && llvm-profdata --version 2> /dev/null | grep -q "version $major\."; then
        profdata=$(command -v llvm-profdata)
    fi
    [ -n "$profdata" ] || { echo "build-pgo: clang $major's profile needs llvm-profdata-$major" >&2; exit 1; }
    "$profdata" merge -o "$profile/btforge.profdata" "$profile"/*.profraw
fi
echo "build-pgo: build with the profile" >&2
"$root/scripts/build.sh" "$dir" -DBTFORGE_PGO=USE
echo "build-pgo: $dir/bin/btforge" >&2
