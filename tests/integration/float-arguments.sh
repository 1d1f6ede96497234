#!/usr/bin/env bash
# float-arguments.sh TARGET PAHOLE_MASTER: functions taking floating-point arguments, built at
# test time by gcc and clang -O2 for TARGET (x86_64, aarch64 or s390x). BPF's model of a function
# reads argument N from the N-th general-purpose argument register (counting the registers the
# arguments before it take by their size); floating-point values arrive in registers of their own,
# so a function whose float argument or later arguments are not where that model reads them gets
# no FUNC ("unexpected register usage for parameter"), as upstream pahole decides.
# The expectations below come from each psABI: where the float arguments arrive (x86-64:
# XMM0-7, DWARF registers 17-24; s390x: f0, f2, f4, f6, DWARF 16-19; aarch64: v0-v7, DWARF 64-71,
# named by DW_OP_regx, which pahole does not read as a register: a float alone, or last, is
# kept there) and which registers the integer arguments after them take. Upstream pahole
# master (PAHOLE_MASTER/pahole) must agree, but for one function it keeps on purpose: f_sdi's
# struct argument makes pahole stop checking registers; btforge, whose model places small
# structs, sees that 'x' arrives one register before BPF's model reads it. The complex type is
# an INT of its name and size, as pahole writes it.
source "$(dirname "$0")/lib.sh"
target=$1
master=$2
command -v clang-19 > /dev/null || skip "clang-19 is not installed"
case "$target" in
x86_64)
    gcc=(gcc) clang=(clang-19)
    expected="f_iiiiiid f_ret"
    ;;
aarch64)
    gcc=(aarch64-linux-gnu-gcc) clang=(clang-19 --target=aarch64-linux-gnu)
    expected="f_d f_id f_iid f_iiiiiid f_ret"
    ;;
s390x)
    gcc=(s390x-linux-gnu-gcc) clang=(clang-19 --target=s390x-linux-gnu)
    expected="f_iiiiiid f_ret"
    ;;
*) fail "unknown target '$target'" ;;
esac
[ -x "$master/pahole" ] && [ -x "$master/pfunct" ] || skip "no upstream pahole in $master"
runnable_copy "$master" "$work/master"

cat > "$work/floats.c" << 'EOF'
struct small { long a; };
__attribute__((noinline)) double f_d(double x) { return x * 2.5; }
__attribute__((noinline)) int f_di(double x, int y) { return (int)x + y; }
__attribute__((noinline)) int f_id(int y, double x) { return (int)x + y; }
__attribute__((noinline)) int f_iid(int y, int z, double x) { return (int)x + y * z; }
__attribute__((noinline)) float f_ffi(float a, float b, int c) { return a * b + c; }
/* A float result travels in a float register, but no argument does. */
__attribute__((noinline)) double f_ret(int a, long b) { return a + b; }
__attribute__((noinline)) long f_sdi(struct small s, double d, int x) { return s.a + (long)d + x; }
/* 'g' comes after the six (five on s390x) argument registers BPF's model has. */
__attribute__((noinline)) long f_iiiiiid(int a, int b, int c, int d, int e, int f, double g)
{
	return a + b + c + d + e + f + (long)g;
}
__attribute__((noinline)) long double f_ld(long double x, int y) { return x + y; }
__attribute__((noinline)) _Complex double f_cd(_Complex double z, int y) { return z * y; }
volatile double sink;
volatile long lsink;
int main(int argc, char **argv)
{
	struct small s = { argc };
	sink = f_d(argc) + f_di(argc, 3) + f_id(argc, 2.0) + f_iid(argc, 4, 1.5) +
	       f_ffi(1.0f, argc, 2) + f_ret(argc, 7);
	lsink = f_sdi(s, 2.0, argc) + f_iiiiiid(1, 2, 3, 4, 5, argc, 3.0);
	sink = f_ld(argc, 2);
	sink = __real__ f_cd(argc, 3);
	return 0;
}
EOF
all="f_d f_di f_id f_iid f_ffi f_ret f_sdi f_iiiiiid f_ld f_cd"

