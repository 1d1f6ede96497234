#!/usr/bin/env bash
# hostile-limits.sh CASE [--loader NAME]: inputs built at test time to hit btforge's limits.
#   deep-chain   a 20,000-deep anonymous pointer chain converts (dedup is not quadratic), one PTR
#                per level as bpftool counts them
#   too-big      values BTF cannot hold (_BitInt(256), a struct of 5 GiB, a member past 2^32 bits,
#                bitfields past 2^24 bits, 2^33 array elements, an array of 8 GiB, 65,536 members,
#                enum values and parameters): each a warning naming the file, the DIE and the
#                type; libbpf parses the output and no such type is in it with a cut number
#   symtab       a corrupt .symtab (entry size, size, offset, string table link): an error naming
#                it, not every function silently dropped
#   sections     a section header table past the end of the file, or a section name table that is
#                none: an error saying so, for every loader (not "no .BTF section")
#   block-length a block attribute whose length runs past its unit (an abbreviation's form made
#                DW_FORM_block4): an error naming the DIE (LLVM's decoder would read past the
#                section)
#   compressed   a compressed .debug_info claiming a huge size, an unknown type or no size: an
#                error naming the section, never an abort or "no error"
source "$(dirname "$0")/lib.sh"
ELF_EDIT=$(dirname "$0")/../tools/elf-edit.py
case_name=$1
loader=dwarf
if [ "${2:-}" = --loader ]; then
    loader=$3
fi

# expect_error INPUT PATTERN [ARGS...]: conversion fails with exit 1, one line
# `btforge: error: ...` matching PATTERN (grep -E), and no output.
expect_error() {
    local input=$1 pattern=$2 rc
    shift 2
    set +e
    "$BTFORGE" convert "$input" -f "$loader" -o "$work/out.btf" "$@" 2> "$work/stderr"
    rc=$?
    set -e
    cat "$work/stderr"
    [ "$rc" = 1 ] || fail "$input: exit $rc, expected 1"
    [ "$(wc -l < "$work/stderr")" = 1 ] || fail "$input: not one line on stderr"
    grep -Eq "^btforge: error: .*$pattern" "$work/stderr" || fail "$input: error does not match '$pattern'"
    [ ! -e "$work/out.btf" ] || fail "$input: an output was left behind"
}

deep_chain() {
    python3 -c 'print("int " + "*" * 20000 + "p;")' > "$work/chain.c"
    gcc -g -c "$work/chain.c" -o "$work/chain.o"
    "$BTFORGE" convert "$work/chain.o" -f "$loader" -o "$work/chain.btf"
    local pointers
    pointers=$("$BPFTOOL" btf dump file "$work/chain.btf" | grep -c "^\[[0-9]*\] PTR ")
    [ "$pointers" = 20000 ] || fail "chain: $pointers PTR types, expected 20000"
}

# expect_warning PATTERN: a warning line of the last run names the file and matches PATTERN.
expect_warning() {
    grep -Eq "^btforge: warning: $input: [0-9]+ DIE\(s\) with tag 0x[0-9a-f]+ \(e.g. $1" \
        "$work/stderr" || fail "no warning matching '$1'"
}

