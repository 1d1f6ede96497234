#!/bin/sh
# Writes a seed corpus of real BTF for btf-reader-fuzz into DIR: the running kernel's BTF when it
# is readable, and the .BTF sections of small BPF objects built from seeds-src/.
# CLANG and OBJCOPY override the tools (default clang-19 and llvm-objcopy-19).
set -eu

if [ $# -ne 1 ]; then
	echo "usage: $0 DIR" >&2
	exit 2
fi
dir=$1
here=$(cd "$(dirname "$0")" && pwd)
clang=${CLANG:-clang-19}
objcopy=${OBJCOPY:-llvm-objcopy-19}

mkdir -p "$dir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ -r /sys/kernel/btf/vmlinux ]; then
	cp /sys/kernel/btf/vmlinux "$dir/vmlinux.btf"
fi
# Little-endian 32-bit words, for the hand-made seed below.
le32() {
	for n in "$@"; do
		printf "$(printf '\\%03o\\%03o\\%03o\\%03o' $((n & 255)) $((n >> 8 & 255)) \
			$((n >> 16 & 255)) $((n >> 24 & 255)))"
	done
}

# Split BTF over the base BtfReaderFuzz.cpp builds in makeBase() (types 1-5, 42 bytes of strings):
# ids continue at 6, own strings at offset 42, without a leading NUL.
{
	le32 $((0x0001eb9f)) 24 0 64 64 8 # magic, version 1; hdr_len; type off/len; string off/len
	le32 42 $((0x04000002)) 16 5 1 0 11 7 64 # [6] STRUCT 'mod' { int value; struct mod *next; }
	le32 0 $((0x02000000)) 6 # [7] PTR -> [6]
	le32 46 $((0x11000000)) 6 0 # [8] DECL_TAG 'tag' on member 0 of [6]
	printf 'mod\000tag\000'
} >"$dir/split-over-fuzz-base.btf"

for src in "$here"/seeds-src/*.c; do
	name=$(basename "$src" .c)
	"$clang" -target bpf -O2 -g -c "$src" -o "$tmp/$name.o"
	"$objcopy" --dump-section .BTF="$dir/$name.btf" "$tmp/$name.o"
done
ls -l "$dir"
