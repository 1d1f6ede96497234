#!/usr/bin/env bash
# cross-program.sh TARGET SRCDIR: the rules of dwarf-program.sh on the DWARF test program
# (SRCDIR = tests/inputs/dwarf) cross-compiled at test time for TARGET (aarch64, s390x, arm,
# i686, ppc64le, riscv64, loongarch64, mips64el, mips64, mipsel) by Debian's cross gcc and by
# clang-19 --target (riscv64's gcc with ftrace's NOPs, as its kernels): DWARF 4 and 5, -O0 and
# -O2 (and gcc DWARF 3 on s390x, whose DW_AT_bit_offset counts from the MSB), as an executable
# and as the same units linked with -r.
# For every build:
#  - libbpf parses the BTF (and the kernel here accepts it for 64-bit little-endian targets);
#  - every test struct's layout equals what the compiler says: the program, run under
#    qemu-user, prints it with offsetof/sizeof/bit scans (loongarch64 has no libc in Debian, and
#    scripts/install-deps.sh installs no MIPS one: there clang builds objects with no C library,
#    and pahole is the only layout oracle);
#  - named STRUCT/UNION/ENUM/ENUM64/TYPEDEF/FWD/INT/FLOAT, the per-CPU VARs and their DATASEC
#    equal what Debian's pahole writes for the same file, in the same byte order (the input's);
#  - same_helper never gives two FUNCs; clashing_helper (two prototypes) none, with its reason
#    in --report-skipped; at -O2 drops_parameter (a dropped parameter) none, with its reason;
#    follows_convention and wide_arguments, whose arguments arrive where the target's calling
#    convention says (a 64-bit scalar and a small struct among them), are kept; global_sum keeps
#    its '...';
#  - the -r object's .data..percpu variables are VARs of that DATASEC, sorted by offset;
#  - the two DWARF loaders agree (btforge diff --from-a dwarf --from-b llvm-dwarf exits 0);
#  - the units' own types (--no-dedup) are in the input's byte order and pointer size.
# Every failed check is listed before the test fails, so one run shows them all.
source "$(dirname "$0")/lib.sh"
target=$1
src=$2
require_file "$src/layouts.c"

clang_flags=()
gcc_flags=()
gcc_versions="4 5"
case "$target" in
aarch64) triple=aarch64-linux-gnu qemu=aarch64 ;;
s390x) triple=s390x-linux-gnu qemu=s390x gcc_versions="3 4 5" ;;
arm) triple=arm-linux-gnueabihf qemu=arm ;;
i686) triple=i686-linux-gnu qemu=i386 ;;
ppc64le) triple=powerpc64le-linux-gnu qemu=ppc64le ;;
# binutils 2.40 cannot link clang 19's DWARF 5 on riscv64 (R_RISCV_SET_ULEB128): lld can. gcc
# builds as riscv64 kernels are built, with ftrace's NOPs, which it puts between a function's
# symbol and its DW_AT_low_pc.
riscv64) triple=riscv64-linux-gnu qemu=riscv64 clang_flags=(-fuse-ld=lld-19)
    gcc_flags=(-fpatchable-function-entry=4) ;;
loongarch64) triple=loongarch64-linux-gnu qemu="" ;;
# 64-bit MIPS's relocations have an r_info of their own; big-endian and 32-bit (REL) beside it.
mips64el) triple=mips64el-linux-gnuabi64 qemu="" ;;
mips64) triple=mips64-linux-gnuabi64 qemu="" ;;
mipsel) triple=mipsel-linux-gnu qemu="" ;;
*) fail "unknown target '$target'" ;;
esac
sysroot=/usr/$triple
gcc=$triple-gcc
compilers="gcc clang"
if [ -z "$qemu" ]; then
    compilers=clang # no cross gcc nor libc for it in Debian bookworm
else
    command -v "$gcc" > /dev/null || skip "$gcc is not installed (scripts/install-deps.sh)"
    [ -d "$sysroot/include" ] || skip "no $triple libc headers in $sysroot (scripts/install-deps.sh)"
    command -v "qemu-$qemu" > /dev/null || skip "qemu-$qemu is not installed (scripts/install-deps.sh)"
fi
command -v clang-19 > /dev/null || skip "clang-19 is not installed"
if [ "$target" = riscv64 ] || [ -z "$qemu" ]; then
    command -v ld.lld-19 > /dev/null || skip "lld-19 is not installed (scripts/install-deps.sh)"
fi
command -v pahole > /dev/null || skip "pahole is not installed (scripts/install-deps.sh)"

