#!/usr/bin/env bash
# function-signatures.sh TARGET [PAHOLE_MASTER]: the FUNC rules on functions whose arguments the
# optimizer moved, built at test time for TARGET (x86_64 or aarch64): a clang-19 program like
# upstream pahole's tests/clang_parm_optimized.sh (foo's 'c' moves into 'b's register, which
# clang 19 marks DW_CC_nocall) and, on x86_64, a gcc -O2 program whose static functions become
# .constprop clones without some of their parameters (gcc_true_signatures.sh's idea), also for
# aarch64 with Debian's cross gcc. Both programs have an external function whose unused middle
# parameter callers still pass (it keeps its FUNC) and one taking a union larger than 16 bytes
# by value (in memory on x86-64, so later arguments arrive a register earlier than BPF's model
# of one register per argument expects: no FUNC; by reference on aarch64: kept).
# The oracle is the DWARF as llvm-dwarfdump reads it and the target's calling convention: a
# function whose parameters do not all arrive where the convention puts them gets no FUNC by
# default (with its reason in --report-skipped and pahole's --verbose line); with true_signature,
# when the parameters that still arrive are each in the register the convention gives them among
# themselves, the FUNC is the code's real signature under its symbol's name. With PAHOLE_MASTER
# (../shared/tools/pahole-master), upstream pahole's prototypes are printed beside btforge's.
source "$(dirname "$0")/lib.sh"
target=$1
master=${2:-}
command -v clang-19 > /dev/null || skip "clang-19 is not installed"
command -v llvm-dwarfdump-19 > /dev/null || skip "llvm-dwarfdump-19 is not installed"
# Upstream's tools, runnable: its symbolic links are kept as text files naming their targets.
if [ -n "$master" ] && [ -r "$master/bin/pahole" ]; then
    runnable_copy "$master" "$work/master"
    master=$work/master
else
    master=
fi
case "$target" in
# The convention's integer argument registers, as llvm-dwarfdump names them.
x86_64) regs="RDI RSI RDX RCX R8 R9" clang=(clang-19 -O2 -g) ;;
aarch64) regs="W0 W1 W2 W3 W4 W5 W6 W7" clang=(clang-19 --target=aarch64-linux-gnu -O2 -g -c) ;;
*) fail "unknown target '$target'" ;;
esac

cat > "$work/moved.c" << 'EOF'
/* 'b' is unused: clang passes 'c' where 'b' would be. */
__attribute__((noinline)) static int foo(int a, int b, int c)
{
	return a * c - a - c;
}
/* Every argument used: each arrives where the convention says. */
__attribute__((noinline)) static int bar(int a, int b, int c)
{
	return a * b - c;
}
/* External, so its convention stays: 'unused' has no location but callers still pass it. */
__attribute__((noinline)) int unused_middle(int a, int unused, int c)
{
	return a * c;
}
/* 28 bytes by value: in memory on x86-64, where 'port' then arrives in the 3rd register and
   BPF's model (one register per argument) would read the 4th; by reference on arm64. */
union address { int v4; unsigned char v6[28]; };
__attribute__((noinline)) int by_value(void *p, long n, union address ip, int port)
{
	return ip.v4 + port + (int)n + (p != 0);
}
int a, b, c;
union address ip;
int main(void)
{
	return foo(a, b, c) + bar(a, b, c) + unused_middle(a, b, c) + by_value(&a, b, ip, c);
}
EOF
cat > "$work/clones.c" << 'EOF'
struct t { int a; long pad[4]; };
__attribute__((noinline)) char *tar(struct t *a, struct t *d)
{
	return a->a == d->a ? (char *)10 : (char *)0;
}
/* Every argument is a constant: the clone takes none. */
__attribute__((noinline)) static char *last(struct t *a, struct t *d, int b)
{
	return b ? tar(a, d) : 0;
}
/* The unused middle argument is dropped: the clone takes (a, d). */
__attribute__((noinline)) static char *middle(struct t *a, int unused, struct t *d)
{
	return tar(a, d);
}
/* Only p->a is read: the clone takes that value, which no parameter describes, for 'p'. */
__attribute__((noinline)) static long field(struct t *p)
{
	return p->a * 3;
}
/* External: callers pass 'unused' in its register, though the code never reads it. */
__attribute__((noinline)) long unused_middle(struct t *a, int unused, struct t *d)
{
	return a->a - d->a;
}
/* 32 bytes by value: in memory on x86-64 ('n' then arrives where BPF's model looks for the
   union), by reference on arm64. */
union wide { long l[4]; char c[32]; };
__attribute__((noinline)) long by_value(struct t *a, union wide w, long n)
{
	return a->a + w.l[1] + n;
}
struct t p1, p2;
union wide w;
int v;
int main(void)
{
	p1.a = p2.pad[1];
	return !!last(&p1, &p2, 1) + !!middle(&p1, v, &p2) + !!middle(&p2, v + 1, &p1) +
	       (int)field(&p1) + (int)field(&p2) + (int)unused_middle(&p1, v, &p2) +
	       (int)by_value(&p2, w, v);
}
EOF