# funcs NAMES_FILE: the names of $all among the FUNCs listed, sorted, on one line.
funcs() { grep -owE "$(echo "$all" | tr ' ' '|')" "$1" | sort -u | tr '\n' ' ' | sed 's/ $//'; }
sorted() { tr ' ' '\n' <<< "$1" | sort | tr '\n' ' ' | sed 's/ $//'; }

problems=()
for compiler in gcc clang; do
    if [ "$compiler" = gcc ]; then
        command -v "${gcc[0]}" > /dev/null || { echo "no ${gcc[0]}: gcc not checked"; continue; }
        cc=("${gcc[@]}")
    else
        cc=("${clang[@]}")
    fi
    object=$work/floats-$compiler.o
    "${cc[@]}" -O2 -g -c "$work/floats.c" -o "$object"
    "$BTFORGE" convert "$object" -o "$work/$compiler.btf" --report-skipped "$work/$compiler.json"
    "$BPFTOOL" btf dump file "$work/$compiler.btf" | sed -n "s/^\[[0-9]*\] FUNC '\([^']*\)'.*/\1/p" \
        > "$work/$compiler.btforge"
    "$work/master/pahole" -J --btf_encode_detached="$work/$compiler.master.btf" "$object" \
        > /dev/null 2>&1 || fail "upstream pahole failed on $object"
    "$work/master/pfunct" --all --format_path=btf "$work/$compiler.master.btf" 2> /dev/null \
        > "$work/$compiler.master"
    got=$(funcs "$work/$compiler.btforge")
    upstream=$(funcs "$work/$compiler.master")
    echo "== $target $compiler"
    echo "expected: $(sorted "$expected")"
    echo "btforge:  $got"
    echo "upstream: $upstream"
    [ "$got" = "$(sorted "$expected")" ] || problems+=("$compiler: btforge's FUNCs are not the expected ones")
    [ "$upstream" = "$(sorted "$expected f_sdi")" ] ||
        problems+=("$compiler: upstream pahole's FUNCs are not the expected ones and f_sdi")
    # Each function left out says why, naming the float that moves the others.
    for fn in $all; do
        grep -qw "$fn" <<< "$got" && continue
        grep -q "\"name\":\"$fn\",\"reason\":\"unexpected register usage for parameter\"" \
            "$work/$compiler.json" || problems+=("$compiler: $fn: no unexpected register report")
    done
    grep -q "\"name\":\"f_di\".*parameter 0 'x' is a floating-point value" "$work/$compiler.json" ||
        problems+=("$compiler: f_di's report does not name 'x' as the floating-point value")
    # BTF has no complex kind: pahole writes _Complex double as an INT of its name and size
    # (as it writes floats without the float feature, which pahole -J leaves off).
    ints() { sed -n "s/^\[[0-9]*\] \(INT .*\)/\1/p" "$1" | sort; }
    "$BTFORGE" pahole-compat -J --btf_encode_detached="$work/$compiler.compat.btf" "$object" \
        > /dev/null
    "$BPFTOOL" btf dump file "$work/$compiler.compat.btf" > "$work/$compiler.dump"
    grep -q "INT 'complex.*' size=16 bits_offset=0 nr_bits=128 encoding=(none)" "$work/$compiler.dump" ||
        problems+=("$compiler: no 16-byte INT for _Complex double")
    # Debian's bpftool reads no 32-byte header of the other byte order (pahole master's s390x).
    if "$BPFTOOL" btf dump file "$work/$compiler.master.btf" > "$work/$compiler.master.dump" 2> /dev/null; then
        cmp -s <(ints "$work/$compiler.dump") <(ints "$work/$compiler.master.dump") ||
            problems+=("$compiler: the INTs differ from upstream pahole's")
    fi
done
for p in "${problems[@]}"; do echo "FAILED CHECK: $target $p" >&2; done
[ ${#problems[@]} -eq 0 ] || fail "${#problems[@]} check(s) failed (listed above)"
echo "PASS: float-arguments $target"