problems=()
problem() {
    echo "FAILED CHECK: $target $*" >&2
    problems+=("$*")
}

# build NAME CC VERSION LEVEL: $work/NAME (executable) and $work/NAME.o (linked with -r).
build() {
    local name=$1 cc=$2 flags=(-g "-gdwarf-$3" "-O$4" -w)
    local sources=("$src/layouts.c" "$src/functions_a.c" "$src/functions_b.c")
    case "$cc" in
    gcc) cc=("$gcc" "${gcc_flags[@]}") ;;
    clang) cc=(clang-19 "--target=$triple" "${clang_flags[@]}") ;;
    esac
    if [ -n "$qemu" ]; then
        "${cc[@]}" "${flags[@]}" -o "$work/$name" "${sources[@]}"
        "${cc[@]}" "${flags[@]}" -r -o "$work/$name.o" "${sources[@]}"
        return
    fi
    # No libc: the two function units alone, as a relocatable object and as an executable with
    # no C library (pahole 1.24's elfutils cannot apply this target's relocations in a -r object).
    flags+=(-ffreestanding -fuse-ld=lld-19)
    "${cc[@]}" "${flags[@]}" -r -o "$work/$name.o" "$src/functions_a.c" "$src/functions_b.c"
    "${cc[@]}" "${flags[@]}" -nostdlib -Wl,--unresolved-symbols=ignore-all -Wl,-e,main \
        -o "$work/$name" "$src/functions_a.c" "$src/functions_b.c"
}

# dump BTF TEXT: bpftool's text dump (libbpf reads BTF of either byte order).
dump() {
    "$BPFTOOL" btf dump file "$1" > "$2" 2> "$work/err" || {
        problem "bpftool cannot dump $(basename "$1")"
        cat "$work/err" >&2
        : > "$2"
    }
}

# block FILE NAME: struct NAME's lines in FILE.
block() { awk -v name="$2" '$1 ~ /^(STRUCT|UNION)$/ { f = ($2 == name) } f' "$1"; }

# undeduplicated NAME: the units' own types (--no-dedup) keep the target's byte order and pointer
# size: their BTF starts as the deduplicated one's, and they give the same layouts.
undeduplicated() {
    local name=$1 magic
    "$BTFORGE" --quiet convert "$work/$name" --no-dedup -o "$work/raw.btf"
    magic=$(od -An -tx1 -N2 "$work/$name.btf")
    [ "$(od -An -tx1 -N2 "$work/raw.btf")" = "$magic" ] ||
        problem "$name: --no-dedup writes another byte order than the BTF's ($magic)"
    for dedup in "" --no-dedup; do
        "$BTFORGE" --quiet convert "$work/$name" $dedup -t layout -C layout_everything \
            -o "$work/layout$dedup.txt"
    done
    cmp -s "$work/layout.txt" "$work/layout--no-dedup.txt" ||
        problem "$name: --no-dedup gives layout_everything another layout"
}

