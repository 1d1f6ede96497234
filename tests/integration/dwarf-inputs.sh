#!/usr/bin/env bash
# dwarf-inputs.sh CASE SRCDIR: the DWARF that users' toolchains produce, built at test time from
# the test program in SRCDIR (three C units sharing layouts.h) and its C++ and Rust companions.
# Every output must be parsed by libbpf and accepted by the kernel's verifier (where loading BTF
# is permitted), and have the expected types:
#   compressed  -gz=zlib / -gz=zstd (those the toolchain has), and objcopy's zlib-gnu (.zdebug_
#               sections) and zstd: types equal the plain build's, the same bytes from both
#               DWARF loaders (where libdw cannot decompress, see libdw-limits)
#   type-units  -fdebug-types-section, DWARF 4 and 5, gcc and clang on C, g++ and clang++ on C++:
#               every named type complete and equal to the same build's without type units; and
#               gcc's relocatable objects, with a COMDAT section per type unit (-c, and -r as a
#               kernel module is linked): the same bytes from both DWARF loaders; a type unit
#               whose type_offset points into the next unit: refused by both
#   libdw-limits  what libdw cannot read but LLVM can (zstd before elfutils 0.189, machines
#               without an elfutils backend, relocation types it does not know): the dwarf
#               loader refuses it in one line that ends "(try -f llvm-dwarf)", llvm-dwarf reads it
#   dwz         dwz partial units, in the file itself and (dwz -m) in a .gnu_debugaltlink file:
#               types equal the build before dwz
#   cxx         references and classes from g++ and clang++: one counted warning about
#               references, classes as STRUCTs, references as pointers
#   rust        a Rust unit linked with C: excluded by default, included with --lang-exclude ''
#   shared-pie  a shared library and a PIE: types equal the non-PIE executable's
#   split-dwarf -gsplit-dwarf, DWARF 4 and 5, gcc and clang: both loaders refuse the skeleton
#               units in one line naming the .dwo file, and write nothing (no silent empty BTF)
source "$(dirname "$0")/lib.sh"
case_name=$1
src=$2
require_file "$src/layouts.c"
c_sources=("$src/layouts.c" "$src/functions_a.c" "$src/functions_b.c")

# build OUT CC FLAGS...: the test program.
build() {
    local out=$1 cc=$2
    shift 2
    "$cc" -g -O0 -w "$@" -o "$out" "${c_sources[@]}" || fail "$cc $* does not build the program"
}

# convert INPUT [OPTIONS...]: INPUT.btf, with stderr in INPUT.err; libbpf and the kernel check it.
convert() {
    local input=$1
    shift
    "$BTFORGE" convert "$input" -o "$input.btf" "$@" 2> "$input.err" ||
        { cat "$input.err"; fail "$(basename "$input"): conversion failed"; }
    libbpf_and_kernel "$input.btf" "$(basename "$input")"
}

# same_types A B: the BTF of A and B (converted) are equal by meaning, a FWD never standing in
# for the STRUCT it declares.
same_types() {
    "$BTFORGE" --quiet diff --strict-fwd "$1.btf" "$2.btf" > "$work/diff.txt" ||
        { cat "$work/diff.txt"; fail "$(basename "$2"): types differ from $(basename "$1")'s"; }
}

# has_section FILE NAME [FLAG]: FILE has section NAME (with section flag FLAG, e.g. C).
has_section() {
    readelf -S -W "$1" | awk -v name="$2" -v flag="${3:-}" '
        { sub(/^ *\[ *[0-9]+\] /, "") }
        $1 == name && (flag == "" || index($7, flag)) { found = 1 }
        END { exit !found }'
}

# in_dwarf FILE PATTERN: readelf's dump of FILE's DWARF has a line matching PATTERN. (Not
# through a pipe: grep -q would leave readelf writing into a closed one, failing under pipefail.)
in_dwarf() {
    readelf --debug-dump=info "$1" > "$work/dwarf.txt"
    grep -qE "$2" "$work/dwarf.txt"
}

dump() { "$BPFTOOL" btf dump file "$1.btf"; }

"$BTFORGE" plugins > "$work/plugins.txt" 2>&1 || true
llvm_dwarf=false
grep -q "^llvm-dwarf *loader" "$work/plugins.txt" && llvm_dwarf=true

