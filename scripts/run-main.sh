#!/usr/bin/env bash
# The main job on the bundled default input: installs what is missing, builds, converts the DWARF
# of a small C program (tests/inputs/sample.c, built with gcc -g -O2) to BTF and prints it as
# bpftool would.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
mkdir -p "$root/build"
"$root/scripts/build.sh" "$root/build/release" > "$root/build/build.log" 2>&1 ||
    { tail -n 40 "$root/build/build.log"; exit 1; }
btforge=$root/build/release/bin/btforge
input=$root/build/release/tests/inputs/sample
"$btforge" convert "$input" -o "$root/build/sample.btf"
echo "wrote $root/build/sample.btf ($(stat -c %s "$root/build/sample.btf") bytes) from $input:" >&2
"$btforge" dump "$root/build/sample.btf"
