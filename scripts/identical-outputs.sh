#!/usr/bin/env bash
# identical-outputs.sh [--all-modules] BTFORGE OUTDIR: what a refactoring must leave
# byte-identical.
# Runs BTFORGE (a built bin/btforge) on the cached Debian kernels (scripts/fetch-debian-kernel.sh:
# vmlinux at -j1, -j2 and -j16, its modules over it at each, the func-addr form; arm64, s390x,
# armhf and i386 vmlinux and modules) and on the test program cross-compiled for several targets by gcc and
# clang (built once into $BTFORGE_CACHE/identical-inputs), and writes OUTDIR/SHA256SUMS.
# Compare two trees' outputs with: diff OUT_BEFORE/SHA256SUMS OUT_AFTER/SHA256SUMS
# Inputs missing from the cache are listed as "missing" (fetch them first to compare them).
# --all-modules adds every module of the amd64 kernel over that vmlinux's own .BTF, as a kernel
# build encodes them (scripts/fetch-debian-kernel.sh amd64 --all-modules; about 1,100 runs).
set -euo pipefail
# Every run reads its base (-B) itself (none writes ~/.cache/btforge), unless the caller names a
# cache: BTFORGE_BASE_CACHE=DIR checks the outputs of runs over prepared bases.
export BTFORGE_BASE_CACHE=${BTFORGE_BASE_CACHE:-off}
all_modules=0
if [ "${1:-}" = --all-modules ]; then
    all_modules=1
    shift
fi
btforge=$(realpath "$1")
out=$2
cache=${BTFORGE_CACHE:-/var/cache/btforge}
src=$(cd "$(dirname "$0")/.." && pwd)/tests/inputs/dwarf
mkdir -p "$out"
out=$(realpath "$out")
sums=$out/SHA256SUMS
: > "$sums"

# run NAME ARGS...: one conversion into $out/NAME, its checksum (or its failure) in SHA256SUMS.
run() {
    local name=$1
    shift
    if "$btforge" --quiet "$@" -o "$out/$name" 2> "$out/$name.err"; then
        (cd "$out" && sha256sum "$name") >> "$sums"
    else
        echo "failed $name: $(head -1 "$out/$name.err")" >> "$sums"
    fi
}

for kernel in "$cache"/debian-6.1.0-*; do
    [ -f "$kernel/vmlinux" ] || continue
    arch=${kernel##*/debian-6.1.0-}
    run "$arch.vmlinux.j2.btf" convert "$kernel/vmlinux" -j 2
    case "$arch" in
    *cloud-amd64)
        run "$arch.vmlinux.j1.btf" convert "$kernel/vmlinux" -j 1
        run "$arch.vmlinux.j16.btf" convert "$kernel/vmlinux" -j 16
        run "$arch.vmlinux.func-addr.btf" convert "$kernel/vmlinux" -t btf-func-addr -j 2
        run "$arch.vmlinux.layout.btf" convert "$kernel/vmlinux" --features default,layout -j 2
        ;;
    esac
    for module in "$kernel"/modules/*.ko; do
        [ -f "$module" ] || continue
        run "$arch.$(basename "$module" .ko).btf" convert "$module" -B "$out/$arch.vmlinux.j2.btf" -j 2
        # The same at -j1 and -j16: the same bytes whatever the workers (compare within a tree).
        for jobs in 1 16; do
            run "$arch.$(basename "$module" .ko).j$jobs.btf" convert "$module" \
                -B "$out/$arch.vmlinux.j2.btf" -j "$jobs"
        done
    done
done
ls -d "$cache"/debian-6.1.0-* > /dev/null 2>&1 || echo "missing: Debian kernels in $cache" >> "$sums"

if [ $all_modules = 1 ]; then
    kernel=$cache/debian-6.1.0-56-cloud-amd64
    if [ -e "$kernel/all-modules/.complete" ]; then
        mkdir -p "$out/all-modules"
        find "$kernel/all-modules" -name '*.ko' | sort > "$out/all-modules.list"
        # Two at a time, as a kernel build's module step; one checksum line per module.
        export btforge kernel out
        # A failure leaves no .btf, and says so in SHA256SUMS with the first line of its error.
        xargs -P 2 -I{} sh -c 'name=$(basename "$1" .ko)
            "$btforge" --quiet convert -B "$kernel/vmlinux" "$1" -o "$out/all-modules/$name.btf" \
                2> "$out/all-modules/$name.err" || rm -f "$out/all-modules/$name.btf"' \
            _ {} < "$out/all-modules.list"
        sed 's|.*/|all-modules/|; s|\.ko$|.btf|' "$out/all-modules.list" | sort |
            while read -r name; do
                if [ -f "$out/$name" ]; then
                    (cd "$out" && sha256sum "$name") >> "$sums"
                else
                    echo "failed $name: $(head -1 "$out/${name%.btf}.err")" >> "$sums"
                fi
            done
    else
        echo "missing: every module of $kernel (fetch-debian-kernel.sh amd64 --all-modules)" >> "$sums"
    fi
fi

# The test program, cross-compiled once: gcc and clang, DWARF 4 and 5, -O0 and -O2.
inputs=$cache/identical-inputs
mkdir -p "$inputs"
for triple in x86_64-linux-gnu aarch64-linux-gnu s390x-linux-gnu arm-linux-gnueabihf \
    i686-linux-gnu powerpc64le-linux-gnu; do
    for cc in gcc clang; do
        case "$cc" in
        gcc)
            compiler=("$triple-gcc")
            [ "$triple" = x86_64-linux-gnu ] && compiler=(gcc)
            ;;
        clang) compiler=(clang-19 "--target=$triple") ;;
        esac
        command -v "${compiler[0]}" > /dev/null || {
            echo "missing: ${compiler[0]}" >> "$sums"
            continue
        }
        for version in 4 5; do
            for level in 0 2; do
                name=$triple.$cc.dwarf$version.O$level.o
                [ -f "$inputs/$name" ] || "${compiler[@]}" -g "-gdwarf-$version" "-O$level" -w -r \
                    -o "$inputs/$name" "$src/layouts.c" "$src/functions_a.c" "$src/functions_b.c"
                run "$name.btf" convert "$inputs/$name"
            done
        done
    done
done
echo "$(grep -c '^[0-9a-f]' "$sums") outputs, $(grep -vc '^[0-9a-f]' "$sums") failed or missing: $sums"
