#!/bin/sh
# Writes a seed corpus for json-loader-fuzz into DIR: bpftool's JSON of small BPF objects built from
# seeds-src/ (btforge's JSON is the same bytes), one split over the fuzz target's base, and one
# with the FUNC address extension. CLANG and BPFTOOL override the tools (default clang-19, bpftool).
set -eu

if [ $# -ne 1 ]; then
	echo "usage: $0 DIR" >&2
	exit 2
fi
dir=$1
here=$(cd "$(dirname "$0")" && pwd)
clang=${CLANG:-clang-19}
bpftool=${BPFTOOL:-$(command -v bpftool || echo /usr/sbin/bpftool)}

mkdir -p "$dir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for src in "$here"/seeds-src/*.c; do
	name=$(basename "$src" .c)
	"$clang" -target bpf -O2 -g -c "$src" -o "$tmp/$name.o"
	"$bpftool" btf dump file "$tmp/$name.o" -j >"$dir/$name.json"
done
# Over JsonLoaderFuzz.cpp's base (types 1-3: int, int *, struct base_struct).
cat >"$dir/split-over-fuzz-base.json" <<'JSON'
{"types":[{"id":4,"kind":"STRUCT","name":"mod","size":16,"vlen":2,"members":[{"name":"value","type_id":1,"bits_offset":0},{"name":"next","type_id":5,"bits_offset":64,"bitfield_size":3}]},{"id":5,"kind":"PTR","name":"(anon)","type_id":3},{"id":7,"kind":"DECL_TAG","name":"tag","type_id":4,"component_idx":0}]}
JSON
cat >"$dir/func-addr.json" <<'JSON'
{"types":[{"id":1,"kind":"INT","name":"int","size":4,"bits_offset":0,"nr_bits":32,"encoding":"SIGNED"},{"id":2,"kind":"FUNC_PROTO","name":"(anon)","ret_type_id":1,"vlen":1,"params":[{"name":"x","type_id":1}]},{"id":3,"kind":"FUNC","name":"f","type_id":2,"linkage":"global","addr":"0xffffffff81000000"},{"id":4,"kind":"ENUM","name":"e","encoding":"UNSIGNED","size":4,"vlen":1,"values":[{"name":"E","val":18446744071562067968}]}]}
JSON
ls -l "$dir"
