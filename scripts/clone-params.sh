#!/usr/bin/env bash
# clone-params.sh OUT_DIR KERNEL_DIR: for every FUNC pahole keeps and btforge leaves out as
# 'optimized parameters' in a scripts/compare-pahole.sh run (OUT_DIR/differences.tsv), what the
# clone's code receives, so that the rule can be judged function by function:
#  - where each parameter is at the clone's entry (scripts/param-locations.sh): in its argument
#    register, elsewhere, or not passed (a constant, a value only the caller has, no location);
#  - shape: 'trailing' when every parameter not passed comes after every passed one and the
#    passed ones are in the registers their positions give, 'moved' otherwise;
#  - which argument registers that no passed parameter occupies the code reads before writing
#    them, from the first instructions (a linear scan up to the first jump or return or 60
#    instructions; a call ends the registers' life). A register read there carries a value the
#    DWARF does not describe: gcc's IPA-SRA passes what a pointer parameter pointed to, or a
#    field of it, in place of the pointer. A heuristic, but each case it flags can be read in the
#    disassembly. REG~: passed untouched to a function the code jumps to (a tail call).
# Prints a TSV (module, function, clone, shape, not-passed parameters as INDEX:how[:ptr],
# registers read) and then the counts; x86-64 and aarch64.
set -euo pipefail
[ $# = 2 ] || { echo "usage: $0 OUT_DIR KERNEL_DIR" >&2; exit 2; }
out=$(cd "$1" && pwd) kdir=$(cd "$2" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
case "$(readelf -h "$kdir/vmlinux" | sed -n 's/^ *Machine: *//p')" in
*X86-64*) arch=x86 regs="rdi rsi rdx rcx r8 r9" objdump=objdump ;;
*AArch64*) arch=arm64 regs="x0 x1 x2 x3 x4 x5 x6 x7" objdump=aarch64-linux-gnu-objdump ;;
*) echo "error: x86-64 and aarch64 only" >&2; exit 1 ;;
esac
command -v "$objdump" > /dev/null || { echo "error: no $objdump" >&2; exit 1; }
readelf -sW "$kdir/vmlinux" > "$tmp/vmlinux.syms"
mroot=$kdir/all-modules
[ -d "$mroot" ] || mroot=$kdir/modules

# The first use of each register in REGS: read, write, clobbered (a call first) or unused.
reads_awk=$(cat << 'EOF'
function pat(r,   n) {
    if (arch == "arm64") { n = substr(r, 2); return "(^|[^a-z0-9])[xw]" n "($|[^0-9])" }
    if (r ~ /^r[0-9]/) return "%" r "[dwb]?($|[^0-9a-z])"
    n = substr(r, 2, 1)
    if (r == "rdi" || r == "rsi") return "%(r" n "i|e" n "i|" n "i|" n "il)($|[^a-z])"
    return "%(r" n "x|e" n "x|" n "x|" n "l|" n "h)($|[^a-z])"
}
BEGIN { n = split(regs, R, " "); for (i = 1; i <= n; i++) { P[i] = pat(R[i]); S[i] = "unused" } }
/^[0-9a-f]+ <.*>:$/ { self = $2; sub(/^</, "", self); sub(/>:$/, "", self) }
/^ *[0-9a-f]+:\t/ && !done {
    # A jump to another function's start is a tail call: registers not yet used pass to it.
    if (match($0, /<[^>+]+>$/) && substr($0, RSTART + 1, RLENGTH - 2) != self) tail = 1; else tail = 0
    ins = $0; sub(/^ *[0-9a-f]+:\t/, "", ins); sub(/[ \t]*(#|\/\/|<).*/, "", ins)
    op = ins; sub(/[ \t].*/, "", op)
    args = ins; sub(/^[^ \t]+[ \t]*/, "", args)
    # Addresses: registers inside () or [] are read.
    mem = ""; rest = args
    while (match(rest, /[\(\[][^\)\]]*[\)\]]/)) { mem = mem substr(rest, RSTART, RLENGTH); rest = substr(rest, RSTART + RLENGTH) }
    regonly = args; gsub(/[\(\[][^\)\]]*[\)\]]/, "", regonly)
    m = split(regonly, o, ",")
    cnt++
    if (cnt == 1 && arch == "x86" && op == "call") next # __fentry__
    for (i = 1; i <= n; i++) {
        if (S[i] != "unused") continue
        if (op ~ /^(call|bl|blr)$/) { S[i] = "clobbered"; continue }
        if (args !~ P[i]) continue
        if (mem ~ P[i]) { S[i] = "read"; continue }
        # Written operands: x86's last; aarch64's first (two for a load pair), none for stores
        # and compares.
        w = 0; src = 0
        for (j = 1; j <= m; j++) {
            if (o[j] !~ P[i]) continue
            if (arch == "x86") isdst = (j == m && m > 1)
            else isdst = (op !~ /^(str|stp|stur|cmp|cmn|tst|cbz|cbnz|tbz|tbnz|ccmp|ccmn)/) && (j == 1 || (j == 2 && op ~ /^ld[a-z]*p$/))
            if (isdst) w = 1; else src = 1
        }
        if (arch == "x86" && op ~ /^xor/ && m == 2 && o[1] == o[2]) S[i] = "write"
        else if (src) S[i] = "read"
        else if (w && (arch == "arm64" || op ~ /^(mov|lea|pop|set)/ || (op ~ /^imul/ && m == 3))) S[i] = "write"
        else S[i] = "read" # x86 add, and, cmp...: the destination is read too
    }
    if (op ~ /^(jmp|b)$/ && tail) for (i = 1; i <= n; i++) if (S[i] == "unused") S[i] = "passed"
    if (cnt > 60 || op ~ /^(ret|jmp|b|br)$/) done = 1
}
END {
    s = ""
    for (i = 1; i <= n; i++) {
        if (S[i] == "read") s = s (s == "" ? "" : " ") R[i]
        if (S[i] == "passed") s = s (s == "" ? "" : " ") R[i] "~"
    }
    print (s == "" ? "-" : s)
}
EOF
)

