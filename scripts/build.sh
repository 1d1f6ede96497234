#!/usr/bin/env bash
# build.sh [DIR [cmake options...]]: configures and builds btforge (default: build/release);
# only the targets BTFORGE_TARGETS lists (space-separated) when it is set.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/build/release}
shift || true
mkdir -p "$(dirname "$dir")"
cmake -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=Release "$@" > "$dir.configure.log" 2>&1 ||
    { cat "$dir.configure.log"; exit 1; }
targets=()
[ -z "${BTFORGE_TARGETS:-}" ] || read -r -a targets <<< "--target $BTFORGE_TARGETS"
cmake --build "$dir" -j "$(nproc)" "${targets[@]}"