too_big() {
    python3 - "$work" << 'PY'
import sys
work = sys.argv[1]
many = range(65536)
with open(work + "/limits.c", "w") as f:
    f.write("struct many {" + "".join(f"int m{i};" for i in many) + "} gm;\n")
    f.write("enum values {" + ",".join(f"V{i}" for i in many) + "} ge;\n")
    f.write("_BitInt(256) gb;\n")
    f.write("struct big { char x[5ul << 30]; } gbig;\n")
    f.write("struct far { char a[600ul << 20]; int b; } gfar;\n")
    f.write("struct bits { char pad[3u << 20]; int f : 3; } gbits;\n")
    f.write("char garr[1ul << 33];\n")
    f.write("int gbytes[1ul << 31];\n")
with open(work + "/params.c", "w") as f:
    f.write("void fp(" + ",".join(f"int p{i}" for i in many) + ") {}\n")
    f.write("typedef void (*fpt)(" + ",".join("int" for i in many) + "); fpt gfp;\n")
PY
    # clang-19 for _BitInt; gcc for the parameters (clang keeps 16 bits of a parameter count).
    clang-19 -g -c "$work/limits.c" -o "$work/limits.o" 2> /dev/null
    gcc -g -c "$work/params.c" -o "$work/params.o"
    for input in "$work/limits.o" "$work/params.o"; do
        "$BTFORGE" convert "$input" -f "$loader" -o "$work/out.btf" 2> "$work/stderr" ||
            { cat "$work/stderr"; fail "$input: not converted"; }
        cat "$work/stderr"
        "$BTF_ORACLE" parse "$work/out.btf" > /dev/null || fail "$input: libbpf rejects the output"
        "$BPFTOOL" btf dump file "$work/out.btf" > "$work/dump"
        if [ "$input" = "$work/limits.o" ]; then
            expect_warning "'_BitInt' at 0x[0-9a-f]+\): integer wider than BTF's 128 bits"
            expect_warning "'big' at 0x[0-9a-f]+\): struct or union of 4 GiB or more"
            expect_warning "'far' at 0x[0-9a-f]+\): struct or union with a member past BTF's 2\^32"
            expect_warning "'bits' at 0x[0-9a-f]+\): struct or union with bitfields and a member past 2\^24"
            expect_warning "'many' at 0x[0-9a-f]+\): struct or union of more than 65,535 members"
            expect_warning "'values' at 0x[0-9a-f]+\): enum of more than 65,535 values"
            expect_warning "at 0x[0-9a-f]+\): array of 2\^32 elements or 4 GiB or more"
            # What is in the output says less, never a cut number.
            ! grep -E "^\[[0-9]+\] (STRUCT '(big|far|bits|many)'|ENUM 'values')" "$work/dump" ||
                fail "a type past BTF's limits was written"
            ! grep -E "^\[[0-9]+\] INT '_BitInt" "$work/dump" || fail "_BitInt(256) was written"
            ! grep -E "nr_elems=(0|1073741824)$" "$work/dump" || fail "an array count was cut"
        else
            expect_warning "at 0x[0-9a-f]+\): prototype of more than 65,535 parameters"
            expect_warning "'fp' at 0x[0-9a-f]+\): function of more than 65,535 parameters"
        fi
    done
}

symtab() {
    gcc -g -O1 -x c - -o "$work/program" << 'C'
int f(int a) { return a + 1; }
int main(void) { return f(2); }
C
    local edit
    for edit in 'shdr[.symtab].sh_entsize=0' 'shdr[.symtab].sh_entsize=7' 'shdr[.symtab].sh_link=0' \
        'shdr[.symtab].sh_link=999' 'shdr[.symtab].sh_link=1' 'shdr[.symtab].sh_size=1001' \
        'shdr[.symtab].sh_offset=0xffffffff' 'shdr[.strtab].sh_offset=0xfffffff'; do
        cp "$work/program" "$work/broken"
        python3 "$ELF_EDIT" "$work/broken" "$edit"
        expect_error "$work/broken" "\.symtab \(section [0-9]+\): "
    done
}

