#!/usr/bin/env bash
# pgo-training.sh BTFORGE: the runs a profile-guided build of btforge is optimised for
# (scripts/build-pgo.sh runs this with its instrumented btforge): a kernel build's BTF step on
# Debian's amd64 cloud kernel (scripts/fetch-debian-kernel.sh amd64 --all-modules): vmlinux with
# both DWARF readers, every 25th module over vmlinux (as Makefile.modfinal runs them) with and
# without --base-cache, then BTF read back and written out as text, json, c and layouts. Outputs
# go to a temporary directory, removed at the end.
set -euo pipefail
# Every run reads its base (-B) itself: none writes a cache (~/.cache/btforge).
export BTFORGE_BASE_CACHE=off
root=$(cd "$(dirname "$0")/.." && pwd)
btforge=${1:?usage: pgo-training.sh BTFORGE}
kernel=$("$root/scripts/fetch-debian-kernel.sh" amd64 --all-modules)
vmlinux=$kernel/vmlinux
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

run() { "$btforge" --quiet "$@"; }
echo "pgo-training: vmlinux, libdw and LLVM readers" >&2
run convert "$vmlinux" -o "$out/vmlinux.btf"
run convert -f llvm-dwarf "$vmlinux" -o "$out/vmlinux-llvm.btf"
mapfile -t modules < <(find "$kernel/all-modules" -name '*.ko' | LC_ALL=C sort | awk 'NR % 25 == 1')
echo "pgo-training: ${#modules[@]} modules over vmlinux, with and without a base cache" >&2
for module in "${modules[@]}"; do
    run convert "$module" -B "$vmlinux" -o "$out/module.btf"
    run convert "$module" -B "$vmlinux" -o "$out/module.btf" --base-cache "$out/cache"
done
echo "pgo-training: BTF read back, dumps" >&2
for to in text json c layout; do
    run convert -f btf "$out/vmlinux.btf" -t "$to" -o "$out/vmlinux.$to"
done
run convert -f btf "$out/module.btf" -B "$vmlinux" -t json -o "$out/module.json"
run convert -f json "$out/module.json" -B "$vmlinux" -o "$out/module-again.btf"