# both_loaders INPUT: INPUT.btf from the dwarf loader (convert); the llvm-dwarf loader, where it
# is built, must write the same bytes.
both_loaders() {
    local input=$1
    convert "$input"
    $llvm_dwarf || return 0
    "$BTFORGE" convert -f llvm-dwarf "$input" -o "$input.llvm.btf" 2> "$input.llvm.err" ||
        { cat "$input.llvm.err"; fail "$(basename "$input"): llvm-dwarf cannot convert it"; }
    cmp -s "$input.btf" "$input.llvm.btf" ||
        fail "$(basename "$input"): the dwarf and llvm-dwarf loaders' BTF differ"
}

# refused_by_libdw INPUT: the dwarf loader refuses INPUT with exit 1, one line naming it and
# ending with the suggestion to read it with llvm-dwarf, and writes nothing.
refused_by_libdw() {
    local input=$1 rc
    set +e
    "$BTFORGE" convert -f dwarf "$input" -o "$input.btf" 2> "$input.err"
    rc=$?
    set -e
    [ "$rc" = 1 ] && [ "$(wc -l < "$input.err")" = 1 ] && [ ! -e "$input.btf" ] &&
        grep -q "^btforge: error: $input: .*(try -f llvm-dwarf)$" "$input.err" || {
        cat "$input.err"
        fail "$(basename "$input"): exit $rc, not one line suggesting llvm-dwarf"
    }
    echo "$(basename "$input"): $(cat "$input.err")"
}

# section_count FILE NAME: how many sections FILE has named NAME.
section_count() {
    readelf -S -W "$1" | awk -v name="$2" '{ sub(/^ *\[ *[0-9]+\] /, "") } $1 == name' | wc -l
}

# with_type_units NAME COMPILER ARGS...: NAME built with and without -fdebug-types-section; where
# that made type units, both convert to the same types and NAME joins $variants.
with_type_units() {
    local name=$1
    shift
    "$@" -o "$work/$name" && "$@" -fdebug-types-section -o "$work/$name-tu" ||
        fail "cannot build $name"
    # DWARF 4 puts type units in .debug_types, DWARF 5 in .debug_info as DW_UT_type.
    if ! has_section "$work/$name-tu" .debug_types &&
        ! in_dwarf "$work/$name-tu" "Unit Type: *DW_UT_type"; then
        echo "$name: -fdebug-types-section made no type units: not tested"
        return
    fi
    both_loaders "$work/$name"
    both_loaders "$work/$name-tu"
    same_types "$work/$name" "$work/$name-tu"
    variants+=("$name")
}

summary() {
    local refused=""
    [ "$not_permitted" = 0 ] || refused=", $not_permitted not permitted here"
    echo "$case_name: $*; kernel verifier: $loaded loaded$refused"
}

