#!/usr/bin/env bash
# core-arrays.sh VMLINUX PAHOLE_BTF_XZ SOURCE: a CO-RE program reading a multi-dimensional array
# member (struct psi_group's u64 total[2][6]), built against a vmlinux.h made from pahole's BTF
# of that kernel, relocates against btforge's BTF of the same kernel: libbpf (bpftool gen
# min_core_btf, debug output) finds a matching target for every field relocation. The same
# program against --nested-arrays output finds none for total[7]: what the default avoids.
source "$(dirname "$0")/lib.sh"
vmlinux=$1 reference=$2 source=$3
require_file "$vmlinux" "fetch it with scripts/fetch-debian-kernel.sh"
require_file "$reference"
command -v clang-19 > /dev/null || skip "clang-19 builds the BPF program"

xz -dc "$reference" > "$work/pahole.btf"
"$BPFTOOL" btf dump file "$work/pahole.btf" format c > "$work/vmlinux.h"
cp "$source" "$work/prog.bpf.c"
clang-19 -target bpf -O2 -g -D__TARGET_ARCH_x86 -c "$work/prog.bpf.c" -o "$work/prog.bpf.o"

relocate() { # BTF -> libbpf's CO-RE log lines
    "$BPFTOOL" -d gen min_core_btf "$1" "$work/min.btf" "$work/prog.bpf.o" 2>&1 |
        grep -E 'relo #[0-9]+: ' || true
}
"$BTFORGE" --quiet convert "$vmlinux" -o "$work/ours.btf"
relocate "$work/ours.btf" > "$work/ours.log"
cat "$work/ours.log"
grep -q 'relo #[0-9]*: matching candidate .*psi_group.total\[7\]' "$work/ours.log" ||
    fail "psi_group.total[7] does not relocate against btforge's BTF"
! grep -q 'no matching targets' "$work/ours.log" || fail "a relocation finds no target"

[ "${BTFORGE_SANITIZED:-0}" != 1 ] || exit 0 # the counter-check below: release build only
"$BTFORGE" --quiet convert --nested-arrays "$vmlinux" -o "$work/nested.btf"
"$BTFORGE" --quiet --plugin-opt dwarf.nested-arrays=true convert "$vmlinux" -o "$work/opt.btf"
cmp -s "$work/nested.btf" "$work/opt.btf" ||
    fail "--plugin-opt dwarf.nested-arrays=true differs from --nested-arrays"
rm -f "$work/opt.btf"
relocate "$work/nested.btf" > "$work/nested.log"
grep -q 'no matching targets' "$work/nested.log" ||
    fail "nested arrays were expected to defeat the relocation (is the test still testing?)"
echo "CO-RE relocations of a pahole-built vmlinux.h resolve against btforge's BTF"
