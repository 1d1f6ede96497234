#!/usr/bin/env bash
# regparm-aggregates.sh COMPILER: structs passed by value on i386 built as the kernel is
# (-mregparm=3). gcc and clang pass an aggregate in the argument registers left while it fits
# (the kernel's pmd_t, struct membuf, struct vmci_handle in EAX:EDX), else on the stack with every
# later argument. The oracle is the compiler, as llvm-dwarfdump reads its DWARF
# (scripts/param-locations.sh): where each parameter is at entry. Every parameter here arrives
# where regparm(3) puts it, so each function keeps its FUNC (bpftool's dump of btforge's BTF).
# btforge once put every aggregate on the stack and left such functions out as "unexpected
# register usage for parameter" (pair_first here, 26 in Debian's i386 6.1 kernel); the other three
# functions were kept then too, and must stay so (a struct that does not fit, one that fills all).
source "$(dirname "$0")/lib.sh"
compiler=$1
case "$compiler" in
gcc) cc=(i686-linux-gnu-gcc) ;;
clang-19) cc=(clang-19 --target=i686-linux-gnu -gdwarf-4) ;; # DWARF 5's indexed lists: unread there
*) fail "unknown compiler '$compiler'" ;;
esac
command -v "${cc[0]}" > /dev/null || skip "${cc[0]} is not installed"
command -v llvm-dwarfdump-19 > /dev/null || skip "llvm-dwarfdump-19 is not installed"
locations=$(dirname "$0")/../../scripts/param-locations.sh

cat > "$work/prog.c" << 'EOF'
struct pair { int lo, hi; };
struct three { int a, b, c; };
/* p in EAX:EDX, n in ECX. */
__attribute__((noinline)) int pair_first(struct pair p, int n)
{
	return p.lo * n + p.hi;
}
/* n in EAX, p in EDX:ECX, m on the stack. */
__attribute__((noinline)) int pair_second(int n, struct pair p, int m)
{
	return p.lo * n + p.hi * m;
}
/* n in EAX; t needs three registers where two are left: t and m on the stack. */
__attribute__((noinline)) int three_after_int(int n, struct three t, int m)
{
	return t.a * n + t.b * m + t.c;
}
/* t in EAX:EDX:ECX. */
__attribute__((noinline)) int three_first(struct three t)
{
	return t.a * t.b + t.c;
}
EOF
"${cc[@]}" -O2 -g -mregparm=3 -freg-struct-return -fno-pic -c "$work/prog.c" -o "$work/prog.o" ||
    fail "$compiler could not build the program"

# The compiler's placement, first: the premise of the FUNC verdicts below.
expect_at_entry() { # FUNC "#N NAME = LOCATION"...
    local fn=$1 line
    shift
    line=$("$locations" "$work/prog.o" "$fn" | grep " $fn @") || fail "no code for $fn in the DWARF"
    for want in "$@"; do
        # param-locations prints "#N NAME (TYPE) = LOCATION"; the type is left out here.
        local pattern=${want/ = / \\([^)]*\\) = }
        grep -Eq "$pattern([ ;,]|$)" <<< "$line" || fail "$compiler: $fn: expected '$want' at entry: $line"
    done
}
expect_at_entry pair_first "#0 p = EAX" "#1 n = ECX"
expect_at_entry pair_second "#0 n = EAX" "#1 p = EDX" "#2 m = stack\+[0-9]+"
# clang describes t by the stack pointer (ESP+4: just above the return address).
expect_at_entry three_after_int "#0 n = EAX" "#1 t = (stack\+[0-9]+|\(breg4 ESP\+[0-9]+)" \
    "#2 m = stack\+[0-9]+"
expect_at_entry three_first "#0 t = (EAX|stack-[0-9]+)"

"$BTFORGE" --quiet convert "$work/prog.o" -o "$work/prog.btf" --report-skipped "$work/skipped.json" ||
    fail "btforge failed on the program"
"$BPFTOOL" btf dump file "$work/prog.btf" > "$work/dump.txt" || fail "bpftool cannot read the BTF"
for fn in pair_first pair_second three_after_int three_first; do
    grep -q "FUNC '$fn' " "$work/dump.txt" ||
        fail "$compiler: no FUNC $fn: $(grep -o "\"$fn\"[^}]*" "$work/skipped.json")"
done
echo "PASS: $compiler: 4 functions with structs in regparm(3) registers keep their FUNC"