case "$case_name" in
compressed)
    # Each kind from the first compiler that makes it, and from objcopy: zlib-gnu (the .zdebug_
    # sections of older toolchains, "ZLIB", a big-endian size, a zlib stream) and zstd. Where
    # libelf cannot decompress zstd (before elfutils 0.189), the dwarf loader refuses it
    # (libdw-limits checks how) and llvm-dwarf must read it.
    done_kinds=()
    # compressed_like PLAIN OUT KIND: OUT, which is PLAIN compressed with KIND, has PLAIN's types.
    compressed_like() {
        local plain=$1 out=$2 kind=$3
        [ -e "$plain.btf" ] || both_loaders "$plain"
        if [ "$kind" = zstd ] &&
            ! "$BTFORGE" --quiet convert -f dwarf "$out" -o "$work/probe.btf" 2> /dev/null; then
            refused_by_libdw "$out"
            $llvm_dwarf || return 0
            convert "$out" -f llvm-dwarf
        else
            both_loaders "$out"
        fi
        same_types "$plain" "$out"
    }
    for kind in zlib zstd; do
        cc=
        for candidate in gcc clang-19; do
            if "$candidate" -g -gz=$kind -c "$src/layouts.c" -o "$work/probe.o" 2> /dev/null &&
                has_section "$work/probe.o" .debug_info C; then
                cc=$candidate
                break
            fi
        done
        [ -n "$cc" ] || { echo "no compiler here compresses debug sections with $kind"; continue; }
        for suffix in "" .o; do
            plain=$work/$cc-plain$suffix out=$work/$cc-gz-$kind$suffix
            [ -e "$plain" ] || build "$plain" $cc ${suffix:+-r}
            build "$out" $cc -gz=$kind ${suffix:+-r}
            has_section "$out" .debug_info C || fail "$out: .debug_info is not compressed"
            compressed_like "$plain" "$out" $kind
        done
        done_kinds+=("$kind ($cc)")
    done
    for kind in zlib-gnu zstd; do
        for suffix in "" .o; do
            plain=$work/gcc-plain$suffix out=$work/objcopy-$kind$suffix
            [ -e "$plain" ] || build "$plain" gcc ${suffix:+-r}
            made=
            for tool in objcopy llvm-objcopy-19; do
                "$tool" --compress-debug-sections=$kind "$plain" "$out" 2> /dev/null &&
                    { made=$tool; break; }
            done
            [ -n "$made" ] || break
            if [ $kind = zlib-gnu ]; then
                has_section "$out" .zdebug_info || fail "$out: no .zdebug_info"
                ! has_section "$out" .debug_info || fail "$out: .debug_info is not compressed"
            else
                has_section "$out" .debug_info C || fail "$out: .debug_info is not compressed"
            fi
            compressed_like "$plain" "$out" ${kind%-gnu}
        done
        [ -n "$made" ] || { echo "no objcopy here compresses debug sections with $kind"; continue; }
        done_kinds+=("$kind ($made)")
    done
    [ ${#done_kinds[@]} -gt 0 ] || skip "the toolchain compresses no debug sections"
    summary "compressed with ${done_kinds[*]}, executable and object: read (both loaders" \
        "alike), or refused by libdw in one line"
    ;;
libdw-limits)
    # What libdw cannot read and LLVM can: the dwarf loader refuses it in one line that suggests
    # llvm-dwarf, which reads it. Where this libdw can read it after all, both must agree.
    cat > "$work/unit.c" << 'C'
struct point { int x, y; char name[24]; };
struct point origin;
int norm(struct point *p) { return p->x * p->x + p->y * p->y + origin.name[0]; }
C
    checked=()
    # limited FILE: in $work; refused by libdw and read by llvm-dwarf, or read alike by both.
    limited() {
        local input=$work/$1
        if "$BTFORGE" --quiet convert -f dwarf "$input" -o "$work/probe.btf" 2> /dev/null; then
            $llvm_dwarf || return 0
            "$BTFORGE" --quiet convert -f llvm-dwarf "$input" -o "$input.llvm.btf" ||
                fail "$1: llvm-dwarf cannot convert it"
            cmp -s "$work/probe.btf" "$input.llvm.btf" || fail "$1: the loaders' BTF differ"
            checked+=("$1 (read by both)")
            return
        fi
        refused_by_libdw "$input"
        if $llvm_dwarf; then
            "$BTFORGE" --quiet convert -f llvm-dwarf "$input" -o "$input.llvm.btf" ||
                fail "$1: llvm-dwarf cannot convert it"
            "$BTF_ORACLE" parse "$input.llvm.btf" > /dev/null || fail "$1: libbpf rejects it"
        fi
        checked+=("$1")
    }
    gcc -g -O0 -c "$work/unit.c" -o "$work/unit.o"
    # zstd: libelf decompresses it from elfutils 0.189 on.
    for tool in objcopy llvm-objcopy-19; do
        if "$tool" --compress-debug-sections=zstd "$work/unit.o" "$work/zstd.o" 2> /dev/null; then
            limited zstd.o
            break
        fi
    done
    # Machines of relocatable objects: MIPS and Hexagon have no elfutils backend in 0.188, so
    # libdwfl relocates nothing (MIPS's plain types the loader applies itself: read by both);
    # AVR has none either, and libdwfl, not knowing its relocation types, left them unapplied
    # without a word (every name read as the string at offset 0).
    for target in mipsel-linux-gnu hexagon-unknown-linux-musl avr; do
        if ! clang-19 --target=$target -g -O0 -w -c "$work/unit.c" -o "$work/unit-$target.o" \
            2> /dev/null; then
            echo "clang-19 cannot build for $target: not tested"
            continue
        fi
        limited unit-$target.o
    done
    # A machine nobody knows (LLVM cannot relocate it either; the suggestion stays).
    cp "$work/unit.o" "$work/machine-0x7777.o"
    python3 - "$work/machine-0x7777.o" << 'PY'
import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(18)  # e_machine, in the file's byte order (x86-64: little-endian)
    f.write((0x7777).to_bytes(2, "little"))
PY
    refused_by_libdw "$work/machine-0x7777.o"
    summary "refused by libdw in one line suggesting llvm-dwarf: ${checked[*]} machine-0x7777.o"
    ;;
type-units)
    variants=()
    for version in 4 5; do
        for cc in gcc clang-19; do
            with_type_units $cc-dwarf$version $cc -g -O0 -w -gdwarf-$version "${c_sources[@]}"
        done
        # clang makes type units only for types with C++ linkage.
        for cxx in g++ clang++-19; do
            with_type_units $cxx-dwarf$version $cxx -g -O1 -w -gdwarf-$version "$src/references.cpp"
        done
    done
    # gcc's relocatable objects put each type unit in a COMDAT group of its own: many sections
    # named .debug_types (DWARF 5: .debug_info), each starting at offset 0; a linker joins them.
    # A per-CPU variable and a char[24] member have their types in type units only.
    cat > "$work/percpu.c" << 'C'
