#!/usr/bin/env bash
# kfuncs.sh ELF [BASE]: kfunc DECL_TAGs (feature decl_tag_kfuncs). The kfuncs are found here
# independently, from readelf's symbol and section tables and the .BTF_ids bytes (od): every
# `__BTF_ID__func__<name>__<n>` inside a `__BTF_ID__set8__*` range whose flags word has bit 0,
# the flags of the last entry winning. Then:
#  - each kfunc btforge emits a FUNC for has exactly one DECL_TAG 'bpf_kfunc' on that FUNC with
#    component_idx -1, and 'bpf_fastcall' exactly when its flags have KF_FASTCALL (1 << 12);
#    no other FUNC has either tag;
#  - without the feature there is none of them;
#  - libbpf parses the output and the kernel accepts it (when it is not split);
#  - a set cut short by the end of .BTF_ids is one error line naming the file and the symbol, and
#    no output.
source "$(dirname "$0")/lib.sh"
input=$1 base=${2:-}
require_file "$input"
base_args=() bpftool_base=()
if [ -n "$base" ]; then
    require_file "$base"
    base_args=(-B "$base") bpftool_base=(-B "$base")
fi

# --- the kfuncs, independently ---
readelf -SW "$input" | sed -n 's/^ *\[ *\([0-9]*\)\] \.BTF_ids  *[A-Z_]*  *\([0-9a-f]*\) \([0-9a-f]*\) \([0-9a-f]*\).*/\1 \2 \3/p' \
    > "$work/section"
: > "$work/expected"
if [ -s "$work/section" ]; then
    read -r index addr off < "$work/section"
    word() { # symbol value (hex), byte offset from it -> u32 in the file
        od -An -tu4 -j $((0x$off + 0x$1 - 0x$addr + $2)) -N4 "$input" | tr -d ' '
    }
    readelf -sW "$input" | awk -v ndx="$index" '$7 == ndx && $8 ~ /^__BTF_ID__/ {print $2, $3, $8}' |
        sort > "$work/btf-ids"
    while read -r value size name; do
        [[ $name == __BTF_ID__set8__* ]] || continue
        (($(word "$value" 4) & 1)) || continue
        while read -r evalue _ ename; do
            [[ $ename == __BTF_ID__func__* ]] || continue
            ((0x$evalue >= 0x$value && 0x$evalue < 0x$value + size)) || continue
            fname=${ename#__BTF_ID__func__}
            echo "${fname%__*} $(word "$evalue" 4)"
        done < "$work/btf-ids"
    done < "$work/btf-ids" > "$work/entries"
    # One line per name: the last entry's flags.
    tac "$work/entries" | awk '!seen[$1]++' | sort > "$work/expected"
fi
echo "kfuncs in $input: $(wc -l < "$work/expected")"

# --- btforge's tags ---
"$BTFORGE" --quiet convert "${base_args[@]}" "$input" -o "$work/out.btf"
if [ -n "$base" ]; then
    "$BTF_ORACLE" parse "$work/out.btf" "$base" || fail "libbpf rejects the output"
else
    "$BTF_ORACLE" parse "$work/out.btf" || fail "libbpf rejects the output"
    require_kernel_accepts "$work/out.btf"
fi
"$BPFTOOL" "${bpftool_base[@]}" btf dump file "$work/out.btf" > "$work/dump"
sed -n "s/^\[\([0-9]*\)\] FUNC '\([^']*\)'.*/\1 \2/p" "$work/dump" > "$work/funcs"
tags() { # tag -> "function component" per tag
    sed -n "s/^\[[0-9]*\] DECL_TAG '$1' type_id=\([0-9]*\) component_idx=\(-\{0,1\}[0-9]*\)$/\1 \2/p" "$work/dump" |
        while read -r id component; do
            echo "$(awk -v id="$id" '$1 == id {print $2}' "$work/funcs") $component"
        done | sort
}
tags bpf_kfunc > "$work/kfunc-tags"
tags bpf_fastcall > "$work/fastcall-tags"
cut -d' ' -f2 "$work/funcs" | sort -u > "$work/func-names"
join "$work/expected" "$work/func-names" > "$work/emitted" || true
awk '{print $1, -1}' "$work/emitted" > "$work/want-kfunc"
awk '$2 % 8192 >= 4096 {print $1, -1}' "$work/emitted" > "$work/want-fastcall"
echo "bpf_kfunc tags: $(wc -l < "$work/kfunc-tags") (expected $(wc -l < "$work/want-kfunc")); bpf_fastcall: $(wc -l < "$work/fastcall-tags") (expected $(wc -l < "$work/want-fastcall"))"
diff "$work/want-kfunc" "$work/kfunc-tags" || fail "bpf_kfunc tags differ from the kfunc sets"
diff "$work/want-fastcall" "$work/fastcall-tags" || fail "bpf_fastcall tags differ from KF_FASTCALL"

"$BTFORGE" --quiet convert "${base_args[@]}" "$input" -o "$work/off.btf" \
    --features var,float,decl_tag,type_tag,enum64,optimized_func,consistent_func
"$BPFTOOL" "${bpftool_base[@]}" btf dump file "$work/off.btf" |
    grep -qE "DECL_TAG '(bpf_kfunc|bpf_fastcall)'" && fail "kfunc tags without decl_tag_kfuncs"
cc=$(command -v gcc || command -v clang-19 || true)
if [ -n "$cc" ]; then
    cat > "$work/cut.c" <<'EOF2'
long f(long a) { return a + 1; }
asm(".pushsection .BTF_ids,\"a\"\n__BTF_ID__set8__cut_short:\n.long 0\n"
    ".size __BTF_ID__set8__cut_short, 4\n.popsection\n");
EOF2
    "$cc" -g -c -o "$work/cut.o" "$work/cut.c"
    set +e
    "$BTFORGE" --quiet convert "$work/cut.o" -o "$work/cut.btf" 2> "$work/cut.err"
    status=$?
    set -e
    [ "$status" = 1 ] && [ "$(wc -l < "$work/cut.err")" = 1 ] &&
        grep -q "cut.o: .BTF_ids: symbol __BTF_ID__set8__cut_short" "$work/cut.err" &&
        [ ! -e "$work/cut.btf" ] || fail "a cut-short set: exit $status, '$(cat "$work/cut.err")'"
    echo "a cut-short set: $(cat "$work/cut.err")"
fi
echo "kfunc tags match the .BTF_ids sets"
