#!/usr/bin/env bash
# heavy-checks.sh [BUILD]: the checks too long for the test command (scripts/test.sh must end
# within CI's 90 minutes on a slow machine), run before resolving an issue that touches what they
# cover; their last results are in docs/performance.md ("The test command's time"):
#  - pgo-build: the profile-guided build by the other compiler (tests/integration/pgo-build.sh
#    build): trained, no instrumentation left, its btforge writes BUILD's bytes (two builds);
#  - btf_functions: upstream pahole's test of every function of the Debian vmlinux, btforge
#    encoding (tests/integration/pahole-upstream.sh; a quarter of an hour on one core).
# The two run side by side. BUILD is a release build with its tests (default build/release); the
# Debian amd64 kernel is fetched when missing. Exit status 1 when either fails or is skipped.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build/release}" && pwd)
if [ ! -x "$build/bin/btforge" ] || [ ! -x "$build/bin/btf-oracle" ]; then
    echo "error: $build: no release build with its tests (scripts/build.sh)" >&2
    exit 2
fi
kernel=$("$root/scripts/fetch-debian-kernel.sh")
compiler=$(sed -n 's/^set(CMAKE_CXX_COMPILER_ID "\(.*\)")$/\1/p' "$build"/CMakeFiles/*/CMakeCXXCompiler.cmake)
BPFTOOL=$(command -v bpftool || echo /usr/sbin/bpftool)
export BTFORGE=$build/bin/btforge BTF_ORACLE=$build/bin/btf-oracle BPFTOOL BTFORGE_SANITIZED=0 \
    BTFORGE_BASE_CACHE=off
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

tests=$root/tests/integration
bash "$tests/pgo-build.sh" build "$root" "$compiler" "$build/tests/inputs/functions-gcc-dwarf5-O2" \
    "$kernel" > "$logs/pgo-build" 2>&1 &
pgo=$!
bash "$tests/pahole-upstream.sh" "$root/../shared/tools/pahole-master" "$kernel/vmlinux" \
    btf_functions.sh > "$logs/btf_functions" 2>&1 &
functions=$!

status=0
for check in pgo-build:$pgo btf_functions:$functions; do
    name=${check%%:*}
    rc=0
    wait "${check#*:}" || rc=$?
    case $rc in
    0) result=passed ;;
    77) result="skipped (what it needs is missing)" status=1 ;;
    *) result=FAILED status=1 ;;
    esac
    echo "== $name: $result"
    tail -n 20 "$logs/$name"
done
exit "$status"
