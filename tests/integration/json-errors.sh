#!/usr/bin/env bash
# json-errors.sh OBJECT [BASE SPLIT]: hostile JSON for the json loader, made at test time from
# bpftool's JSON of OBJECT (a BPF object) and, for split BTF, of SPLIT over BASE. Each class of
# bad input (docs/json-rewriting.md, "Errors") must give exit status 1, one line naming the file and
# the JSON pointer or byte offset, and no output file.
source "$(dirname "$0")/lib.sh"

object=$1
require_file "$object"
base=${2:-}
split=${3:-}

"$BPFTOOL" btf dump file "$object" -j > "$work/good.json"
"$BTFORGE" --quiet convert "$work/good.json" -o "$work/good.btf" || fail "the good JSON is refused"
if [ -n "$base" ] && [ -r "$base" ] && [ -r "$split" ]; then
    "$BPFTOOL" btf dump file "$split" --base-btf "$base" -j > "$work/split.json"
else
    base=
fi

# The cases: NAME<TAB>EXPECTED (a fixed string the message holds), the JSON written by python.
mkdir "$work/cases"
python3 - "$work/good.json" "$work/cases" "${base:+$work/split.json}" > "$work/expected.tsv" <<'PY'
import json, sys
good, out, split = sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else ""
text = open(good).read()
doc = json.loads(text)
types = doc["types"]
def index_of(kind):
    return next(i for i, t in enumerate(types) if t["kind"] == kind)
def case(name, expected, document=None, raw=None):
    with open(f"{out}/{name}.json", "w") as f:
        f.write(raw if raw is not None else json.dumps(document))
    print(f"{name}\t{expected}")
def edited(edit):
    d = json.loads(text)
    edit(d["types"])
    return d
i_int, i_struct, i_proto = index_of("INT"), index_of("STRUCT"), index_of("FUNC_PROTO")