# layouts NAME: the compiler's numbers (the program under qemu) against the BTF dump.
layouts() {
    local name=$1
    qemu-"$qemu" -L "$sysroot" "$work/$name" layouts > "$work/expected.txt" ||
        fail "$name: the program does not run under qemu-$qemu"
    awk '
        /^\[[0-9]+\] (STRUCT|UNION) / { gsub("\047", "", $3); print $2, $3, $4; keep = 1; next }
        /^\[/ { keep = 0 }
        keep && /^\t/ { sub(/ type_id=[0-9]+/, ""); print }
    ' "$work/dump.txt" > "$work/actual.txt"
    local structs struct
    structs=$(awk '/^(STRUCT|UNION) / { print $2 }' "$work/expected.txt")
    [ -n "$structs" ] || fail "$name: the program printed no layouts"
    for struct in $structs; do
        if ! diff <(block "$work/expected.txt" "$struct") <(block "$work/actual.txt" "$struct") \
            > "$work/layout.diff"; then
            problem "$name: $struct differs from the compiler's layout (< compiler, > BTF)"
            sed 's/^/    /' "$work/layout.diff" >&2
        fi
    done
}

# pahole_equal FILE OURS: named types, per-CPU VARs and byte order equal what Debian's pahole
# writes for FILE.
pahole_equal() {
    local file=$1 ours=$2 label rc
    label=$(basename "$file")
    pahole -J --btf_gen_floats --btf_encode_detached="$work/pahole.btf" "$file" > "$work/pahole.out" 2>&1 || {
        problem "$label: pahole fails on it"
        cat "$work/pahole.out" >&2
        return
    }
    local magic theirs
    magic=$(od -An -tx1 -N2 "$ours")
    theirs=$(od -An -tx1 -N2 "$work/pahole.btf")
    [ "$magic" = "$theirs" ] ||
        problem "$label: BTF magic bytes$magic, pahole's$theirs: not written in the input's byte order"
    set +e
    "$BTFORGE" --quiet diff -f btf --flatten-arrays \
        --kinds STRUCT,UNION,ENUM,ENUM64,TYPEDEF,FWD,INT,FLOAT,VAR,DATASEC \
        "$work/pahole.btf" "$ours" > "$work/pahole.diff" 2>&1
    rc=$?
    set -e
    if [ "$rc" != 0 ]; then
        problem "$label: types differ from pahole's (exit $rc; A pahole, B btforge)"
        sed -n 's/^\([A-Z0-9]* \)/    \1/p' "$work/pahole.diff" | grep -v '^    total' >&2 || true
    fi
}

# readers FILE: libdw and LLVM read the same types.
readers() {
    local rc
    set +e
    "$BTFORGE" --quiet diff --from-a dwarf --from-b llvm-dwarf "$1" "$1" > "$work/readers.diff" 2>&1
    rc=$?
    set -e
    if [ "$rc" != 0 ]; then
        problem "$(basename "$1"): the dwarf and llvm-dwarf loaders differ (exit $rc)"
        sed 's/^/    /' "$work/readers.diff" | head -n 40 >&2
    fi
}

# uleb128_pairs NAME: clang's riscv objects give location lists' offsets as ULEB128 label
# differences (R_RISCV_SET_ULEB128, then R_RISCV_SUB_ULEB128). The dwarf loader applies them: with
# the first such field changed, the object converts to the same BTF. The llvm-dwarf loader reads
# them as written, once it has checked that each holds the difference: it refuses that object.
uleb128_pairs() {
    local object=$work/$1.o changed=$work/$1.uleb128.o at base byte
    at=$(llvm-readelf-19 -r "$object" | awk '/^Relocation section/ { s = /\.debug_loclists/; next }
        s && $3 == "R_RISCV_SET_ULEB128" && !n++ { print $1 }')
    [ -n "$at" ] || return 0
    base=$(readelf -SW "$object" | awk '{ for (i = 1; i < NF; i++) if ($i == ".debug_loclists")
        print $(i + 3) }')
    cp "$object" "$changed"
    byte=$(od -An -tu1 -j $((0x$base + 0x$at)) -N1 "$changed")
    printf "\\$(printf %o $((byte ^ 1)))" |
        dd of="$changed" bs=1 seek=$((0x$base + 0x$at)) conv=notrunc status=none
    if ! "$BTFORGE" --quiet convert "$changed" -o "$work/$1.uleb128.btf" 2> "$work/err"; then
        problem "$1.o with a ULEB128 field changed: btforge cannot convert it"
        cat "$work/err" >&2
    elif ! cmp -s "$work/$1.uleb128.btf" "$work/$1.o.btf"; then
        problem "$1.o with a ULEB128 field changed: other BTF (its relocations not applied)"
    fi
    if "$BTFORGE" --quiet convert -f llvm-dwarf "$changed" -o "$work/$1.uleb128.btf" \
        2> "$work/err" || ! grep -q 'ULEB128 label difference' "$work/err"; then
        problem "$1.o with a ULEB128 field changed: the llvm-dwarf loader does not refuse it"
        cat "$work/err" >&2
    fi
    ulebs=$((ulebs + 1))
}

count() { grep -cE "^\[[0-9]+\] FUNC '$1' " "$work/dump.txt" || true; }
skipped_reason() {
    grep -o "\"name\":\"$1\",\"reason\":\"[^\"]*\"" "$work/skipped.json" |
        sed 's/.*"reason":"//; s/"$//' || true
}

# functions NAME LEVEL: the function rules on the executable's BTF.
functions() {
    local name=$1 level=$2 proto
    [ "$(count same_helper)" -le 1 ] || problem "$name: same_helper has two FUNCs"
    [ "$(count clashing_helper)" = 0 ] || problem "$name: clashing_helper (two prototypes) has a FUNC"
    [ -n "$(skipped_reason clashing_helper)" ] ||
        problem "$name: the report does not say why clashing_helper is skipped"
    if [ "$level" = 2 ]; then
        [ "$(count drops_parameter)" = 0 ] ||
            problem "$name: drops_parameter (optimized-out parameter) has a FUNC"
        [ -n "$(skipped_reason drops_parameter)" ] ||
            problem "$name: the report does not say why drops_parameter is skipped"
    else
        [ "$(count drops_parameter)" = 1 ] || problem "$name: drops_parameter is missing at -O0"
    fi
    for kept in follows_convention wide_arguments; do
        [ "$(count $kept)" = 1 ] || problem "$name: $kept is not kept (skipped: $(skipped_reason $kept))"
    done
    proto=$(grep -E "^\[[0-9]+\] FUNC 'global_sum' " "$work/dump.txt" |
        sed 's/.*type_id=\([0-9]*\).*/\1/' || true)
    if [ -z "$proto" ]; then
        problem "$name: global_sum is missing (skipped: $(skipped_reason global_sum))"
    elif ! awk -v id="[$proto]" '$1 == id {f = 1; next} /^\[/ {f = 0} f' "$work/dump.txt" |
        tail -n 1 | grep "'(anon)' type_id=0" > /dev/null; then
        problem "$name: global_sum lost its '...'"
    fi
}

# percpu NAME: the -r object's per-CPU variables.
percpu() {
    local name=$1 datasec var
    datasec=$(awk '/^\[[0-9]+\] DATASEC .\.data\.\.percpu./ {f = 1; next} /^\[/ {f = 0} f' \
        "$work/object.txt")
    for var in percpu_counter percpu_local stats; do
        echo "$datasec" | grep "(VAR '$var')" > /dev/null ||
            problem "$name.o: $var is not in DATASEC .data..percpu"
    done
    echo "$datasec" | sed 's/.*offset=\([0-9]*\).*/\1/' | sort -c -n 2> /dev/null ||
        problem "$name.o: DATASEC .data..percpu is not sorted by offset"
}

builds=0
ulebs=0 # objects whose ULEB128 label differences were checked (clang's riscv64 ones)
for cc in $compilers; do
    versions="4 5"
    [ "$cc" = gcc ] && versions=$gcc_versions
    for version in $versions; do
        for level in 0 2; do
            # DWARF 3 once, optimized: its bit offsets are what differs.
            [ "$version" = 3 ] && [ "$level" = 0 ] && continue
            name=$target-$cc-dwarf$version-O$level
            build "$name" "$cc" "$version" "$level"
            builds=$((builds + 1))

            if ! "$BTFORGE" --quiet convert "$work/$name" -o "$work/$name.btf" \
                --report-skipped "$work/skipped.json" 2> "$work/err"; then
                problem "$name: btforge cannot convert it"
                cat "$work/err" >&2
                continue
            fi
            "$BTF_ORACLE" parse "$work/$name.btf" > /dev/null || problem "$name: libbpf rejects the BTF"
            dump "$work/$name.btf" "$work/dump.txt"
            [ -z "$qemu" ] || layouts "$name"
            functions "$name" "$level"
            pahole_equal "$work/$name" "$work/$name.btf"
            readers "$work/$name"
            undeduplicated "$name"
            # The kernel here reads only its own byte order, and takes a pointer for 8 bytes (a
            # 32-bit target's struct holding one "exceeds struct_size": pahole's output too).
            header=$(readelf -h "$work/$name")
            if [[ $header == *ELF64* && $header == *"little endian"* ]]; then
                set +e
                "$BTF_ORACLE" load "$work/$name.btf" > /dev/null 2>&1
                verdict=$?
                set -e
                [ "$verdict" = 0 ] || [ "$verdict" = "$SKIP" ] || problem "$name: the kernel rejects the BTF"
            fi

            # elfutils 0.188 cannot relocate loongarch nor MIPS objects: the libdw loader
            # relocates what compilers write for DWARF there itself.
            if ! "$BTFORGE" --quiet convert "$work/$name.o" -o "$work/$name.o.btf" 2> "$work/err"; then
                problem "$name.o: btforge cannot convert it"
                cat "$work/err" >&2
                continue
            fi
            "$BTF_ORACLE" parse "$work/$name.o.btf" > /dev/null ||
                problem "$name.o: libbpf rejects the BTF"
            dump "$work/$name.o.btf" "$work/object.txt"
            percpu "$name"
            [ -z "$qemu" ] || pahole_equal "$work/$name.o" "$work/$name.o.btf"
            readers "$work/$name.o"
            uleb128_pairs "$name"
        done
    done
done

if [ ${#problems[@]} != 0 ]; then
    fail "$target: ${#problems[@]} checks failed in $builds builds (listed above)"
fi
echo "$target: $builds builds (executable and -r object): layouts equal the compiler's and pahole's;" \
    "function, per-CPU and reader rules hold; $ulebs objects with ULEB128 label differences"
