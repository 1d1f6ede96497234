#!/usr/bin/env bash
# bad-dwarf.sh [--loader NAME] PROGRAM: broken DWARF, made at test time from a DWARF test program and from
# PROGRAM.o (its units linked with -r, relocated in memory): no DWARF at all, .debug_info cut in
# the middle of a unit, a unit longer than its section, an unknown DW_FORM in an abbreviation,
# garbage sections, and btforge-mutate's corruptions of the whole ELF. Each must either fail
# with exit 1, exactly one line `btforge: error: FILE: ...` (naming the unit or DIE offset where
# the DWARF itself is broken) and no output file; or succeed with output libbpf parses and only
# warnings that name the file. Never a crash, never a hang. NAME is the DWARF loader (default
# dwarf, the libdw one; llvm-dwarf reads with LLVM).
source "$(dirname "$0")/lib.sh"
: "${MUTATE:?}" "${DWARF_PATCH:?}"
loader=dwarf
if [ "${1:-}" = --loader ]; then
    loader=$2
    shift 2
fi
program=$1
require_file "$program"
require_file "$program.o"

rejected=0 accepted=0
# btforge-mutate's ~670 whole-ELF corruptions of each input: all of them for the libdw loader; every
# third for the LLVM one (for trusted input, docs/readers.md; fuzzed by fuzz.sh): each of its runs
# loads LLVM's library, which made its two tests the suite's longest. Fewer under the sanitizers
# (lib.sh's mutations).
mutate_stride=1
[ "$loader" = dwarf ] || mutate_stride=3
# check CASE EXPECT: EXPECT is `located` (must fail, naming a unit or DIE), `fail` or `any`.
check() {
    local case=$1 expect=$2 out="$1.btf" rc
    set +e
    timeout 20 "$BTFORGE" convert "$case" -f "$loader" -o "$out" 2> "$work/stderr"
    rc=$?
    set -e
    case "$rc" in
    0)
        [ "$expect" = any ] || fail "$case: broken DWARF was accepted"
        "$BTF_ORACLE" parse "$out" > /dev/null ||
            fail "$case: accepted, but libbpf rejects the output"
        if grep -qv "^btforge: warning: $case: " "$work/stderr"; then
            cat "$work/stderr"
            fail "$case: accepted with stderr lines that are not warnings naming the file"
        fi
        accepted=$((accepted + 1))
        ;;
    1)
        [ ! -e "$out" ] || fail "$case: failed but left an output file"
        [ "$(wc -l < "$work/stderr")" = 1 ] ||
            { cat "$work/stderr"; fail "$case: not one error line"; }
        grep -q "^btforge: error: $case: " "$work/stderr" ||
            { cat "$work/stderr"; fail "$case: the error does not name the file"; }
        if [ "$expect" = located ] && ! grep -qE "(unit|DIE) 0x[0-9a-f]+" "$work/stderr"; then
            cat "$work/stderr"
            fail "$case: the error names no unit or DIE offset"
        fi
        rejected=$((rejected + 1))
        ;;
    *)
        cat "$work/stderr"
        fail "$case: exit status $rc (crash or hang)"
        ;;
    esac
}

# variant INPUT NAME: a fresh copy of INPUT to corrupt.
variant() {
    cp "$1" "$work/$2"
    echo "$work/$2"
}