#define PERCPU __attribute__((section(".data..percpu")))
struct name_tag { char name[24]; int id; };
struct holder { struct name_tag tag; long value; struct holder *next; };
struct cpu_stats { unsigned long events; unsigned int cpu; };
struct cpu_stats cpu_stats PERCPU;
struct holder holder;
int tag_id(struct name_tag *t) { return t->id + holder.tag.id + (int)cpu_stats.events; }
C
    objects=("$work/percpu.c" "${c_sources[@]}")
    for version in 4 5; do
        section=.debug_types
        [ $version = 4 ] || section=.debug_info
        for source in "${objects[@]}"; do
            name=gcc-dwarf$version-$(basename "$source" .c).o
            with_type_units "$name" gcc -g -O0 -w -gdwarf-$version -c "$source"
        done
        [ "$(section_count "$work/gcc-dwarf$version-percpu.o-tu" $section)" -gt 1 ] ||
            fail "gcc-dwarf$version-percpu.o-tu: one $section section, not one per type unit"
        for cxx in g++ clang++-19; do
            with_type_units $cxx-dwarf$version.o $cxx -g -O1 -w -gdwarf-$version -c \
                "$src/references.cpp"
        done
        # Linked with -r, as kernel modules are: ld keeps one COMDAT group of each signature,
        # and each group's section, whose relocations must be applied.
        with_type_units gcc-dwarf$version-r.o gcc -g -O0 -w -gdwarf-$version -r "${objects[@]}"
        [ "$(section_count "$work/gcc-dwarf$version-r.o-tu" $section)" -gt 1 ] ||
            fail "gcc-dwarf$version-r.o-tu: one $section section"
        dump "$work/gcc-dwarf$version-percpu.o-tu" > "$work/percpu.txt"
        grep -q "^\[[0-9]*\] VAR 'cpu_stats' " "$work/percpu.txt" ||
            fail "gcc-dwarf$version-percpu.o-tu: the per-CPU variable is missing"
        # A type unit whose type_offset points past its end, into the next unit's DIEs: a
        # signature would resolve to a type of the wrong unit. Both loaders refuse the file
        # (DWARF 4's .debug_types, DWARF 5's DW_UT_type in .debug_info).
        bad=$work/bad-type-offset.o
        cp "$work/gcc-dwarf$version-percpu.o-tu" "$bad"
        "${DWARF_PATCH:?}" "$bad" type-offset $section
        loaders=(dwarf)
        ! $llvm_dwarf || loaders+=(llvm-dwarf)
        for loader in "${loaders[@]}"; do
            rm -f "$work/bad.btf"
            if "$BTFORGE" -q convert -f $loader "$bad" -o "$work/bad.btf" 2> "$work/bad.err"; then
                fail "-f $loader: a type_offset past its unit is accepted"
            fi
            grep -q "type_offset" "$work/bad.err" ||
                fail "-f $loader: no word of the type_offset: $(cat "$work/bad.err")"
            [ ! -e "$work/bad.btf" ] || fail "-f $loader: output left behind"
        done
    done
    [ ${#variants[@]} -gt 0 ] || skip "no compiler here makes type units"
    summary "type units of ${variants[*]}: types complete and equal to the builds without"
    ;;
dwz)
    command -v dwz > /dev/null || skip "dwz is not installed (scripts/install-deps.sh installs it)"
    for version in 4 5; do
        name=dwarf$version
        build "$work/$name" gcc -gdwarf-$version
        build "$work/$name-O1" gcc -gdwarf-$version -O1
        convert "$work/$name"
        convert "$work/$name-O1"
        # dwz moves what several units share into partial units they import.
        cp "$work/$name" "$work/$name-dwz"
        dwz "$work/$name-dwz" || fail "dwz failed on $name"
        in_dwarf "$work/$name-dwz" DW_TAG_partial_unit ||
            fail "dwz made no partial unit in $name"
        convert "$work/$name-dwz"
        same_types "$work/$name" "$work/$name-dwz"
        # dwz -m: what two files share goes to a third that both name in .gnu_debugaltlink.
        cp "$work/$name" "$work/$name-m"
        cp "$work/$name-O1" "$work/$name-O1-m"
        dwz -m "$work/$name-common.debug" "$work/$name-m" "$work/$name-O1-m" ||
            fail "dwz -m failed on $name"
        has_section "$work/$name-m" .gnu_debugaltlink || fail "dwz -m linked no alt file to $name"
        convert "$work/$name-m"
        convert "$work/$name-O1-m"
        same_types "$work/$name" "$work/$name-m"
        same_types "$work/$name-O1" "$work/$name-O1-m"
        # llvm-dwarf reads no alt file: given one, it says so (usage error), never ignores it.
        if [ "$llvm_dwarf" = true ]; then
            set +e
            "$BTFORGE" --quiet convert -f llvm-dwarf "$work/$name-m" \
                --dwarf-alt "$work/$name-common.debug" -o "$work/$name-m.llvm.btf" 2> "$work/alt.err"
            rc=$?
            set -e
            [ "$rc" = 2 ] && grep -q "llvm-dwarf loader reads no alt file" "$work/alt.err" ||
                { cat "$work/alt.err"; fail "llvm-dwarf with --dwarf-alt: exit $rc, not refused"; }
        fi
        # Without the alt file, types would silently be void: one error line instead.
        rm "$work/$name-common.debug"
        lost=$work/$name-m
        if "$BTFORGE" --quiet convert "$lost" -o "$lost.btf" 2> "$lost.err" ||
            [ "$(wc -l < "$lost.err")" != 1 ] ||
            ! grep -q "^btforge: error: $lost: .*debugaltlink.*$name-common.debug" "$lost.err"
        then
            cat "$lost.err"
            fail "$name-m without its alt file: not one error line naming the missing file"
        fi
    done
    summary "dwz partial units, in the file and in a .gnu_debugaltlink file (which must be" \
        "there): types equal"
    ;;
cxx)
    for compiler in g++ clang++-19; do
        out=$work/references-$compiler
        "$compiler" -g -O1 -w -o "$out" "$src/references.cpp" || fail "$compiler cannot build it"
        convert "$out"
        count=$(grep -c "C++ reference type(s) encoded as pointers" "$out.err" || true)
        [ "$count" = 1 ] || { cat "$out.err"; fail "$compiler: $count reference warnings"; }
        warning="btforge: warning: .*/references-[^:]*: [1-9][0-9]* C\+\+ reference type\(s\)"
        grep -qxE "$warning encoded as pointers" "$out.err" ||
            { cat "$out.err"; fail "$compiler: the reference warning lacks a count or the file"; }
        dump "$out" > "$out.txt"
        for class in Shape Circle plain_pair; do
            grep -qE "^\[[0-9]+\] STRUCT '$class' " "$out.txt" ||
                fail "$compiler: $class is not a STRUCT"
        done
        grep -qE "^\[[0-9]+\] STRUCT 'Circle' size=40 vlen=2$" "$out.txt" ||
            fail "$compiler: Circle is not { radius; center[2]; } of 40 bytes"
        # plain_pair's members are references: both must be pointers.
        for member in first second; do
            id=$(awk -v m="'$member'" '
                /^\[[0-9]+\] STRUCT .plain_pair./ { f = 1; next }
                /^\[/ { f = 0 }
                f && $1 == m { sub("type_id=", "", $2); print $2 }' "$out.txt")
            grep -qE "^\[$id\] PTR " "$out.txt" || fail "$compiler: plain_pair.$member is not a PTR"
        done
    done
    summary "g++ and clang++: one counted reference warning, classes as STRUCTs"
    ;;
rust)
    rustc=$(command -v rustc || echo "$HOME/.cargo/bin/rustc")
    [ -x "$rustc" ] || skip "rustc is not installed"
    "$rustc" --crate-type=lib --emit=obj -g -C opt-level=1 -C panic=abort \
        -o "$work/shapes.o" "$src/shapes.rs" || fail "rustc cannot build the Rust unit"
    gcc -g -O0 -o "$work/mixed" "$src/rust_main.c" "$work/shapes.o" ||
        fail "cannot link C with Rust"
    in_dwarf "$work/mixed" "DW_AT_language.*Rust" ||
        fail "the program has no Rust unit"
    convert "$work/mixed"
    dump "$work/mixed" > "$work/default.txt"
    grep -q "STRUCT 'c_side'" "$work/default.txt" || fail "the C unit's types are missing"
    ! grep -q "STRUCT 'RustTriangle'" "$work/default.txt" ||
        fail "the Rust unit is not excluded by default"
    cp "$work/mixed" "$work/mixed-all"
    convert "$work/mixed-all" --lang-exclude ''
    dump "$work/mixed-all" > "$work/all.txt"
    grep -qE "STRUCT 'RustTriangle' size=24 vlen=2" "$work/all.txt" ||
        fail "--lang-exclude '' does not include the Rust unit's RustTriangle"
    grep -q "STRUCT 'c_side'" "$work/all.txt" || fail "the C unit's types are missing"
    summary "$("$rustc" --version): excluded by default, included with --lang-exclude ''"
    ;;
shared-pie)
    build "$work/no-pie" gcc -fno-pie -no-pie
    build "$work/pie" gcc -fPIE -pie
    build "$work/lib.so" gcc -fPIC -shared
    for out in no-pie pie lib.so; do
        convert "$work/$out"
    done
    same_types "$work/no-pie" "$work/pie"
    same_types "$work/no-pie" "$work/lib.so"
    summary "shared library and PIE: types equal the non-PIE executable's"
    ;;
