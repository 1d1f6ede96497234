# Shared by the integration scripts: tool paths come from the environment CTest sets.
set -euo pipefail
: "${BTFORGE:?}" "${BTF_ORACLE:?}" "${BPFTOOL:?}"

SKIP=77
# The interpreter CTest names, not a shim in PATH (tests/integration/CMakeLists.txt).
[ -z "${PYTHON3:-}" ] || python3() { "$PYTHON3" "$@"; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fail() {
    echo "FAIL: $*" >&2
    exit 1
}
skip() {
    echo "SKIP: $*"
    exit "$SKIP"
}
# runnable_copy DIR DEST: a writable copy of a tool tree whose symbolic links are stored as small
# text files naming their targets (../shared/tools keeps them so), the links restored.
runnable_copy() {
    cp -a "$1" "$2"
    chmod -R u+w "$2"
    local f target
    while read -r f; do
        target=$(cat "$f")
        if [ -e "$(dirname "$f")/$target" ]; then ln -sf "$target" "$f"; fi
    done < <(find "$2" -type f ! -perm -u+x -size -64c)
}

# mutations INPUT DIR N: btforge-mutate's corruptions of INPUT, every Nth of them, left in DIR; a
# fifth of those under the sanitizers, where each btforge run costs a quarter second before it reads
# anything: the corruption tests were the ASan pass's longest, and fuzz.sh fuzzes the same parsers
# under ASan. Strides are odd, prime to the 8 bit flips of a byte, so every bit position is still
# flipped.
mutations() {
    local stride=$3 n=0 case
    [ "${BTFORGE_SANITIZED:-0}" != 1 ] || stride=$((stride * 5))
    mkdir "$2" "$2.all"
    "$MUTATE" "$1" "$2.all"
    for case in "$2.all"/*; do
        n=$((n + 1))
        [ $((n % stride)) -ne 0 ] || mv "$case" "$2/"
    done
    rm -rf "$2.all"
}
require_file() {
    [ -r "$1" ] || skip "$1 is not here${2:+ ($2)}"
}
# require_copies N FILE: copies of a kernel take gigabytes; unless the temporary directory has
# room for N copies of FILE (and some), say so and skip, rather than fail midway with ENOSPC.
require_copies() {
    local need free
    need=$(($1 * $(stat -c %s "$2") + (64 << 20)))
    free=$(df --output=avail -B1 "$work" | tail -n 1)
    [ "$free" -ge "$need" ] ||
        skip "$1 copies of $2 need $((need >> 20)) MiB free in $(dirname "$work"); it has $((free >> 20)) MiB"
}

# base_args "$@": for scripts that take [-B BASE] INPUT. Sets base (btforge's -B BASE),
# base_bpftool (bpftool's --base-btf BASE) and base_shift (how many arguments they were).
base_args() {
    base=() base_bpftool=() base_shift=0
    if [ "${1:-}" = -B ]; then
        require_file "$2" "fetch it with scripts/fetch-debian-kernel.sh"
        base=(-B "$2") base_bpftool=(--base-btf "$2") base_shift=2
    fi
}
# Fails unless the kernel accepts the BTF file (BPF_BTF_LOAD); passes when it cannot be asked.
require_kernel_accepts() {
    local verdict
    set +e
    "$BTF_ORACLE" load "$1"
    verdict=$?
    set -e
    [ "$verdict" = 0 ] || [ "$verdict" = "$SKIP" ] || fail "the kernel rejects $1"
}
# libbpf_and_kernel FILE NAME: libbpf parses the BTF FILE and the kernel accepts it (BPF_BTF_LOAD),
# counted in $loaded, or in $not_permitted where the kernel cannot be asked; NAME in failures.
loaded=0 not_permitted=0
libbpf_and_kernel() {
    local rc
    "$BTF_ORACLE" parse "$1" > /dev/null || fail "$2: libbpf rejects the output"
    set +e
    "$BTF_ORACLE" load "$1" > /dev/null
    rc=$?
    set -e
    case "$rc" in
    0) loaded=$((loaded + 1)) ;;
    "$SKIP") not_permitted=$((not_permitted + 1)) ;;
    *) fail "$2: the kernel rejects the output" ;;
    esac
}
# section_bytes ELF NAME OUT: the bytes of section NAME of ELF, found with readelf (which reads
# every architecture's ELF, where this machine's objcopy reads only its own); false without it.
section_bytes() {
    local offset size
    read -r offset size < <(readelf -SW "$1" | sed 's/^ *\[ *[0-9]*\]//' |
        awk -v n="$2" '$1 == n && $2 != "NOBITS" { print $4, $5 }') || return 1
    [ -n "$offset" ] || return 1
    dd if="$1" of="$3" bs=64K iflag=skip_bytes,count_bytes skip=$((16#$offset)) \
        count=$((16#$size)) status=none
}
# equals_libbpf_dedup PROGRAM WHAT: btforge's BTF of PROGRAM ($work/ours.btf) equals libbpf's
# btf__dedup (what pahole uses) of the same types, which btforge writes undeduplicated: by
# meaning (btforge diff) and in type count. Prints the count.
equals_libbpf_dedup() {
    local program=$1 what=$2 ours theirs
    "$BTFORGE" --quiet convert "$program" -o "$work/ours.btf" || fail "$what: btforge failed"
    "$BTFORGE" --quiet convert "$program" --no-dedup -o "$work/raw.btf" ||
        fail "$what: btforge --no-dedup failed"
    theirs=$("$BTF_ORACLE" dedup "$work/raw.btf" "" "$work/libbpf.btf")
    ours=$("$BTF_ORACLE" parse "$work/ours.btf")
    if ! "$BTFORGE" diff -f btf "$work/libbpf.btf" "$work/ours.btf" --max 20 > "$work/diff.txt"; then
        cat "$work/diff.txt" >&2
        fail "$what: btforge's BTF differs from libbpf's dedup of the same types (A: libbpf)"
    fi
    [ "$ours" = "$theirs" ] || fail "$what: libbpf's dedup has $theirs, btforge $ours"
    echo "$ours"
}
# core_library BTFORGE: the libbtforge-core a btforge binary loads (its run path finds it).
core_library() {
    ldd "$1" | awk '$1 ~ /^libbtforge-core/ {print $3}'
}
# same_outputs OTHER NAME ARGS...: $BTFORGE and the btforge OTHER (another build of it) write the
# same bytes for `convert ARGS` (into $work/NAME.expected and $work/NAME.other).
same_outputs() {
    local other=$1 name=$2
    shift 2
    "$BTFORGE" --quiet convert "$@" -o "$work/$name.expected" || fail "$name: $BTFORGE failed"
    "$other" --quiet convert "$@" -o "$work/$name.other" || fail "$name: $other failed"
    cmp -s "$work/$name.expected" "$work/$name.other" || fail "$name: $other wrote other bytes"
}
# same_outputs_as_suite BUILD PROGRAM KERNEL_DIR: the btforge of another build directory BUILD
# writes $BTFORGE's bytes for PROGRAM's DWARF (both readers) and its C header, KERNEL_DIR's
# vmlinux, virtio_net and xfs over it (with and without --base-cache), and json.
same_outputs_as_suite() {
    local build=$1 program=$2 kernel=$3 module
    local other=$build/bin/btforge
    same_outputs "$other" program "$program"
    if [ -e "$build/bin/plugins/libbtforge-loader-llvm-dwarf.so" ]; then
        same_outputs "$other" program-llvm -f llvm-dwarf "$program"
    fi
    same_outputs "$other" program-c -f btf "$work/program.expected" -t c
    same_outputs "$other" vmlinux "$kernel/vmlinux"
    for module in virtio_net xfs; do
        require_file "$kernel/modules/$module.ko" "fetch it with scripts/fetch-debian-kernel.sh"
        same_outputs "$other" "$module" "$kernel/modules/$module.ko" -B "$kernel/vmlinux"
        same_outputs "$other" "$module-cached" "$kernel/modules/$module.ko" -B "$kernel/vmlinux" \
            --base-cache "$work/cache"
    done
    same_outputs "$other" xfs-json -f btf "$work/xfs.expected" -B "$kernel/vmlinux" -t json
}
