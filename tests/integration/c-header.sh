#!/usr/bin/env bash
# c-header.sh [--bpftool-7.5] MODE ...: the c emitter's header (-t c) against bpftool's (btf dump
# file X format c). With --bpftool-7.5, btf and dwarf compare -t c with c.bpftool=7.5 and
# 7.5-unsorted against bpftool 7.5.0 ($BPFTOOL_7_5, scripts/fetch-bpftool-backport.sh) with
# format c and format c unsorted, instead of the default against Debian's bpftool 7.1.
#   btf [-B BASE] INPUT  the header of INPUT's BTF equals bpftool's, byte for byte, read by the
#                        btf loader and through bpftool's JSON (the json loader)
#   dwarf INPUT          the header made from INPUT's DWARF directly equals bpftool's header of
#                        btforge's BTF of INPUT
#   core VMLINUX SOURCE  a CO-RE program (SOURCE, reading task_struct) compiles with clang -target
#                        bpf against the header of VMLINUX, whole and kept to task_struct,file
#   misplaced            types C cannot put where BTF puts them (a FUNC, VAR or DATASEC as a
#                        member's type: hostile BTF): the header is still bpftool's, and what
#                        libbpf says of them are btforge's warnings, which --quiet silences
#   enums                btf, on BTF of enums of 1, 2 and 8 bytes (libbpf's mode attributes)
#   limits               hostile BTF that would crash libbpf's btf_dump (and bpftool), or make
#                        it work or print without bound (plugins/emitter-c/DumpLimits.h): one
#                        line each, exit 1, no output, at once; 1000 levels of nesting still
#                        print as bpftool prints them
source "$(dirname "$0")/lib.sh"

# Each flavour: the c emitter's bpftool= option and bpftool's words after 'format c'.
flavours=("7.1:")
if [ "$1" = --bpftool-7.5 ]; then
    shift
    # Not a bookworm package: skipped (not failed) when bookworm-backports no longer serves it
    [ -x "${BPFTOOL_7_5:-}" ] ||
        skip "bpftool 7.5.0 is not at '${BPFTOOL_7_5:-}': run scripts/fetch-bpftool-backport.sh"
    BPFTOOL=$BPFTOOL_7_5
    flavours=("7.5:" "7.5-unsorted:unsorted")
fi
mode=$1
shift
if [ "$mode" = misplaced ]; then
    cat > "$work/misplaced.json" <<'EOF'
{"types":[
{"id":1,"kind":"INT","name":"int","size":4,"bits_offset":0,"nr_bits":32,"encoding":"SIGNED"},
{"id":2,"kind":"FUNC_PROTO","name":"(anon)","ret_type_id":1,"params":[{"name":"a","type_id":5}]},
{"id":3,"kind":"FUNC","name":"f","type_id":2,"linkage":"global"},
{"id":4,"kind":"STRUCT","name":"s","size":4,"members":[{"name":"m","type_id":3,"bits_offset":0},
 {"name":"n","type_id":5,"bits_offset":0},{"name":"o","type_id":6,"bits_offset":0}]},
{"id":5,"kind":"VAR","name":"v","type_id":6,"linkage":"global"},
{"id":6,"kind":"DATASEC","name":".data","size":4,"vars":[{"type_id":4,"offset":0,"size":4}]},
{"id":7,"kind":"TYPEDEF","name":"t","type_id":3}]}
EOF
    "$BTFORGE" --quiet convert "$work/misplaced.json" -o "$work/misplaced.btf"
    "$BPFTOOL" btf dump file "$work/misplaced.btf" format c > "$work/bpftool.h" 2> "$work/bpftool.err"
    "$BTFORGE" convert "$work/misplaced.json" -t c -o "$work/misplaced.h" 2> "$work/stderr"
    cmp "$work/bpftool.h" "$work/misplaced.h" || fail "the header differs from bpftool's"
    grep -q '^btforge: warning: -t c: libbpf: ' "$work/stderr" || fail "libbpf's messages are not warnings"
    ! grep -v '^btforge: warning: -t c: ' "$work/stderr" || fail "something else was printed"
    "$BTFORGE" --quiet convert "$work/misplaced.json" -t c -o "$work/misplaced.h" 2> "$work/stderr"
    [ ! -s "$work/stderr" ] || fail "--quiet printed: $(cat "$work/stderr")"
    echo "misplaced types: bpftool's header; libbpf's messages are warnings, none with --quiet"
    exit 0
