#!/usr/bin/env bash
# test-quick.sh [DIR]: the minutes-long check while editing: a release build (through ccache when
# it is installed) of what the unit tests need, then the unit tests and the DWARF fixture check
# (ctest `unit`, `dwarf-fixtures`). Default DIR: build/release. The whole suite: scripts/test.sh.
# Needs the packages scripts/install-deps.sh installs.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/build/release}
launcher=()
if command -v ccache > /dev/null; then
    launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
mkdir -p "$(dirname "$dir")"
cmake -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" > "$dir.configure.log" 2>&1 ||
    { cat "$dir.configure.log"; exit 1; }
cmake --build "$dir" -j "$(nproc)" --target btforge-unit-tests btforge-dwarf-fixtures
cd "$dir" && ctest --output-on-failure -R '^(unit|dwarf-fixtures)$'
