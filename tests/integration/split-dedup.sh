#!/usr/bin/env bash
# split-dedup.sh VMLINUX MODULE: btforge's dedup of a module's split BTF equals libbpf's
# btf__dedup (what pahole uses) of the same types: btforge writes the module's types without
# dedup (--no-dedup) over vmlinux's .BTF (below: or a base btforge writes), libbpf deduplicates
# them against that base, and the result must equal btforge's own output by meaning (btforge
# diff: every named type, FUNC and DATASEC, anonymous types where they are used) and in type
# count. A FUNC or DECL_TAG the base already has is the base's, for both.
source "$(dirname "$0")/lib.sh"
vmlinux=$1 module=$2
require_file "$vmlinux" "fetch it with scripts/fetch-debian-kernel.sh"
require_file "$module" "fetch it with scripts/fetch-debian-kernel.sh"
# A kernel built without BTF (Debian's s390x): what is compared is the module's dedup over a base
# both sides share, whoever wrote it.
if ! section_bytes "$vmlinux" .BTF "$work/base.btf"; then
    "$BTFORGE" --quiet convert "$vmlinux" -o "$work/base.btf"
fi
name=$(basename "$module" .ko)

"$BTFORGE" --quiet convert -B "$work/base.btf" "$module" -o "$work/ours.btf"
"$BTFORGE" --quiet convert -B "$work/base.btf" "$module" --no-dedup -o "$work/raw.btf"
theirs=$("$BTF_ORACLE" dedup "$work/raw.btf" "$work/base.btf" "$work/libbpf.btf")
ours=$("$BTF_ORACLE" parse "$work/ours.btf" "$work/base.btf")
if ! "$BTFORGE" diff -f btf -B "$work/base.btf" "$work/libbpf.btf" "$work/ours.btf" --max 20 \
    > "$work/diff.txt"; then
    cat "$work/diff.txt"
    fail "$name: btforge's split BTF differs from libbpf's dedup of the same types (A: libbpf)"
fi
[ "$ours" = "$theirs" ] || fail "$name: libbpf's dedup has $theirs, btforge $ours"
echo "$name: equal to libbpf's btf__dedup over vmlinux ($ours with the base)"