fi
if [ "$mode" = limits ]; then
    mkdir "$work/cases"
    python3 - "$work/cases" > "$work/expected.tsv" <<'PY'
import json, sys
out = sys.argv[1]
INT = {"id": 1, "kind": "INT", "name": "int", "size": 4, "bits_offset": 0, "nr_bits": 32,
       "encoding": "SIGNED"}
def case(name, expected, types):
    json.dump({"types": types}, open(f"{out}/{name}.json", "w"))
    print(f"{name}\t{expected}")
def struct(id, name, members, size=4):
    return {"id": id, "kind": "STRUCT", "name": name, "size": size,
            "members": [{"name": n, "type_id": t, "bits_offset": o} for n, t, o in members]}
# libbpf recurses from the prototype to itself without end (SIGSEGV)
case("loop", "type [2] FUNC_PROTO: contains itself ([2] FUNC_PROTO -> [1] PTR -> [2])",
     [{"id": 1, "kind": "PTR", "name": "(anon)", "type_id": 2},
      {"id": 2, "kind": "FUNC_PROTO", "name": "(anon)", "ret_type_id": 0,
       "params": [{"name": "f", "type_id": 1}]}])
# 100,000 typedefs: a stack overflow in btf_dump_order_type
case("deep", "nests more than 1024 levels deep",
     [{"id": i, "kind": "TYPEDEF", "name": f"t{i}", "type_id": i + 1} for i in range(1, 100001)]
     + [dict(INT, id=100001)])
# each struct embeds the previous one twice: btf__align_of walks 2^60 types
case("shared", "steps", [INT] + [struct(k, f"s{k}", [("a", k - 1, 0), ("b", k - 1, 0)])
                                 for k in range(2, 62)])
# the same with anonymous structs, which btf_dump also prints inline 2^60 times
case("inline", "steps", [INT] + [struct(k, "(anon)" if k < 61 else "top",
                                        [("a", k - 1, 0), ("b", k - 1, 0)]) for k in range(2, 62)])
# an INT of size 0 as a member after a gap: btf_dump_emit_bit_padding divides by its alignment
case("zero-alignment", "member 1 'b' is of type [2] INT 'nothing', of alignment 0",
     [dict(INT, name="char", size=1, nr_bits=8),
      dict(INT, id=2, name="nothing", size=0, nr_bits=0, encoding="(none)"),
      struct(3, "s", [("a", 1, 0), ("b", 2, 64)], size=16)])
# so does a member of a kind without alignment (FWD, void, FUNC_PROTO): btf__align_of says 0
case("fwd-member", "member 1 'b' is of type [2] FWD 'later', of alignment 0",
     [INT, {"id": 2, "kind": "FWD", "name": "later", "fwd_kind": "struct"},
      struct(3, "s", [("a", 1, 0), ("b", 2, 64)], size=16)])
# a member 2^30 bits in: bpftool prints 16 million lines of padding (184 MB) for 200 bytes
case("padding", "the header would pass", [INT, struct(2, "s", [("a", 1, 0), ("b", 1, 2**30 - 64)], size=8)])
case("huge", "a size of 268435456 bytes", [INT, struct(2, "s", [("a", 1, 0)], size=2**28)])
PY
    while IFS=$'\t' read -r name expected; do
        set +e
        timeout 60 "$BTFORGE" --quiet convert "$work/cases/$name.json" -t c -o "$work/out.h" \
            2> "$work/stderr"
        status=$?
        set -e
        [ "$status" = 1 ] || fail "$name: exit status $status, not 1 ($(cat "$work/stderr"))"
        [ "$(wc -l < "$work/stderr")" = 1 ] || fail "$name: not one line: $(cat "$work/stderr")"
        grep -qF -- "$work/cases/$name.json: -t c: " "$work/stderr" ||
            fail "$name: the file is not named: $(cat "$work/stderr")"
        grep -qF -- "$expected" "$work/stderr" || fail "$name: expected '$expected' in: $(cat "$work/stderr")"
        [ ! -e "$work/out.h" ] || fail "$name: an output was left"
        echo "$name: $(cut -c -160 "$work/stderr")"
    done < "$work/expected.tsv"
    # 1000 anonymous structs nested in each other: deep, but within the limit, and bpftool's
    python3 - > "$work/nested.json" <<'PY'
