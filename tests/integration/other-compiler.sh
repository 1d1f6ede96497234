#!/usr/bin/env bash
# other-compiler.sh SOURCE_DIR COMPILER_ID PROGRAM KERNEL_DIR: btforge built by the other
# compiler (clang when this build is GCC's, GCC when it is clang's) writes the same bytes as this
# build (lib.sh's same_outputs_as_suite): what C++ leaves to the compiler must not show. (The
# order of a call's arguments did: clang's btforge crashed on every module over vmlinux while
# GCC's passed every test.)
source "$(dirname "$0")/lib.sh"
src=$1 compiler=$2 program=$3 kernel=$4
[ "$BTFORGE_SANITIZED" = 1 ] && skip "a release build, compared with the release suite's btforge"
case "$compiler" in
GNU) cc=$(command -v clang-19 || command -v clang || true) cxx=$(command -v clang++-19 || command -v clang++ || true) ;;
Clang) cc=$(command -v gcc || true) cxx=$(command -v g++ || true) ;;
*) skip "no other compiler is known for $compiler" ;;
esac
[ -n "$cc" ] && [ -n "$cxx" ] || skip "no other compiler than $compiler is installed"
command -v cmake > /dev/null || skip "cmake is not installed"
require_file "$program"
require_file "$kernel/vmlinux" "fetch it with scripts/fetch-debian-kernel.sh"

CC=$cc CXX=$cxx "$src/scripts/build.sh" "$work/build" -DBTFORGE_TESTS=OFF > "$work/build.log" 2>&1 ||
    { tail -n 40 "$work/build.log"; fail "the build with $cxx failed"; }
same_outputs_as_suite "$work/build" "$program" "$kernel"
echo "other-compiler: $cxx's btforge writes what $compiler's does (a program, vmlinux, modules, dumps)"