case("syntax", "offset 12 (line 1, column 13): syntax error", raw='{"types":[1 2]}')
case("truncated", "the document ends early", raw=text[: len(text) // 2])
case("not-json", "offset 0 (line 1, column 1)", raw="\x7fELF")
case("missing-field", f'/types/{i_int}: missing field "size"',
     edited(lambda t: t[i_int].pop("size")))
case("extra-field", f"/types/{i_struct}/color: unknown field 'color'",
     edited(lambda t: t[i_struct].update(color="red")))
case("extra-member-field", f"/types/{i_struct}/members/0/colour: unknown field 'colour'",
     edited(lambda t: t[i_struct]["members"][0].update(colour=1)))
case("wrong-type", f"/types/{i_int}/size: expected a number, found a string",
     edited(lambda t: t[i_int].update(size="4")))
case("wrong-list-type", f"/types/{i_struct}/members: expected an array, found an object",
     edited(lambda t: t[i_struct].update(members={})))
case("duplicate-id", f"/types/1/id: id {types[0]['id']} is also /types/0's",
     edited(lambda t: t[1].update(id=t[0]["id"])))
case("missing-type", f"/types/{i_struct}/members/0/type_id: refers to type [99999], which no type has",
     edited(lambda t: t[i_struct]["members"][0].update(type_id=99999)))
case("unknown-kind", "/types/0/kind: unknown kind 'CLASS'",
     edited(lambda t: t[0].update(kind="CLASS")))
case("vlen-over-limit", f"/types/{i_struct}/members: 65536 items: BTF allows at most 65535",
     edited(lambda t: t[i_struct].update(
         vlen=65536, members=[{"name": f"m{k}", "type_id": 0, "bits_offset": 0} for k in range(65536)])))
case("vlen-mismatch", f"/types/{i_struct}/vlen: vlen 99 but \"members\" has",
     edited(lambda t: t[i_struct].update(vlen=99)))
case("name-nul", f"/types/{i_int}/name: 'in\\x00t' holds a NUL byte",
     edited(lambda t: t[i_int].update(name="in\0t")))
case("name-too-long", f"/types/{i_struct}/name: a name of 600 bytes: BTF names are at most 511",
     edited(lambda t: t[i_struct].update(name="n" * 600)))
case("beyond-64-bits", f"/types/{i_int}/size: a number beyond 64 bits",
     raw=json.dumps(edited(lambda t: t[i_int].update(size=12345))).replace("12345", "18446744073709551616"))
case("beyond-32-bits", f"/types/{i_int}/size: 4294967296 does not fit in 32 bits",
     edited(lambda t: t[i_int].update(size=4294967296)))
case("negative", f"/types/{i_struct}/size: -8 is negative",
     edited(lambda t: t[i_struct].update(size=-8)))
case("not-integer", f"/types/{i_int}/size: not an integer",
     edited(lambda t: t[i_int].update(size=4.5)))
case("bitfield-too-wide", f"/types/{i_struct}/members/0/bitfield_size: 256 does not fit in 8 bits",
     edited(lambda t: t[i_struct]["members"][0].update(bitfield_size=256)))
case("nesting", "nested deeper than 8 levels",
     raw='{"types":[{"id":1,"kind":"INT","name":' + "[" * 100000 + "]" * 100000 + "}]}")
case("reference-loop", "is on a reference loop that never reaches a type with a size",
     {"types": [{"id": 1, "kind": "TYPEDEF", "name": "loop", "type_id": 2},
                {"id": 2, "kind": "CONST", "name": "(anon)", "type_id": 1}]})
case("func-target", "/types/0/type_id: type [1] FUNC 'f': refers to type [2] INT 'int', not a FUNC_PROTO",
     {"types": [{"id": 1, "kind": "FUNC", "name": "f", "type_id": 2, "linkage": "global"},
                {"id": 2, "kind": "INT", "name": "int", "size": 4, "bits_offset": 0,
                 "nr_bits": 32, "encoding": "SIGNED"}]})
case("linkage", f"/types/0/linkage: 'local' is none of static, global, extern",
     {"types": [{"id": 1, "kind": "VAR", "name": "v", "type_id": 0, "linkage": "local"}]})
case("not-types", "/: the document has no \"types\"", {})
case("not-object", "/: the document is an array", [])
case("top-level-extra", "/version: unknown field 'version'", {"types": [], "version": 1})
if split:
    s = json.load(open(split))
    first = s["types"][0]["id"]
    s["types"][0]["id"] = 1
    case("split-id-in-base", "/types/0/id: id 1 is inside the base's ids (1 to " + str(first - 1),
         s)
PY

checked=0
while IFS=$'\t' read -r name expected; do
    args=(-f json)
    [ "$name" = split-id-in-base ] && args+=(-B "$base")
    rm -f "$work/out.btf"
    set +e
    "$BTFORGE" --quiet convert "$work/cases/$name.json" "${args[@]}" -o "$work/out.btf" \
        2> "$work/stderr"
    status=$?
    set -e
    [ "$status" = 1 ] || fail "$name: exit status $status, not 1 ($(cat "$work/stderr"))"
    [ "$(wc -l < "$work/stderr")" = 1 ] || fail "$name: not one line: $(cat "$work/stderr")"
    grep -qF -- "$work/cases/$name.json: " "$work/stderr" || fail "$name: the file is not named: $(cat "$work/stderr")"
    grep -qF -- "$expected" "$work/stderr" || fail "$name: expected '$expected' in: $(cat "$work/stderr")"
    [ ! -e "$work/out.btf" ] || fail "$name: an output was left"
    ls -A "$work" | grep -q '\.tmp\.' && fail "$name: a temporary file was left"
    echo "$name: $(cat "$work/stderr")" | cut -c -200
    checked=$((checked + 1))
done < "$work/expected.tsv"

# A pipe holds at most --stream-limit bytes.
set +e
"$BTFORGE" --quiet --stream-limit 1K convert /dev/stdin -f json -o "$work/out.btf" \
    < <(cat "$work/good.json") 2> "$work/stderr"
status=$?
set -e
[ "$status" = 1 ] && [ ! -e "$work/out.btf" ] || fail "a pipe past --stream-limit: status $status"
echo "pipe past --stream-limit: $(cat "$work/stderr")"
echo "$checked hostile JSON inputs refused with one line each, no output left"
