#!/usr/bin/env bash
# lto.sh PAHOLE_MASTER SRCDIR: programs built with link-time optimisation, from the DWARF test
# program in SRCDIR (three C units sharing layouts.h). clang's full LTO describes each type once,
# in one compile unit, and the others refer to it with DW_FORM_ref_addr; btforge then maps every
# unit together, as pahole merges such units. For clang -flto and -flto=thin, DWARF 4 and 5,
# -O1 and -O2, an executable and a relocatable object (-r, as a kernel module is linked), and
# gcc -flto: no warning, libbpf parses the output and the kernel accepts it, both DWARF loaders
# write the same bytes, and the BTF equals upstream pahole master's by meaning (FUNCs left out for
# the relocatable objects: where LTO renamed one of two static functions of one name,
# same_helper.39, pahole keeps a FUNC same_helper for either, at the same offset of two sections;
# in the executables it leaves the name out as ambiguous, as btforge does). The test fails if no
# full-LTO build refers across units (it would then test nothing). gcc -flto-partition=max: the
# stubs each partition has for functions defined in another are not prototypes (below).
source "$(dirname "$0")/lib.sh"
master=$1 src=$2
require_file "$src/layouts.c"
[ -x "$master/pahole" ] || skip "no upstream pahole in $master"
command -v clang-19 > /dev/null || skip "clang-19 is not installed"
command -v ld.lld-19 > /dev/null || skip "lld-19 is not installed"
runnable_copy "$master" "$work/master"
sources=("$src/layouts.c" "$src/functions_a.c" "$src/functions_b.c")

"$BTFORGE" plugins > "$work/plugins.txt" 2>&1 || true
loaders=(dwarf)
grep -q "^llvm-dwarf *loader" "$work/plugins.txt" && loaders+=(llvm-dwarf)

