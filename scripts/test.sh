#!/usr/bin/env bash
# The whole test suite: installs what is missing, fetches the Debian reference kernels (amd64,
# arm64, s390x, armhf) and bookworm-backports' bpftool 7.5.0 (the c emitter's other reference), then
#  1. an ASan+UBSan build runs every test (a sample of the corruption tests' inputs, lib.sh),
#  2. while the release build compiles, the libFuzzer targets run for 30 s each: the BTF reader
#     on a corpus of real BTF, the json loader on bpftool's JSON, libbpf's btf_dump behind the c
#     emitter's limits, the two DWARF loaders (libdw and LLVM) on small ELF files with DWARF,
#     also mutated structurally,
#  3. the release build runs every test (its CTest summary is the last line).
# It must end within CI's 90 minutes on a slow machine: the longer checks are
# scripts/heavy-checks.sh, run before resolving.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build
mkdir -p "$build"
"$root/scripts/install-deps.sh"
# The reference inputs download while the sanitized build compiles.
fetch_log=$build/fetch.log
{
    "$root/scripts/fetch-debian-kernel.sh"
    "$root/scripts/fetch-debian-kernel.sh" arm64
    "$root/scripts/fetch-debian-kernel.sh" s390x
    "$root/scripts/fetch-debian-kernel.sh" armhf
    "$root/scripts/fetch-bpftool-backport.sh" > /dev/null ||
        echo "warning: no bpftool 7.5.0: the tests c-header-7.5.* will be skipped" >&2
} > "$fetch_log" 2>&1 &
fetch=$!

# Tests must never write through shared paths: a test that replaced /dev/null fails the run.
run_ctest() {
    (cd "$1" && ctest --output-on-failure --timeout 1500 -j 2)
    [ -c /dev/null ] || { echo "error: a test replaced /dev/null with a regular file" >&2; exit 1; }
}

echo "== sanitizers (ASan+UBSan)"
# Debug keeps assertions; -O1, as AddressSanitizer's documentation advises, runs the suite about
# 2.8 times faster than -O0 (unit, bad-dwarf and elf-btf.vmlinux: 172 s against 487 s).
"$root/scripts/build.sh" "$build/asan" -DCMAKE_BUILD_TYPE=Debug -DBTFORGE_SANITIZE=ON \
    -DCMAKE_CXX_FLAGS_DEBUG="-g -O1" -DCMAKE_C_FLAGS_DEBUG="-g -O1" > "$build/asan.log" 2>&1 ||
    { tail -n 60 "$build/asan.log"; exit 1; }
wait "$fetch" || { cat "$fetch_log"; echo "error: fetching the reference inputs failed" >&2; exit 1; }
cat "$fetch_log"
# The suite's peak on disk is a few GiB (two builds, copies of a vmlinux); say so up front when
# the disk is fuller than that, since the tests that need the room are skipped.
for dir in "$build" "${TMPDIR:-/tmp}"; do
    free=$(df --output=avail -B1G "$dir" | tail -n 1)
    [ "$free" -ge 8 ] || echo "warning: $dir has only $free GiB free: some kernel tests will be skipped" >&2
done

# The tests set the sanitizers' options themselves (tests/CMakeLists.txt).
run_ctest "$build/asan"

# The fuzzers (one core each, for a fixed time) run while the release build compiles.
fuzz_log=$build/fuzz-all.log
"$root/scripts/fuzz.sh" 30 > "$fuzz_log" 2>&1 &
fuzz=$!

echo "== release"
"$root/scripts/build.sh" "$build/release" > "$build/release.log" 2>&1 ||
    { tail -n 60 "$build/release.log"; exit 1; }
echo "== fuzzing the BTF reader, the json loader, the c emitter's limits and the two DWARF loaders (30 s each)"
wait "$fuzz" || { cat "$fuzz_log"; echo "error: fuzzing failed" >&2; exit 1; }
cat "$fuzz_log"
run_ctest "$build/release"
