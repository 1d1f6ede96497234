#!/usr/bin/env bash
# llvm-btf.sh OBJECT: a BPF object from clang -target bpf -O2 -g carries two descriptions of its
# types, DWARF and LLVM's own .BTF. The BTF btforge makes from the DWARF must have every named
# type LLVM's has, equal in shape (LLVM keeps only the types the object uses, so btforge may have
# more; LLVM's synthetic __ARRAY_SIZE_TYPE__ index type has no DWARF counterpart to match).
# Objects for bpfeb with DWARF 3 check big-endian DW_AT_bit_offset bitfields.
source "$(dirname "$0")/lib.sh"
loader=dwarf # --loader NAME: the DWARF loader under test
if [ "${1:-}" = --loader ]; then
    loader=$2
    shift 2
fi
object=$1
require_file "$object"
set +e
# LLVM nests multi-dimensional arrays; btforge flattens them by default: compared flattened.
"$BTFORGE" --quiet diff --from-a btf --from-b "$loader" --flatten-arrays \
    --kinds INT,STRUCT,UNION,ENUM,ENUM64,FWD,TYPEDEF,FLOAT,DECL_TAG "$object" "$object" > "$work/diff"
status=$?
set -e
[ "$status" -le 1 ] || { cat "$work/diff"; fail "btforge diff failed"; }
cat "$work/diff"
# Difference lines read "KIND name: what"; the summary table has no colon.
if grep -E '^[A-Z0-9_]+ .*: ' "$work/diff" | grep -v ': only in B: ' | grep -v '__ARRAY_SIZE_TYPE__'; then
    fail "LLVM's .BTF has types the DWARF conversion lacks or shapes differently (listed above)"
fi
echo "every named type of LLVM's .BTF is in btforge's BTF of the DWARF, equal"