sections() {
    gcc -g -c -x c - -o "$work/program.o" <<< 'int f(int a) { return a + 1; }'
    local edit l
    for edit in 'ehdr.e_shoff=0xffffff' 'ehdr.e_shnum=2000'; do
        cp "$work/program.o" "$work/broken.o"
        python3 "$ELF_EDIT" "$work/broken.o" "$edit"
        for l in btf "$loader"; do
            loader=$l expect_error "$work/broken.o" "section header table .* extends past the end"
        done
    done
    cp "$work/program.o" "$work/broken.o"
    python3 "$ELF_EDIT" "$work/broken.o" 'ehdr.e_shentsize=12'
    expect_error "$work/broken.o" "section header size 12, expected"
    for edit in 'ehdr.e_shstrndx=0' 'ehdr.e_shstrndx=1'; do
        cp "$work/program.o" "$work/broken.o"
        python3 "$ELF_EDIT" "$work/broken.o" "$edit"
        for l in btf "$loader"; do
            loader=$l expect_error "$work/broken.o" "the section name table \(index [0-9]+\) is not a string table"
        done
    done
    # An index past the count, given directly or through section 0 (extended numbering, where
    # e_shnum 0 and e_shstrndx SHN_XINDEX say that section 0 holds both numbers).
    local names
    names=$(python3 -c 'import sys; d=open(sys.argv[1],"rb").read(); print(int.from_bytes(d[62:64],"little"))' "$work/program.o")
    for edits in 'ehdr.e_shstrndx=999' \
        "shdr[0].sh_size=3 shdr[0].sh_link=$names ehdr.e_shnum=0 ehdr.e_shstrndx=0xffff"; do
        cp "$work/program.o" "$work/broken.o"
        # shellcheck disable=SC2086 # one edit per word
        python3 "$ELF_EDIT" "$work/broken.o" $edits
        for l in btf "$loader"; do
            loader=$l expect_error "$work/broken.o" "the section name table's index [0-9]+ is past the [0-9]+ sections"
        done
    done
    # .debug_line named .debug_str too: libdw would read the first such section, LLVM the last.
    local name
    name=$(readelf -SW "$work/program.o" | sed -n 's/^ *\[ *\([0-9]*\)\] \.debug_str .*/\1/p')
    name=$(python3 - "$work/program.o" "$name" << 'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
shoff, = struct.unpack_from("<Q", data, 40)  # gcc's x86-64 object: ELF64, little-endian
print(struct.unpack_from("<I", data, shoff + 64 * int(sys.argv[2]))[0])  # its sh_name
PY
    )
    cp "$work/program.o" "$work/broken.o"
    python3 "$ELF_EDIT" "$work/broken.o" "shdr[.debug_line].sh_name=$name"
    expect_error "$work/broken.o" "section \.debug_str appears 2 times"
}

compressed() {
    gcc -g -O1 -gz=zlib -x c - -o "$work/program" << 'C'
int f(int a) { return a + 1; }
int main(void) { return f(2); }
C
    local edit
    for edit in 'chdr[.debug_info].ch_size=0x7fffffffffff' 'chdr[.debug_info].ch_size=1000000000' \
        'chdr[.debug_info].ch_type=99' 'chdr[.debug_info].ch_size=0' 'shdr[.debug_info].sh_size=10'; do
        cp "$work/program" "$work/broken"
        python3 "$ELF_EDIT" "$work/broken" "$edit"
        expect_error "$work/broken" "\.debug_info"
        ! grep -q "no error" "$work/stderr" || fail "$edit: 'no error'"
    done
    # The same claims in .zdebug_ sections' headers (zlib-gnu: "ZLIB", 8 big-endian bytes), which
    # the llvm-dwarf reader inflates itself.
    gcc -g -O1 -gz=zlib-gnu -x c - -o "$work/gnu" <<< 'int main(void) { return 0; }'
    local offset claim
    offset=$(readelf -SW "$work/gnu" | sed 's/^ *\[ *[0-9]*\]//' |
        awk '$1 == ".zdebug_info" { print $4 }')
    [ -n "$offset" ] || fail "gcc -gz=zlib-gnu made no .zdebug_info"
    for claim in 0x7fffffffffff 1000000000; do
        cp "$work/gnu" "$work/broken"
        python3 - "$work/broken" $((16#$offset + 4)) $claim << 'PY'
import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(int(sys.argv[2]))
    f.write(int(sys.argv[3], 0).to_bytes(8, "big"))
PY
        expect_error "$work/broken" "section \.zdebug_info: its compression header claims"
    done
}

block_length() {
    : "${DWARF_PATCH:?}"
    gcc -g -gdwarf-4 -O0 -c -x c - -o "$work/program.o" <<< 'int f(int a) { return a + 1; }'
    # The base type's first attribute, DW_AT_byte_size, read as a 4-byte block length takes the
    # DIE's next bytes (encoding, "in"): far past the unit.
    "$DWARF_PATCH" "$work/program.o" form 0x24 0x04
    expect_error "$work/program.o" "DIE (at )?0x[0-9a-f]+:? .*(runs?|ends) past (the end of )?(the|its) unit"
}

case "$case_name" in
deep-chain) deep_chain ;;
block-length) block_length ;;
too-big) too_big ;;
symtab) symtab ;;
sections) sections ;;
compressed) compressed ;;
*) fail "unknown case $case_name" ;;
esac
echo "PASS: $case_name ($loader)"
