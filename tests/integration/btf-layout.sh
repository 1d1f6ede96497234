# btf-layout.sh PROGRAM TOOLS: the 2026 kind-layout section (`--features ...,layout`) against
# upstream: libbpf master (TOOLS/libbpf-master/btf-check) parses btforge's layout output and its
# layout-described FUNC address kind, the layout section equals upstream pahole master's
# (TOOLS/pahole-master) for the same object, and a file with a kind btforge does not know,
# described by its layout, is read (stepped over, with a warning). Skips without the tools.
source "$(dirname "$0")/lib.sh"
program=$1
tools=$2
require_file "$program"
btf_check=$tools/libbpf-master/btf-check
require_file "$btf_check" "libbpf master's btf-check"
require_file "$tools/pahole-master/pahole" "upstream pahole master"

runnable_copy "$tools/pahole-master" "$work/pahole"
cp "$program" "$work/prog.o"
"$work/pahole/pahole" -J --btf_features=default,layout --btf_encode_detached="$work/up.btf" \
    "$work/prog.o" || skip "upstream pahole does not run here"

# u32 FILE OFFSET: a header field, in this machine's byte order (both tools write it).
u32() { od -An -t u4 -j "$2" -N 4 "$1" | tr -d ' '; }
# layout_of FILE OUT: the layout section's bytes.
layout_of() {
    [ "$(u32 "$1" 4)" -ge 32 ] || fail "$1: header of $(u32 "$1" 4) bytes has no layout fields"
    dd if="$1" of="$2" bs=4K iflag=skip_bytes,count_bytes skip=$(($(u32 "$1" 4) + $(u32 "$1" 24))) \
        count="$(u32 "$1" 28)" status=none
}

"$BTFORGE" -q convert "$program" --features default,layout -o "$work/our.btf"
"$btf_check" "$work/our.btf" || fail "libbpf master refuses btforge's layout output"
layout_of "$work/our.btf" "$work/our.layout"
layout_of "$work/up.btf" "$work/up.layout"
[ -s "$work/up.layout" ] || fail "upstream pahole wrote no layout section"
cmp "$work/our.layout" "$work/up.layout" || fail "layout section differs from upstream pahole's"

# Without the feature: the classic 24-byte header, as before.
"$BTFORGE" -q convert "$program" -o "$work/classic.btf"
[ "$(u32 "$work/classic.btf" 4)" = 24 ] || fail "without layout the header is not 24 bytes"

# The FUNC address extension, layout-described (kind 20, info_sz 8): libbpf master steps over it.
"$BTFORGE" -q convert "$program" -t btf-func-addr --features default,layout -o "$work/fa.btf"
"$btf_check" "$work/fa.btf" || fail "libbpf master refuses the layout-described FUNC extension"
"$BTFORGE" dump "$work/fa.btf" >"$work/fa.txt"
grep -q "^\[[0-9]*\] FUNC .* addr=0x" "$work/fa.txt" || fail "the FUNC addresses do not read back"
# The kind_flag form is what a layout-aware libbpf still cannot parse: the reason for the above.
"$BTFORGE" -q convert "$program" -t btf-func-addr -o "$work/fa-classic.btf"
if "$btf_check" "$work/fa-classic.btf" 2>/dev/null; then
    fail "libbpf master parses the kind_flag FUNC extension: its documentation is out of date"
fi

# A kind btforge does not know (21: 4 bytes once, 8 per element), appended to our output with
# layout entries for kinds 20 and 21. libbpf master reads it; so must btforge, stepping over it.
host_le=$([ "$(printf '\1\0\0\0' | od -An -t u4 | tr -d ' ')" = 1 ] && echo 1 || echo 0)
word() {
    local v=$1 bytes
    if [ "$host_le" = 1 ]; then
        bytes=$(printf '\\x%02x' $((v & 255)) $((v >> 8 & 255)) $((v >> 16 & 255)) $((v >> 24)))
    else
        bytes=$(printf '\\x%02x' $((v >> 24)) $((v >> 16 & 255)) $((v >> 8 & 255)) $((v & 255)))
    fi
    printf '%b' "$bytes"
}
src=$work/our.btf
types=$(u32 "$src" 12)
layout=$(u32 "$src" 28)
strs=$(u32 "$src" 20)
record=24
{
    head -c 8 "$src" # magic, version, flags, hdr_len
    for v in 0 $((types + record)) $((types + record + layout + 8)) "$strs" \
        $((types + record)) $((layout + 8)); do
        word "$v"
    done
    dd if="$src" bs=4K iflag=skip_bytes,count_bytes skip=32 count="$types" status=none
    for v in 0 $((21 << 24 | 1)) 1 0 0 0; do word "$v"; done # the kind-21 record, vlen 1
    cat "$work/our.layout"
    word 0                    # kind 20: not used
    word $((4 | 8 << 8))      # kind 21: info_sz 4, elem_sz 8
    dd if="$src" bs=4K iflag=skip_bytes,count_bytes skip=$((32 + types + layout)) count="$strs" \
        status=none
} >"$work/unknown.btf"
"$btf_check" "$work/unknown.btf" || fail "libbpf master refuses the hand-made file"
"$BTFORGE" dump "$work/unknown.btf" >"$work/unknown.txt" 2>"$work/unknown.err" ||
    fail "btforge does not read a kind its layout describes: $(cat "$work/unknown.err")"
grep -q "dropped 1 types of kinds btforge does not know (kind 21: 1)" "$work/unknown.err" ||
    fail "no warning for the dropped record: $(cat "$work/unknown.err")"
"$BTFORGE" dump "$work/our.btf" >"$work/our.txt"
cmp "$work/unknown.txt" "$work/our.txt" || fail "the types around the unknown record changed"
echo "layout: libbpf master parses it, $(stat -c %s "$work/up.layout") layout bytes equal upstream's"