# dwarf_verdicts FILE: per out-of-line function, from llvm-dwarfdump's reading of the DWARF,
# "NAME DEFAULT TRUE". DEFAULT is "keep" when every parameter with a register at entry has the
# one the convention gives its position, its instance lists the source's parameters and, for a
# function whose signature the compiler says it changed (DW_CC_nocall, or its code is at an
# .isra/.constprop symbol), every parameter has one. TRUE is the true signature: for such a
# function the parameters arriving in registers ("a,c", or "void") when each is in the register
# the convention gives its place among them; for others the source's when DEFAULT is "keep";
# else "none".
dwarf_verdicts() {
    # Functions whose code is at a clone's symbol, which gcc made with a new signature.
    local clones
    clones=$(nm "$1" | awk '$3 ~ /\.(isra|constprop)\./ { sub(/\..*/, "", $3); print $3 }')
    llvm-dwarfdump-19 --debug-info "$1" | awk -v regs="$regs" -v clones="$clones" '
        function finish() {
            if (fn == "") return
            keep = 1; kept = ""; k = 0; ok = 1
            changed = nocall || (fn in clone)
            if (origin != "" && n < declared[origin]) keep = 0 # not the source prototype
            for (i = 1; i <= n; i++) {
                if (reg[i] != "" && reg[i] != abi[i]) keep = 0
                if (reg[i] == "" && changed) keep = 0
                # A pointer the code does not receive may have been replaced by what it
                # points to, undescribed: no true signature, unless its value is known.
                if (reg[i] == "" && ptr[i] && !known[i]) ok = 0
                if (reg[i] == "") continue
                k++; if (reg[i] != abi[k]) ok = 0
                kept = kept (kept == "" ? "" : ",") pname[i]
            }
            if (!changed) { # the source prototype, or none
                ok = keep; kept = ""
                for (i = 1; i <= n; i++) kept = kept (kept == "" ? "" : ",") pname[i]
            }
            print fn, keep ? "keep" : "skip", ok ? (kept == "" ? "void" : kept) : "none"
            fn = ""
        }
        function quoted() { match($0, /"[^"]*"/); return substr($0, RSTART + 1, RLENGTH - 2) }
        BEGIN { split(regs, abi, " "); split(clones, c, " "); for (i in c) clone[c[i]] = 1 }
        /DW_TAG_subprogram/ {
            sub_ = 1; name = ""; origin = ""; lowpc = 0; nocall = 0; n = 0; inp = 0; done = 0
            next
        }
        /DW_TAG_formal_parameter/ {
            if (sub_ && !done) { n++; reg[n] = ""; pname[n] = ""; ptr[n] = 0; known[n] = 0; inp = 1 }
            next
        }
        /DW_TAG_/ { inp = 0; done = sub_; next }
        sub_ && !inp && !done && /DW_AT_low_pc/ { lowpc = 1 }
        sub_ && !inp && !done && /DW_CC_nocall/ { nocall = 1 }
        sub_ && !inp && !done && /DW_AT_name/ { name = quoted() }
        sub_ && !inp && !done && /DW_AT_abstract_origin/ { name = quoted(); origin = name }
        # A parameter: its name, and the register of its (first) location at entry.
        inp && /DW_AT_(name|abstract_origin)/ { pname[n] = quoted(); ptr[n] = isptr[name "/" pname[n]] }
        inp && /DW_AT_type.*\*"\)$/ { ptr[n] = 1; isptr[name "/" pname[n]] = 1 }
        inp && /DW_AT_const_value|DW_AT_location.*\((DW_OP_addr|DW_OP_lit|DW_OP_const)/ { known[n] = 1 }
        inp && reg[n] == "" && /DW_AT_location.*\(DW_OP_reg[0-9]+ [A-Z0-9]+\)$/ { reg[n] = $NF; sub(/\)/, "", reg[n]) }
        inp && reg[n] == "" && /^ *\[0x[0-9a-f]+, 0x[0-9a-f]+\): DW_OP_reg[0-9]+ [A-Z0-9]+$/ { reg[n] = $NF }
        /NULL/ {
            if (sub_ && !lowpc) declared[name] = n
            if (sub_ && lowpc) { fn = name; finish() }
            sub_ = 0; inp = 0
        }
    ' | sort -u
}

# funcs BTF: "NAME(PARAM,PARAM)" per FUNC, from bpftool's reading of the BTF.
funcs() {
    "$BPFTOOL" btf dump file "$1" format raw | awk '
        /^\[[0-9]+\] FUNC_PROTO/ { id = substr($1, 2, length($1) - 2); p[id] = ""; cur = id; next }
        /^\t'\''/ && cur != "" { split($1, q, "'\''"); p[cur] = p[cur] (p[cur] == "" ? "" : ",") q[2]; next }
        /^\[[0-9]+\] FUNC / { cur = ""; split($3, q, "'\''"); t = $4; sub("type_id=", "", t); f[q[2]] = t; next }
        END { for (n in f) print n "(" p[f[n]] ")" }' | sort
}

problems=()
problem() {
    echo "FAILED CHECK: $target $*" >&2
    problems+=("$*")
}

# check PROGRAM BINARY FUNCTION...: btforge's FUNCs for each FUNCTION, default and with
# true_signature, against the DWARF's verdicts; and the pahole link's --verbose skip lines.
check() {
    local program=$1 binary=$2
    shift 2
    dwarf_verdicts "$binary" > "$work/$program.dwarf"
    echo "== $target $program: the DWARF says (function, default, true signature)"
    cat "$work/$program.dwarf"
    "$BTFORGE" convert "$binary" -o "$work/$program.default.btf" \
        --report-skipped "$work/$program.skipped.json"
    "$BTFORGE" convert "$binary" -o "$work/$program.true.btf" --features default,true_signature
    # pahole's spelling of the same, through the pahole front end: the same bytes.
    "$BTFORGE" pahole-compat -J --btf_encode_detached="$work/$program.compat.btf" \
        --btf_features=+true_signature "$binary" > /dev/null
    cmp -s "$work/$program.compat.btf" "$work/$program.true.btf" ||
        problem "$program: pahole-compat --btf_features=+true_signature differs from convert"
    funcs "$work/$program.default.btf" > "$work/$program.default.funcs"
    funcs "$work/$program.true.btf" > "$work/$program.true.funcs"
    echo "btforge default: $(tr '\n' ' ' < "$work/$program.default.funcs")"
    echo "btforge true_signature: $(tr '\n' ' ' < "$work/$program.true.funcs")"
    local fn verdict true_sig symbol
    for fn in "$@"; do
        read -r _ verdict true_sig < <(grep "^$fn " "$work/$program.dwarf") ||
            { problem "$program: no out-of-line $fn in the DWARF"; continue; }
        if [ "$verdict" = keep ]; then
            grep -q "^$fn(" "$work/$program.default.funcs" ||
                problem "$program: $fn arrives as the convention says, but has no FUNC"
        else
            ! grep -q "^$fn[.(]" "$work/$program.default.funcs" ||
                problem "$program: $fn's parameters moved, but it has a FUNC"
            grep -q "\"name\": *\"$fn\"" "$work/$program.skipped.json" ||
                problem "$program: $fn is not in --report-skipped"
            grep -q "^$fn : skipping BTF encoding of function due to " \
                <(cp "$binary" "$work/verbose.elf" &&
                    "$BTFORGE" pahole-compat -J --btf_encode_detached="$work/verbose.btf" \
                        --verbose "$work/verbose.elf") ||
                problem "$program: no pahole --verbose skip line for $fn"
        fi
        # The true signature, named as the symbol table names the code.
        symbol=$(nm "$binary" | awk -v f="$fn" '$3 == f || index($3, f ".") == 1 { print $3; exit }')
        if [ "$true_sig" = none ]; then
            ! grep -q "^$fn[.(]" "$work/$program.true.funcs" || [ "$verdict" = keep ] ||
                problem "$program: true_signature: $fn's real signature is unknown, but it has a FUNC"
        else
            [ "$true_sig" = void ] && true_sig=
            grep -qxF "$symbol($true_sig)" "$work/$program.true.funcs" ||
                problem "$program: true_signature: expected $symbol($true_sig)"
        fi
    done
    if [ -n "$master" ] && [ -x "$master/pahole" ] && [ -x "$master/pfunct" ]; then
        if "$master/pahole" --btf_encode_detached="$work/master.btf" \
            --btf_features=+true_signature "$binary" > /dev/null 2>&1; then
            echo "upstream pahole master, true_signature: $("$master/pfunct" --all \
                --format_path=btf "$work/master.btf" 2> /dev/null | tr '\n' ' ')"
        fi
    fi
}

if [ "$target" = x86_64 ]; then
    "${clang[@]}" -o "$work/moved" "$work/moved.c"
    check moved "$work/moved" foo bar unused_middle by_value
    # clang 14 moves the same argument without saying so (no DW_CC_nocall).
    if command -v clang-14 > /dev/null; then
        clang-14 -O2 -g -o "$work/moved14" "$work/moved.c"
        check moved14 "$work/moved14" foo bar unused_middle by_value
    fi
    if command -v gcc > /dev/null; then
        gcc -O2 -g -o "$work/clones" "$work/clones.c"
        check clones "$work/clones" last middle field tar unused_middle by_value
    fi
else
    "${clang[@]}" -o "$work/moved.o" "$work/moved.c"
    check moved "$work/moved.o" foo bar unused_middle by_value
    if command -v aarch64-linux-gnu-gcc > /dev/null; then
        aarch64-linux-gnu-gcc -O2 -g -c -o "$work/clones.o" "$work/clones.c"
        check clones "$work/clones.o" last middle field tar unused_middle by_value
    fi
fi
[ ${#problems[@]} -eq 0 ] || fail "${#problems[@]} check(s) failed (listed above)"
echo "PASS: function-signatures $target"