import json
types = [{"id": 1, "kind": "INT", "name": "int", "size": 4, "bits_offset": 0, "nr_bits": 32,
          "encoding": "SIGNED"}]
types += [{"id": i, "kind": "STRUCT", "name": "(anon)" if i < 1001 else "top", "size": 4,
           "members": [{"name": "a", "type_id": i - 1, "bits_offset": 0}]} for i in range(2, 1002)]
print(json.dumps({"types": types}))
PY
    "$BTFORGE" --quiet convert "$work/nested.json" -o "$work/nested.btf"
    "$BPFTOOL" btf dump file "$work/nested.btf" format c > "$work/bpftool.h"
    "$BTFORGE" --quiet convert "$work/nested.json" -t c -o "$work/nested.h"
    cmp "$work/bpftool.h" "$work/nested.h" || fail "1000 nested structs: not bpftool's header"
    echo "1000 nested anonymous structs: bpftool's header ($(wc -l < "$work/nested.h") lines)"
    # a bpftool the emitter does not know: a usage error naming the option, no output
    set +e
    "$BTFORGE" --quiet convert "$work/nested.json" -t c --plugin-opt c.bpftool=7.4 \
        -o "$work/out.h" 2> "$work/stderr"
    status=$?
    set -e
    [ "$status" = 2 ] && [ "$(wc -l < "$work/stderr")" = 1 ] && [ ! -e "$work/out.h" ] &&
        grep -q "bpftool: '7.4' is not 7.1, 7.5 or 7.5-unsorted" "$work/stderr" ||
        fail "c.bpftool=7.4: exit $status, $(cat "$work/stderr")"
    echo "c.bpftool=7.4: $(cat "$work/stderr")"
    exit 0
fi
if [ "$mode" = enums ]; then
    # Enums of every size libbpf gives a mode attribute (or none): 1 byte, 8 bytes with small
    # values (ENUM and ENUM64), 8 bytes with a large one, 2 bytes, and a 1-byte one inline.
    cat > "$work/enums.json" <<'EOF'
{"types":[
{"id":1,"kind":"ENUM","name":"e1","encoding":"UNSIGNED","size":1,"values":[{"name":"A1","val":1}]},
{"id":2,"kind":"ENUM","name":"e8","encoding":"UNSIGNED","size":8,"values":[{"name":"A8","val":1}]},
{"id":3,"kind":"ENUM64","name":"e64s","encoding":"UNSIGNED","size":8,"values":[{"name":"B1","val":5}]},
{"id":4,"kind":"ENUM64","name":"e64b","encoding":"UNSIGNED","size":8,
 "values":[{"name":"B2","val":8589934592}]},
{"id":5,"kind":"ENUM","name":"e2","encoding":"SIGNED","size":2,"values":[{"name":"A2","val":-1}]},
{"id":6,"kind":"STRUCT","name":"s","size":8,"members":[{"name":"x","type_id":7,"bits_offset":0},
 {"name":"y","type_id":1,"bits_offset":8}]},
{"id":7,"kind":"ENUM","name":"(anon)","encoding":"UNSIGNED","size":1,"values":[{"name":"Z","val":1}]}]}
EOF
    "$BTFORGE" --quiet convert "$work/enums.json" -o "$work/enums.btf"
    mode=btf
    set -- "$work/enums.btf"
fi
base_args "$@"
shift $base_shift
input=$1
require_file "$input" "fetch it with scripts/fetch-debian-kernel.sh"

# same_header EXPECTED GOT WHAT
same_header() {
    cmp "$1" "$2" || {
        diff "$1" "$2" | head -20
        fail "$3 differs from bpftool's header"
    }
}