builds=0 crossing=0
# check NAME [DIFF OPTIONS...]: $work/NAME converted by each loader and by pahole master,
# compared.
check() {
    local name=$1 input=$work/$1 loader
    shift
    if grep -q "DW_FORM_ref_addr" <(readelf --debug-dump=abbrev "$input"); then
        crossing=$((crossing + 1))
    fi
    for loader in "${loaders[@]}"; do
        "$BTFORGE" convert -f "$loader" "$input" -o "$input.$loader.btf" 2> "$input.err" ||
            { cat "$input.err"; fail "$name: $loader cannot convert it"; }
        [ ! -s "$input.err" ] || { cat "$input.err"; fail "$name: $loader warns"; }
    done
    [ ${#loaders[@]} = 1 ] || cmp -s "$input.dwarf.btf" "$input.llvm-dwarf.btf" ||
        fail "$name: the dwarf and llvm-dwarf loaders' BTF differ"
    libbpf_and_kernel "$input.dwarf.btf" "$name"
    "$work/master/pahole" -J --btf_features=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs \
        --lang_exclude=rust --btf_encode_detached="$input.pahole.btf" "$input" > /dev/null 2>&1 ||
        fail "$name: upstream pahole failed"
    if ! "$BTFORGE" diff -f btf "$input.pahole.btf" "$input.dwarf.btf" --max 20 "$@" > "$work/diff.txt"
    then
        cat "$work/diff.txt"
        fail "$name: btforge's BTF differs from pahole master's (A: pahole)"
    fi
    builds=$((builds + 1))
}

for version in 4 5; do
    for level in 1 2; do
        for lto in full thin; do
            flags=(-g "-gdwarf-$version" "-O$level" -w "-flto=$lto" -fuse-ld=lld-19)
            name=clang-$lto-dwarf$version-O$level
            clang-19 "${flags[@]}" -o "$work/$name" "${sources[@]}" ||
                fail "clang-19 ${flags[*]} does not build the program"
            check "$name"
            clang-19 "${flags[@]}" -nostdlib -r -o "$work/$name.o" "${sources[@]}" ||
                fail "clang-19 ${flags[*]} -r does not link the object"
            check "$name.o" --kinds INT,STRUCT,UNION,ENUM,FWD,TYPEDEF,VAR,DATASEC,FLOAT,DECL_TAG,ENUM64
        done
    done
    gcc -g -gdwarf-$version -O2 -w -flto -o "$work/gcc-lto-dwarf$version" "${sources[@]}" ||
        fail "gcc -flto does not build the program"
    check "gcc-lto-dwarf$version"
done
[ "$crossing" -gt 0 ] || fail "no build refers from one unit into another: nothing was tested"

# gcc's LTO in several partitions: each partition's unit has a stub DW_TAG_subprogram (an
# abstract origin, no code, no parameters) for the functions it calls in another. A stub is not
# a prototype: the functions are kept, as the same library built without LTO has them (pahole
# master, which takes the stub for a definition of no parameters, leaves them out of the LTO one).
cat > "$work/stub-adapt.c" << 'EOF'
struct conn { int fd; long bytes; };
struct obj { int kind; void *data; };
__attribute__((noinline)) int adapt(struct obj *o, struct conn *c, int proto, void *alt)
{
    return o ? o->kind + c->fd + proto + (alt != 0) : -1;
}
static inline int adapt_default(struct obj *o, struct conn *c) { return adapt(o, c, 2, 0); }
int run_a(struct obj *o, struct conn *c) { return adapt_default(o, c) * 3; }
EOF
cat > "$work/stub-run.c" << 'EOF'
struct conn { int fd; long bytes; };
struct obj { int kind; void *data; };
int adapt(struct obj *o, struct conn *c, int proto, void *alt);
int run_b(struct obj *o, struct conn *c) { return adapt(o, c, 1, o) + 7; }
EOF
for version in 4 5; do
    name=gcc-lto-partitions-dwarf$version
    flags=(-g "-gdwarf-$version" -O2 -shared -fPIC "$work/stub-adapt.c" "$work/stub-run.c")
    gcc "${flags[@]}" -o "$work/$name.plain" || fail "gcc does not build the stub library"
    gcc "${flags[@]}" -flto -flto-partition=max -o "$work/$name" 2> /dev/null ||
        fail "gcc -flto-partition=max does not build the stub library"
    "$work/master/pahole" -J --btf_encode_detached="$work/$name.master.btf" --verbose "$work/$name" \
        > "$work/$name.master.txt" 2>&1 || true
    grep -q "^adapt : .*0 params != 4 params" "$work/$name.master.txt" ||
        fail "$name: no stub of adapt (pahole master does not see one): nothing was tested"
    for loader in "${loaders[@]}"; do
        "$BTFORGE" convert -f "$loader" "$work/$name" -o "$work/$name.$loader.btf" ||
            fail "$name: $loader cannot convert it"
    done
    [ ${#loaders[@]} = 1 ] || cmp -s "$work/$name.dwarf.btf" "$work/$name.llvm-dwarf.btf" ||
        fail "$name: the dwarf and llvm-dwarf loaders' BTF differ"
    libbpf_and_kernel "$work/$name.dwarf.btf" "$name"
    "$work/master/pahole" -J --btf_features=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func \
        --btf_encode_detached="$work/$name.plain.btf" "$work/$name.plain" > /dev/null 2>&1 ||
        fail "$name: upstream pahole failed on the library built without LTO"
    if ! "$BTFORGE" diff -f btf "$work/$name.plain.btf" "$work/$name.dwarf.btf" --max 20 \
        > "$work/diff.txt"; then
        cat "$work/diff.txt"
        fail "$name: btforge's BTF differs from pahole master's of the build without LTO (A)"
    fi
    grep -q "FUNC  *3 " "$work/diff.txt" || fail "$name: not the three functions"
    builds=$((builds + 1))
done
refused=""
[ "$not_permitted" = 0 ] || refused=", $not_permitted not permitted here"
echo "lto: $builds builds ($crossing with references across units) equal to pahole master's (of the stub library without LTO)," \
    "the same from both loaders; kernel verifier: $loaded loaded$refused"