awk -F'\t' '$5 ~ /^btforge: optimized parameters/ { print $1 "\t" $3 "\t" $7 "\t" $8 }' "$out/differences.tsv" |
    while IFS=$'\t' read -r mod fn detail proto; do
        die=$(grep -oE 'DIE 0x[0-9a-f]+' <<< "$detail" | tail -n 1 | cut -c5-)
        sym=$(sed -E 's/.* at entry of ([^ ]+) \(DIE.*/\1/' <<< "$detail")
        if [ "$mod" = vmlinux ]; then f=$kdir/vmlinux; else f=$mroot/$(cat "$out/mod/$mod/path"); fi
        locs=$(nice "$here/param-locations.sh" "$f" "$die" | head -n 1)
        # Registers holding a passed parameter are not candidates.
        check=""
        for r in $regs; do
            R=$(tr '[:lower:]' '[:upper:]' <<< "$r")
            case "$locs" in *"= $R "* | *"= W${R#X} "*) ;; *) check="$check $r" ;; esac
        done
        if [ "$mod" = vmlinux ]; then
            read -r a s < <(awk -v s="$sym" '$8 == s && $4 == "FUNC" { print $2, $3; exit }' "$tmp/vmlinux.syms")
            dis=$(nice "$objdump" -d --no-show-raw-insn --start-address="0x$a" \
                --stop-address="$(printf '0x%x' $((0x$a + s)))" "$f")
        else
            dis=$(nice "$objdump" -d --no-show-raw-insn --disassemble="$sym" "$f")
        fi
        read_regs=$(awk -v arch="$arch" -v regs="${check# }" "$reads_awk" <<< "$dis")
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$mod" "$fn" "$sym" "$locs" "$proto" "$read_regs"
    done > "$tmp/locs.tsv"

# Shape and not-passed parameters, from the locations and pahole's prototype (for 'ptr').
awk -F'\t' '
    function params(s, T,   i, d, c, cur, n) { # top-level parameters of "ret name(a, b)"
        n = 0; d = 0; cur = ""
        for (i = index(s, "(") + 1; i <= length(s); i++) {
            c = substr(s, i, 1)
            if (c == "(") d++
            if (c == ")") { if (d == 0) break; d-- }
            if (c == "," && d == 0) { T[n++] = cur; cur = ""; i++; continue }
            cur = cur c
        }
        T[n++] = cur
        return n
    }
    {
        loc = $4; sub(/^[^:]*: /, "", loc)
        n = split(loc, ps, "; ")
        proto = $5; sub("^[^(]*[ *]" $2 "\\(", "(", proto)
        delete T; params(proto, T)
        last = -1; first = 1e9; moved = 0; np = ""
        for (i = 1; i <= n; i++) {
            x = ps[i]; sub(/^ *#/, "", x); idx = x + 0
            l = x; sub(/.* = /, "", l); slot = l; sub(/.*\[slot /, "", slot); sub(/\]$/, "", slot); sub(/ \[slot.*/, "", l)
            if (l ~ /^[A-Z][A-Z0-9\/]*$/ || l ~ /^stack/) {
                last = idx
                if (slot != "stack" && l != slot && index(slot, l) == 0) moved = 1
            } else {
                if (idx < first) first = idx
                how = (l == "const") ? "const" : (l ~ /parameter_ref/) ? "caller" : (l == "none") ? "none" : "expr"
                np = np (np == "" ? "" : ",") idx ":" how (T[idx] ~ /\*/ ? ":ptr" : "")
            }
        }
        print $1 "\t" $2 "\t" $3 "\t" ((moved || first < last) ? "moved" : "trailing") "\t" np "\t" $6
    }' "$tmp/locs.tsv" > "$tmp/class.tsv"
cat "$tmp/class.tsv"
echo
awk -F'\t' '
    { u = ($1 == "vmlinux") ? "vmlinux" : "modules"
      r = ($6 == "-") ? "reads no other argument register" : \
          ($6 ~ /[a-z0-9]( |$)/) ? "reads argument registers no parameter holds" : \
          "passes argument registers no parameter holds to a tail call"
      c[u " | " $4 " | " r]++ }
    END { PROCINFO["sorted_in"] = "@ind_str_asc"; for (k in c) printf "%5d  %s\n", c[k], k }' "$tmp/class.tsv"
