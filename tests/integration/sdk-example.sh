#!/usr/bin/env bash
# sdk-example.sh BUILD_DIR EXAMPLE_DIR INPUT: the plugin SDK as a third party uses it. Installs
# the build into a temporary prefix, builds the example emitter (examples/emitter-kinds) against
# it with find_package(btforge) and with pkg-config, and has the installed btforge list it from
# --plugin-dir and convert INPUT with it: its counts by kind must be bpftool's, counted from
# bpftool's dump of the same BTF; its option (--plugin-opt kinds.separator) must apply.
source "$(dirname "$0")/lib.sh"
build=$1 example=$2 input=$3
require_file "$input"
for tool in cmake make pkg-config c++; do
    command -v "$tool" > /dev/null || skip "$tool is not installed"
done

prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" > "$work/install.log" ||
    { cat "$work/install.log"; fail "cmake --install failed"; }
btforge=$prefix/bin/btforge
[ -x "$btforge" ] || fail "the install has no bin/btforge"
for file in lib/cmake/btforge/btforgeConfig.cmake lib/cmake/btforge/btforgeConfigVersion.cmake \
    lib/pkgconfig/btforge.pc include/btforge/plugin/Plugin.h share/man/man1/btforge.1; do
    [ -f "$prefix/$file" ] || fail "the install has no $file"
done
# Internals stay out of the SDK.
[ -z "$(find "$prefix/include" -name GraphMerger.h)" ] || fail "core internals are installed"
# Every installed header compiles from the installed tree alone (none names a header that is not
# installed).
find "$prefix/include/btforge" -name '*.h' | sort | sed 's/.*/#include "&"/' > "$work/all-headers.cpp"
c++ -std=c++20 -fsyntax-only -I"$prefix/include" "$work/all-headers.cpp" 2> "$work/headers.log" ||
    { cat "$work/headers.log"; fail "the installed headers do not compile on their own"; }

# The BTF the example's output is checked against, and bpftool's counts by kind from it.
"$btforge" convert "$input" -o "$work/input.btf"
{
    echo "kind,count"
    "$BPFTOOL" btf dump file "$work/input.btf" | awk '/^\[[0-9]+\] / { n[$2]++ }
        END { split("INT PTR ARRAY STRUCT UNION ENUM FWD TYPEDEF VOLATILE CONST RESTRICT FUNC " \
                    "FUNC_PROTO VAR DATASEC FLOAT DECL_TAG TYPE_TAG ENUM64", order, " ")
              for (i = 1; i in order; i++) if (n[order[i]]) print order[i] "," n[order[i]] }'
} > "$work/expected.csv"
[ "$(wc -l < "$work/expected.csv")" -gt 3 ] || fail "bpftool counted almost nothing"

# check DIR: the plugin built in DIR is listed and converts INPUT as bpftool counts.
check() {
    local dir=$1 how=$2
    [ -f "$dir/libbtforge-kinds.so" ] || fail "$how: no libbtforge-kinds.so in $dir"
    "$btforge" --plugin-dir "$dir" plugins > "$work/plugins"
    grep -q '^kinds  *emitter ' "$work/plugins" || { cat "$work/plugins"; fail "$how: not listed"; }
    grep -q -- '--plugin-opt kinds.separator=,' "$work/plugins" || fail "$how: option not listed"
    "$btforge" --plugin-dir "$dir" convert "$input" -t kinds -o "$work/$how.csv"
    diff -u "$work/expected.csv" "$work/$how.csv" || fail "$how: counts differ from bpftool's"
    "$btforge" --plugin-dir "$dir" --plugin-opt 'kinds.separator=;' convert "$input" -t kinds \
        -o "$work/$how.semicolons"
    tr , ';' < "$work/expected.csv" | diff -u - "$work/$how.semicolons" ||
        fail "$how: --plugin-opt kinds.separator not applied"
}

cmake -S "$example" -B "$work/cmake-build" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_BUILD_TYPE=Release > "$work/cmake.log" 2>&1 &&
    cmake --build "$work/cmake-build" >> "$work/cmake.log" 2>&1 ||
    { cat "$work/cmake.log"; fail "the example does not build with find_package(btforge)"; }
check "$work/cmake-build" find_package

mkdir "$work/make-build"
PKG_CONFIG_PATH=$prefix/lib/pkgconfig make -C "$work/make-build" -f "$example/Makefile" \
    > "$work/make.log" 2>&1 ||
    { cat "$work/make.log"; fail "the example does not build with pkg-config btforge"; }
check "$work/make-build" pkg-config

# pkg-config gives what CMake gives: plain paths of the prefix, C++20 and hidden symbols, so both
# builds export the same symbols (the descriptor alone).
flags=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs btforge)
case "$flags" in
*..* | *//*) fail "pkg-config's paths are not plain: $flags" ;;
esac
for flag in -std=c++20 -fvisibility=hidden -fvisibility-inlines-hidden "-I$prefix/include" \
    "-L$prefix/lib"; do
    [[ " $flags " == *" $flag "* ]] || fail "pkg-config btforge lacks $flag: $flags"
done
exported() { nm -D --defined-only "$1/libbtforge-kinds.so" | awk '{ print $3 }' | sort; }
diff <(exported "$work/cmake-build") <(exported "$work/make-build") ||
    fail "the CMake and pkg-config builds export different symbols"
[ "$(exported "$work/make-build")" = btforge_plugin_descriptor ] ||
    fail "the plugin exports more than its descriptor: $(exported "$work/make-build" | tr '\n' ' ')"

# An option nobody declares is a usage error.
set +e
"$btforge" --plugin-dir "$work/make-build" --plugin-opt kinds.colour=red convert "$input" \
    -t kinds -o "$work/unused.csv" 2> "$work/stderr"
status=$?
set -e
[ "$status" = 2 ] && grep -q "no plugin 'kinds' with an option 'colour'" "$work/stderr" ||
    fail "an undeclared plugin option is not refused (exit $status)"
echo "sdk example: built with find_package and pkg-config, counts match bpftool"
