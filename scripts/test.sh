#!/usr/bin/env bash
# The whole test suite: installs what is missing, fetches the Debian reference kernels (amd64,
# arm64, s390x) and bookworm-backports' bpftool 7.5.0 (the c emitter's other reference), then
#  1. an ASan+UBSan build runs every test,
#  2. the libFuzzer targets run for 60 s each: the BTF reader on a corpus of real BTF, the json
#     loader on bpftool's JSON, libbpf's btf_dump behind the c emitter's limits, the two DWARF
#     loaders (libdw and LLVM) on small ELF files with DWARF, also mutated structurally,
#  3. a release build runs every test (its CTest summary is the last line).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build
mkdir -p "$build"
"$root/scripts/install-deps.sh"
"$root/scripts/fetch-debian-kernel.sh"
"$root/scripts/fetch-debian-kernel.sh" arm64
"$root/scripts/fetch-debian-kernel.sh" s390x
"$root/scripts/fetch-bpftool-backport.sh" > /dev/null ||
    echo "warning: no bpftool 7.5.0: the tests c-header-7.5.* will be skipped" >&2

# Tests must never write through shared paths: a test that replaced /dev/null fails the run.
run_ctest() {
    (cd "$1" && ctest --output-on-failure --timeout 1500 -j 2)
    [ -c /dev/null ] || { echo "error: a test replaced /dev/null with a regular file" >&2; exit 1; }
}

echo "== sanitizers (ASan+UBSan)"
"$root/scripts/build.sh" "$build/asan" -DCMAKE_BUILD_TYPE=Debug -DBTFORGE_SANITIZE=ON > "$build/asan.log" 2>&1 ||
    { tail -n 60 "$build/asan.log"; exit 1; }
# intercept_tls_get_addr=0: LeakSanitizer can take a plugin's dynamic TLS block (a dlopen'ed
# library's thread_local) for glibc 2.19's layout, depending only on where it lands, and its
# tracer then dies scanning a bogus range (google/sanitizers#1322) after a clean run. Nothing
# leak-checked lives only there: thread_local objects are destroyed before the check.
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:intercept_tls_get_addr=0 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 run_ctest "$build/asan"

echo "== fuzzing the BTF reader, the json loader, the c emitter's limits and the two DWARF loaders (60 s each)"
"$root/scripts/fuzz.sh" 60

echo "== release"
"$root/scripts/build.sh" "$build/release" > "$build/release.log" 2>&1 ||
    { tail -n 60 "$build/release.log"; exit 1; }
run_ctest "$build/release"