split-dwarf)
    # Built in $work: the .dwo files are written beside the output, named after it.
    sources=()
    for f in "${c_sources[@]}"; do sources+=("$(realpath "$f")"); done
    loaders=(dwarf)
    ! $llvm_dwarf || loaders+=(llvm-dwarf)
    for cc in gcc clang-19; do
        for version in 4 5; do
            name=$cc-dwarf$version
            (cd "$work" && "$cc" -g -gdwarf-$version -gsplit-dwarf -O0 -w -o "$name" \
                "${sources[@]}") || fail "$cc -gsplit-dwarf does not build the program"
            for loader in "${loaders[@]}"; do
                out=$work/$name.$loader.btf
                set +e
                "$BTFORGE" convert -f "$loader" "$work/$name" -o "$out" 2> "$work/err"
                rc=$?
                set -e
                [ "$rc" = 1 ] && [ "$(wc -l < "$work/err")" = 1 ] && [ ! -e "$out" ] &&
                    grep -q "^btforge: error: $work/$name: unit 0x0: a skeleton unit: its DWARF is in '$name-layouts.dwo'" "$work/err" || {
                    cat "$work/err"
                    fail "$name, $loader: exit $rc, not one line naming $name-layouts.dwo"
                }
            done
        done
    done
    echo "$(cat "$work/err")"
    summary "skeleton units refused by ${#loaders[@]} loaders, gcc and clang, DWARF 4 and 5"
    ;;
*)
    fail "unknown case $case_name"
    ;;
esac
