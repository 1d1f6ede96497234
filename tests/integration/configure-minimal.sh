#!/usr/bin/env bash
# configure-minimal.sh SOURCE_DIR: btforge without its tests configures with only what it builds
# (the README's build-by-hand packages): libbpf and doctest are hidden from CMake (pkg-config sees
# every .pc file but libbpf's; find_package(doctest) is disabled). doctest must not be looked for;
# libbpf only for the optional c emitter, which is then left out.
source "$(dirname "$0")/lib.sh"
src=$1
command -v cmake > /dev/null || skip "cmake is not installed"
pc=$work/pkgconfig
mkdir "$pc"
for dir in $(pkg-config --variable pc_path pkg-config | tr : ' '); do
    [ -d "$dir" ] || continue
    for file in "$dir"/*.pc; do
        [ -e "$file" ] && [ ! -e "$pc/${file##*/}" ] && ln -s "$file" "$pc/"
    done
done
rm -f "$pc/libbpf.pc"
PKG_CONFIG_LIBDIR=$pc pkg-config --exists libbpf && fail "libbpf is still visible to pkg-config"
PKG_CONFIG_LIBDIR=$pc pkg-config --exists libdw libelf || fail "libdw and libelf are not visible"

PKG_CONFIG_LIBDIR=$pc cmake -S "$src" -B "$work/build" -DBTFORGE_TESTS=OFF \
    -DCMAKE_DISABLE_FIND_PACKAGE_doctest=ON > "$work/configure.log" 2>&1 ||
    { cat "$work/configure.log"; fail "configure with -DBTFORGE_TESTS=OFF needs more than it builds"; }
grep -q 'libbpf not found: the c emitter is not built' "$work/configure.log" ||
    fail "without libbpf, the c emitter was not said to be left out"
# And the same configure with the tests needs libbpf: the check above can fail.
PKG_CONFIG_LIBDIR=$pc cmake -S "$src" -B "$work/build-tests" > "$work/tests.log" 2>&1 &&
    fail "configure with the tests did not need libbpf"
grep -q 'libbpf' "$work/tests.log" || { cat "$work/tests.log"; fail "not refused for libbpf"; }
echo "configure-minimal: -DBTFORGE_TESTS=OFF needs neither libbpf (the c emitter is left out) nor doctest"