for input in "$program" "$program.o"; do
    base=$(basename "$input")
    # The second unit's offset and length, to cut it in half.
    read -r offset length < <(readelf --debug-dump=info "$input" | awk '
        /Compilation Unit @ offset/ { sub(":", "", $NF); offset = $NF; n++ }
        /Length:/ && n == 2 { print offset, $2; exit }')
    [ -n "$length" ] || fail "$base: no second unit to cut"
    size=0x$(readelf -S -W "$input" | awk '$2 == ".debug_info" { print $6 }')

    v=$(variant "$input" "$base-no-dwarf")
    strip --strip-debug "$v"
    check "$v" fail

    # In the object, relocations that now point past the section fail first, before any unit.
    cut=located
    [[ "$input" != *.o ]] || cut=fail
    v=$(variant "$input" "$base-cut-unit")
    "$DWARF_PATCH" "$v" truncate .debug_info $((offset + length / 2))
    check "$v" $cut

    v=$(variant "$input" "$base-cut-last-byte")
    "$DWARF_PATCH" "$v" truncate .debug_info $((size - 1))
    check "$v" $cut

    # A DIE's name whose NUL is cut off: .debug_str shortened to end inside that string. The
    # libdw loader rejects it; LLVM reads such a name as absent (llvm-dwarf is for trusted
    # input, docs/readers.md), so there it only must not crash.
    read -r stroff name < <(readelf --debug-dump=info "$input" |
        sed -n 's/.*DW_AT_name *: (indirect string, offset: \(0x[0-9a-f]*\)): \(.*\)$/\1 \2/p' |
        head -n 1)
    [ -n "$name" ] || fail "$base: no name in .debug_str"
    v=$(variant "$input" "$base-unterminated-name")
    "$DWARF_PATCH" "$v" truncate .debug_str $((stroff + ${#name}))
    if [ "$loader" = dwarf ]; then check "$v" "$cut"; else check "$v" any; fi

    v=$(variant "$input" "$base-long-unit")
    "$DWARF_PATCH" "$v" unit-length
    check "$v" located

    # The unit DIE's abbreviation, then those of types inside a unit.
    for tag in 0x11 0x24 0x13 0x0d; do
        v=$(variant "$input" "$base-unknown-form-$tag")
        "$DWARF_PATCH" "$v" form $tag 0x7f
        check "$v" located
    done

    for seed in 1 2 3; do
        for keep in 0 12; do
            v=$(variant "$input" "$base-garbage-info-$keep-$seed")
            "$DWARF_PATCH" "$v" garbage .debug_info $keep $seed
            check "$v" any
        done
        v=$(variant "$input" "$base-garbage-abbrev-$seed")
        "$DWARF_PATCH" "$v" garbage .debug_abbrev 0 $seed
        check "$v" any
    done

    mutations "$input" "$work/$base-mutated" "$mutate_stride"
    for v in "$work/$base-mutated"/*; do
        case "$(basename "$v")" in
        trunc-*) check "$v" fail ;;
        *) check "$v" any ;;
        esac
    done
done
# Relocations that make a unit's offsets into other sections (DW_AT_addr_base, location and
# range lists, ...) ~0 and ~0 - 1, the keys LLVM's relocation map reserves: DWARF64 objects,
# where those offsets have 8 bytes, from gcc (DWARF 4) and clang (DWARF 5).
cat > "$work/offsets.c" << 'SOURCE'
int counter;
static int step(int x) { return x * 3 + counter; }
int run(int n) { int s = 0; for (int i = 0; i < n; i++) s += step(i) * counter; return s; }
SOURCE
for compiler in gcc:4 clang-19:5; do
    cc=${compiler%:*} version=${compiler#*:}
    command -v "$cc" > /dev/null || continue
    object=$work/offsets-$cc.o
    "$cc" -g -gdwarf-"$version" -gdwarf64 -O2 -c "$work/offsets.c" -o "$object" ||
        fail "$cc -gdwarf64 does not build"
    patched=0
    while read -r index; do
        for value in 0xffffffffffffffff 0xfffffffffffffffe; do
            v=$(variant "$object" "offsets-$cc-reloc-$index-$value.o")
            "$DWARF_PATCH" "$v" rela .rela.debug_info "$index" addend "$value"
            check "$v" any
            patched=$((patched + 1))
        done
    done < <(readelf -r -W "$object" | awk '
        /^Relocation section/ { inside = $3 == "\x27.rela.debug_info\x27"; n = 0; next }
        inside && /^[0-9a-f]+ / {
            if ($5 ~ /^\.debug_(abbrev|addr|line|loc|loclists|ranges|rnglists|str_offsets)$/)
                print n
            n++
        }')
    [ "$patched" -gt 0 ] || fail "$cc: no relocation into another DWARF section to patch"
    # A relocation outside its section or naming no symbol is refused by both loaders (the
    # libdw one through libdwfl, the LLVM one by its own check: LLVM would skip it). A type
    # wrong for DWARF (R_X86_64_PC32 here) libdwfl leaves unapplied and LLVM applies: a wrong
    # offset in a DWARF section is then refused, a wrong address read.
    info=$(readelf -r -W "$object" | awk '/^Relocation section .\.rela\.debug_info/ { getline; getline; print "0x" $2; exit }')
    v=$(variant "$object" "offsets-$cc-reloc-outside.o")
    "$DWARF_PATCH" "$v" rela .rela.debug_info 0 offset 0xffffff
    check "$v" fail
    v=$(variant "$object" "offsets-$cc-reloc-no-symbol.o")
    "$DWARF_PATCH" "$v" rela .rela.debug_info 0 info $(((0xfffff << 32) | (info & 0xffffffff)))
    check "$v" fail
    v=$(variant "$object" "offsets-$cc-reloc-pc32.o")
    "$DWARF_PATCH" "$v" rela .rela.debug_info 0 info $(((info & ~0xffffffff) | 2))
    check "$v" any
done
echo "$rejected broken inputs rejected cleanly, $accepted still readable and accepted"