case "$mode" in
btf)
    for flavour in "${flavours[@]}"; do
        option=${flavour%%:*}
        format=(format c ${flavour#*:})
        "$BPFTOOL" btf dump file "$input" "${base_bpftool[@]}" "${format[@]}" > "$work/bpftool.h"
        "$BTFORGE" --quiet convert "$input" -f btf "${base[@]}" -t c --plugin-opt "c.bpftool=$option" \
            -o "$work/btf.h"
        same_header "$work/bpftool.h" "$work/btf.h" "bpftool=$option: the header of $input's BTF"
        "$BPFTOOL" btf dump file "$input" "${base_bpftool[@]}" -j > "$work/types.json"
        "$BTFORGE" --quiet convert "$work/types.json" "${base[@]}" -t c --plugin-opt "c.bpftool=$option" \
            -o "$work/json.h"
        same_header "$work/bpftool.h" "$work/json.h" "bpftool=$option: the header of bpftool's JSON of $input"
        echo "-t c (bpftool=$option) equals bpftool's header (${format[*]}) from BTF and from JSON:" \
            "$(wc -l < "$work/bpftool.h") lines"
    done
    ;;
dwarf)
    "$BTFORGE" --quiet convert "$input" -o "$work/dwarf.btf"
    for flavour in "${flavours[@]}"; do
        option=${flavour%%:*}
        format=(format c ${flavour#*:})
        "$BPFTOOL" btf dump file "$work/dwarf.btf" "${format[@]}" > "$work/bpftool.h"
        "$BTFORGE" --quiet convert "$input" -t c --plugin-opt "c.bpftool=$option" -o "$work/dwarf.h"
        same_header "$work/bpftool.h" "$work/dwarf.h" "bpftool=$option: the header of $input's DWARF"
        echo "DWARF -> C (bpftool=$option) equals bpftool's header (${format[*]}) of btforge's BTF:" \
            "$(wc -l < "$work/dwarf.h") lines"
    done
    ;;
core)
    source_file=$2
    clang=$(command -v clang-19) || skip "clang-19 is not installed"
    command -v llvm-objcopy-19 > /dev/null || skip "llvm-objcopy-19 is not installed"
    "$BTFORGE" --quiet convert "$input" -t c -o "$work/vmlinux.h"
    "$BTFORGE" --quiet convert "$input" -t c --keep task_struct,file -o "$work/small.h"
    [ "$(wc -l < "$work/small.h")" -lt "$(wc -l < "$work/vmlinux.h")" ] ||
        fail "--keep did not make the header smaller"
    for header in vmlinux.h small.h; do
        mkdir -p "$work/${header%.h}"
        cp "$work/$header" "$work/${header%.h}/vmlinux.h"
        "$clang" -target bpf -O2 -g -I "$work/${header%.h}" -c "$source_file" \
            -o "$work/${header%.h}.bpf.o" || fail "the CO-RE program does not compile against $header"
        # CO-RE: clang wrote the task_struct field reads as relocations libbpf resolves at load
        # time (the CO-RE records of .BTF.ext: real_parent, tgid, mm, exe_file).
        "$BPFTOOL" btf dump file "$work/${header%.h}.bpf.o" > "$work/object.txt"
        grep -q "STRUCT 'task_struct'" "$work/object.txt" ||
            fail "the object compiled against $header does not describe task_struct"
        llvm-objcopy-19 --dump-section ".BTF.ext=$work/btf.ext" "$work/${header%.h}.bpf.o" \
            "$work/copy.o"
        relocations=$(python3 - "$work/btf.ext" <<'PY'
import struct, sys
ext = open(sys.argv[1], "rb").read()
magic, _, _, hdr_len = struct.unpack_from("<HBBI", ext)
assert magic == 0xeb9f and hdr_len >= 32, "not a .BTF.ext with CO-RE records"
off, size = struct.unpack_from("<II", ext, 24)
at, end, count = hdr_len + off + 4, hdr_len + off + size, 0  # after the record size
while at < end:
    _, n = struct.unpack_from("<II", ext, at)
    count += n
    at += 8 + n * struct.unpack_from("<I", ext, hdr_len + off)[0]
print(count)
PY
)
        [ "$relocations" -ge 4 ] ||
            fail "the object compiled against $header has $relocations CO-RE relocations, not 4"
    done
    echo "a CO-RE program compiles against the whole header ($(wc -l < "$work/vmlinux.h") lines)" \
        "and against --keep task_struct,file ($(wc -l < "$work/small.h") lines)," \
        "(its reads: $relocations CO-RE relocations)"
    ;;
*) fail "unknown mode $mode" ;;
esac
