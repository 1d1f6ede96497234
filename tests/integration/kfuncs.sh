#!/usr/bin/env bash
# kfuncs.sh PAHOLE_MASTER ELF [BASE]: kfunc DECL_TAGs (feature decl_tag_kfuncs) and arena
# pointers (feature attributes). The kfuncs are found here independently, from readelf's symbol
# and section tables and the .BTF_ids bytes (od): every `__BTF_ID__func__<name>__<n>` inside a
# `__BTF_ID__set8__*` range whose flags word has bit 0, the flags of the last entry winning. Then:
#  - each kfunc btforge emits a FUNC for has exactly one DECL_TAG 'bpf_kfunc' on that FUNC with
#    component_idx -1, and 'bpf_fastcall' exactly when its flags have KF_FASTCALL (1 << 12);
#    no other FUNC has either tag;
#  - without the feature there is none of them;
#  - with attributes, a kfunc's return value, argument 1 and argument 2 are each a PTR to a
#    TYPE_TAG 'address_space(1)' with kind_flag 1 (read by libbpf: btf-oracle tags) exactly when
#    its flags have KF_ARENA_RET (1 << 13), KF_ARENA_ARG1 (1 << 14), KF_ARENA_ARG2 (1 << 15); the
#    output's types are upstream pahole master's (PAHOLE_MASTER/pahole, same features), as
#    bpftool dumps them and libbpf reads their tags; without attributes there is no such tag;
#  - libbpf parses the output and the kernel accepts it (when it is not split; with attributes,
#    when the running kernel's own BTF has kind_flag tags);
#  - a set cut short by the end of .BTF_ids, and an arena flag on a value that is not a pointer,
#    are one error line naming the file and the symbol or kfunc, and no output.
source "$(dirname "$0")/lib.sh"
pahole_master=$1 input=$2 base=${3:-}
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
# --- arena pointers (attributes) ---
"$BTFORGE" --quiet convert "${base_args[@]}" "$input" -o "$work/attr.btf" --features default,attributes
"$BTF_ORACLE" parse "$work/attr.btf" "${base_args[@]:1}" > /dev/null || fail "libbpf rejects the attributes output"
"$BTF_ORACLE" tags /sys/kernel/btf/vmlinux > "$work/running-tags" 2> /dev/null || true
if [ -z "$base" ] && grep -q "^[0-9]* TYPE_TAG kind_flag=1" "$work/running-tags"; then
    require_kernel_accepts "$work/attr.btf"
fi
"$BPFTOOL" "${bpftool_base[@]}" btf dump file "$work/attr.btf" > "$work/attr.dump"
"$BTF_ORACLE" tags "$work/attr.btf" "${base_args[@]:1}" |
    awk '$2 == "TYPE_TAG" && $3 == "kind_flag=1" && $4 == "'"'address_space(1)'"'" {print $1}' \
        > "$work/arena-tags"
"$BTF_ORACLE" tags "$work/out.btf" "${base_args[@]:1}" > "$work/default-tags"
grep "TYPE_TAG kind_flag=1" "$work/default-tags" && fail "kind_flag TYPE_TAGs without attributes"
# Per emitted kfunc: its name, flags, and whether the return value, argument 1 and argument 2 are
# arena pointers (a PTR whose target is one of arena-tags) in attr.btf.
awk -v tags="$work/arena-tags" -v kfuncs="$work/emitted" '
    BEGIN { while ((getline l < tags) > 0) arena[l] = 1
            while ((getline l < kfuncs) > 0) { split(l, f, " "); flags[f[1]] = f[2] } }
    /^\[/ { id = substr($1, 2, length($1) - 2); kind[id] = $2; param = 0 }
    /^\[/ && $2 == "PTR" { sub("type_id=", "", $4); target[id] = $4 }
    /^\[/ && $2 == "FUNC" { sub("type_id=", "", $4); proto[substr($3, 2, length($3) - 2)] = $4 }
    /^\[/ && $2 == "FUNC_PROTO" { sub("ret_type_id=", "", $4); ret[id] = $4 }
    /^\t/ && param < 2 { param++; t = $NF; sub("type_id=", "", t); arg[id, param] = t }
    function tagged(t) { return (t in target) && (target[t] in arena) ? 1 : 0 }
    END { for (n in flags) if (n in proto) { p = proto[n]
            print n, flags[n], tagged(ret[p]), tagged(arg[p, 1]), tagged(arg[p, 2]) } }' \
    "$work/attr.dump" | sort > "$work/arena-got"
awk '{ f = $2; print $1, f, int(f / 8192) % 2, int(f / 16384) % 2, int(f / 32768) % 2 }' \
    "$work/emitted" > "$work/arena-want"
diff "$work/arena-want" "$work/arena-got" || fail "arena pointers differ from the KF_ARENA_* flags"
echo "arena kfuncs (KF_ARENA_*): $(awk '$3 + $4 + $5 > 0' "$work/arena-want" | wc -l), pointers tagged: $(awk '{n += $3 + $4 + $5} END {print n + 0}' "$work/arena-got")"
if [ -z "$base" ]; then
    "$pahole_master/pahole" -J --btf_features=default,attributes \
        --btf_encode_detached="$work/master.btf" "$input" > /dev/null
    "$BPFTOOL" btf dump file "$work/master.btf" > "$work/master.dump"
    diff "$work/master.dump" "$work/attr.dump" || fail "the types differ from pahole master's"
    diff <("$BTF_ORACLE" tags "$work/master.btf") <("$BTF_ORACLE" tags "$work/attr.btf") ||
        fail "the tags' kind_flags differ from pahole master's"
    echo "with attributes: the types and tags of upstream pahole master"
fi

cc=$(command -v gcc || command -v clang-19 || true)
if [ -n "$cc" ]; then
    refused() { # NAME EXPECTED (C source on stdin): one error line with EXPECTED, exit 1, no output
        cat > "$work/$1.c"
        "$cc" -g -c -o "$work/$1.o" "$work/$1.c"
        set +e
        "$BTFORGE" --quiet convert "$work/$1.o" -o "$work/$1.btf" --features default,attributes \
            2> "$work/$1.err"
        local status=$?
        set -e
        [ "$status" = 1 ] && [ "$(wc -l < "$work/$1.err")" = 1 ] &&
            grep -qF "$1.o: $2" "$work/$1.err" && [ ! -e "$work/$1.btf" ] ||
            fail "$1: exit $status, '$(cat "$work/$1.err")'"
        echo "$1: $(cat "$work/$1.err")"
    }
    refused cut ".BTF_ids: symbol __BTF_ID__set8__cut_short" <<'EOF2'
long f(long a) { return a + 1; }
asm(".pushsection .BTF_ids,\"a\"\n__BTF_ID__set8__cut_short:\n.long 0\n"
    ".size __BTF_ID__set8__cut_short, 4\n.popsection\n");
EOF2
    refused not-a-pointer "kfunc 'f': .BTF_ids flags the return value as an arena pointer" <<'EOF2'
long f(long a) { return a + 1; }
asm(".pushsection .BTF_ids,\"a\"\n.balign 8\n__BTF_ID__set8__arena:\n.long 0\n.long 1\n"
    "__BTF_ID__func__f__1:\n.long 0\n.long 8192\n"
    ".size __BTF_ID__set8__arena, .-__BTF_ID__set8__arena\n.popsection\n");
EOF2
fi
echo "kfunc tags match the .BTF_ids sets"
