#!/usr/bin/env bash
# compare-pahole.sh [OPTIONS] KERNEL_DIR [OUT_DIR]: encodes a kernel's vmlinux and every module
# with upstream pahole and with btforge, as a kernel build does (the modules as split BTF over
# vmlinux), and compares what each wrote, module by module: named types (STRUCT, UNION, ENUM,
# ENUM64, TYPEDEF, FWD, INT, FLOAT), DATASEC entries, FUNC names and FUNC prototypes. Each FUNC
# only one tool writes is listed with the reason the other gives for leaving it out: pahole's
# '--verbose' line ("NAME : skipping BTF encoding of function due to REASON") and btforge's
# '--report-skipped' entry.
#
# KERNEL_DIR holds vmlinux and the modules: all-modules/**.ko (scripts/fetch-debian-kernel.sh ARCH
# --all-modules prints it), else modules/*.ko. OUT_DIR (default: a new /tmp/compare-pahole.XXXXXX)
# receives, beside each tool's outputs (mod/NAME/) and the copy of btforge it ran (tools/), the
# results:
#   report.txt       every difference, grouped by module, with both tools' reasons
#   differences.tsv  the same, one difference a line (module, kind, name, what, category, reasons)
#   summary.txt      totals and the differences by category, with examples (also printed)
# The results are deterministic (sorted, no times); timing.txt has the times of the phases.
#
# Options:
#   --base common  (default) every module of both tools is encoded over one base: vmlinux's own
#                  .BTF (the distribution's, made by neither tool under test, which its modules
#                  were built against), or pahole's encoding of vmlinux when it has none. The
#                  module encoders are then compared on equal terms.
#   --base own     each tool's modules over that tool's own encoding of vmlinux, as a kernel
#                  built with that tool would have them.
#   --no-vmlinux   compare the modules only (vmlinux is still encoded when --base own needs it).
#   --match ERE    only the modules whose path under KERNEL_DIR matches ERE.
#   -P N           encode N modules at a time (default 2); vmlinux is encoded with -j N.
#   --reuse        encode nothing: compare again what an earlier run left in OUT_DIR.
# Tools: $PAHOLE (default ../shared/tools/pahole-master/pahole beside the repository), $BTFORGE (default
# build/release/bin/btforge of this checkout), bpftool from PATH.
set -euo pipefail
# Every run reads its base (-B) itself: none writes a cache (~/.cache/btforge).
export BTFORGE_BASE_CACHE=off

# The flags a kernel build passes (scripts/Makefile.btf, 6.12+, without 'attributes').
features=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs

# Debian's bpftool (libbpf 1.1) reads a header longer than 24 bytes only in the host's byte order,
# and pahole master writes libbpf 1.8's 32-byte one (room for a kind-layout section) for
# big-endian targets too. Without a layout section it says what the 24-byte header says:
# bpftool reads a copy with that header. FILE: the file bpftool is to read (FILE.h24 or FILE).
readable() {
    if [ "$(od -An -tx1 -N8 "$1" | tr -d ' ')" = eb9f010000000020 ] &&
        [ "$(od -An -tx1 -j24 -N8 "$1" | tr -d ' ')" = 0000000000000000 ]; then
        { head -c 4 "$1"; printf '\0\0\0\030'; tail -c +9 "$1" | head -c 16; tail -c +33 "$1"; } > "$1.h24"
        echo "$1.h24"
    else
        echo "$1"
    fi
}

# One module, run by xargs: both encoders, the skip reasons, bpftool's dumps. Every output goes
# to $CP_OUT/mod/NAME; a tool's failure is recorded there, not fatal to the run.
if [ "${1:-}" = --job ]; then
    ko=$2
    rel=${ko#"$CP_ROOT"/}
    name=$(basename "$ko" .ko)
    d=$CP_OUT/mod/$name
    mkdir -p "$d"
    echo "$rel" > "$d/path"
    # pahole prints every type with --verbose; only the skip lines are kept.
    set +e
    dump() { # TOOL BASE: bpftool's dump of TOOL's output, when TOOL succeeded
        [ "$(cat "$d/$1.rc")" = 0 ] || return 0
        bpftool btf dump file "$(readable "$d/$1.btf")" -B "$2" > "$d/$1.txt" 2>> "$d/$1.err" ||
            echo "bpftool" > "$d/$1.rc"
    }
    "$CP_PAHOLE" -J --btf_features="$features" --lang_exclude=rust --btf_base "$CP_PBASE" \
        --btf_encode_detached="$d/p.btf" --verbose "$ko" 2> "$d/p.err" |
        grep -F 'skipping BTF encoding of function' > "$d/p.skipped"
    echo "${PIPESTATUS[0]}" > "$d/p.rc"
    "$CP_BTFORGE" -j1 --quiet convert "$ko" -B "$CP_BBASE" -o "$d/b.btf" \
        --report-skipped "$d/b.json" > "$d/b.out" 2> "$d/b.err"
    echo "$?" > "$d/b.rc"
    dump p "$CP_PBASE_READABLE"
    dump b "$CP_BBASE_READABLE"
    exit 0
fi

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
base_mode=common vmlinux_too=1 match="" par=2 reuse=0
while [ $# -gt 0 ]; do
    case "$1" in
    --base) base_mode=$2; shift 2 ;;
    --no-vmlinux) vmlinux_too=0; shift ;;
    --reuse) reuse=1; shift ;;
    --match) match=$2; shift 2 ;;
    -P) par=$2; shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "error: unknown option '$1'" >&2; exit 2 ;;
    *) break ;;
    esac
done
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    echo "usage: $0 [--base common|own] [--no-vmlinux] [--match ERE] [-P N] [--reuse] KERNEL_DIR [OUT_DIR]" >&2
    exit 2
fi
case "$base_mode" in common | own) ;; *) echo "error: --base common or own" >&2; exit 2 ;; esac
kdir=$(cd "$1" && pwd)
pahole=${PAHOLE:-$repo/../shared/tools/pahole-master/pahole}
btforge=${BTFORGE:-$repo/build/release/bin/btforge}
for tool in "$pahole" "$btforge"; do [ -x "$tool" ] || { echo "error: no $tool" >&2; exit 1; }; done
command -v bpftool > /dev/null || { echo "error: bpftool is not installed" >&2; exit 1; }
[ -s "$kdir/vmlinux" ] || { echo "error: no $kdir/vmlinux" >&2; exit 1; }
mroot=$kdir/all-modules
[ -d "$mroot" ] || mroot=$kdir/modules
out=${2:-$(mktemp -d /tmp/compare-pahole.XXXXXX)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
case "$out/" in "$repo"/*) echo "error: write the results outside the repository, not in $out" >&2; exit 2 ;; esac
export LC_ALL=C # byte order for every sort

# A copy of btforge (binary, plugins, its own libraries), so that a rebuild during the run does
# not mix two versions; LD_LIBRARY_PATH takes precedence over the build's RUNPATH.
tools=$out/tools
if [ "$reuse" = 0 ]; then
    rm -rf "$tools"
    mkdir -p "$tools/bin" "$tools/lib"
    cp "$btforge" "$tools/bin/"
    [ ! -d "$(dirname "$btforge")/plugins" ] || cp -r "$(dirname "$btforge")/plugins" "$tools/bin/"
    ldd "$btforge" | awk '$3 ~ /^\// && $3 !~ /^\/(usr\/)?lib/ { print $3 }' | while read -r lib; do
        cp "$lib" "$tools/lib/"
    done
    (cd "$tools" && find . -type f | sort | xargs sha256sum > sha256sums)
    echo "btforge: copy of $btforge ($(date -u -r "$btforge" '+%F %T UTC'); sha256 $(sha256sum < "$btforge" | cut -c1-16))" > "$tools/origin"
fi
[ -e "$tools/origin" ] || { mkdir -p "$tools"; echo "btforge: not recorded" > "$tools/origin"; }
export LD_LIBRARY_PATH=$tools/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
btforge=$tools/bin/btforge

mapfile -t modules < <(find "$mroot" -name '*.ko' | sort | { if [ -n "$match" ]; then grep -E -- "$match" || true; else cat; fi; })
[ "${#modules[@]}" -gt 0 ] || { echo "error: no module under $mroot${match:+ matching $match}" >&2; exit 1; }
dups=$(printf '%s\n' "${modules[@]}" | xargs -n1 basename | sort | uniq -d | head -n 3)
[ -z "$dups" ] || { echo "error: module names are not unique: $dups" >&2; exit 1; }

now() { date +%s.%N; }
timing=$out/timing.txt
[ "$reuse" = 0 ] || timing=$out/timing-reuse.txt
: > "$timing"
phase() { # NAME START
    awk -v n="$1" -v s="$2" -v e="$(now)" 'BEGIN { printf "%-28s %7.1f s\n", n, e - s }' >> "$timing"
}
t0=$(now)

# vmlinux: each tool on its own (no base), as the kernel's link step runs it.
mkdir -p "$out/vmlinux"
v=$out/vmlinux
if [ "$reuse" = 0 ] && { [ "$vmlinux_too" = 1 ] || [ "$base_mode" = own ]; }; then
    t=$(now)
    set +e
    nice "$pahole" -J -j"$par" --btf_features="$features" --lang_exclude=rust \
        --btf_encode_detached="$v/p.btf" --verbose "$kdir/vmlinux" 2> "$v/p.err" |
        grep -F 'skipping BTF encoding of function' > "$v/p.skipped"
    prc=${PIPESTATUS[0]}
    set -e
    [ "$prc" = 0 ] || { echo "error: pahole failed on vmlinux (exit $prc; $v/p.err)" >&2; exit 1; }
    phase "pahole vmlinux" "$t"
    t=$(now)
    nice "$btforge" -j"$par" --quiet convert "$kdir/vmlinux" -o "$v/b.btf" \
        --report-skipped "$v/b.json" 2> "$v/b.err" ||
        { echo "error: btforge failed on vmlinux ($v/b.err)" >&2; exit 1; }
    phase "btforge vmlinux" "$t"
    bpftool btf dump file "$(readable "$v/p.btf")" > "$v/p.txt"
    bpftool btf dump file "$(readable "$v/b.btf")" > "$v/b.txt"
    echo vmlinux > "$v/path"
    echo 0 > "$v/p.rc"
    echo 0 > "$v/b.rc"
fi

# The bases of the modules, as raw BTF (the same bytes as the ELF section).
if [ "$base_mode" = common ]; then
    # The section's bytes by its offset and size (objcopy knows only the host's ELF targets).
    read -r off size < <(readelf -SW "$kdir/vmlinux" |
        awk '{ sub(/^ *\[ *[0-9]+\] /, "") } $1 == ".BTF" { print strtonum("0x" $4), strtonum("0x" $5) }') || true
    if [ -n "${size:-}" ]; then
        dd if="$kdir/vmlinux" of="$out/base.btf" iflag=skip_bytes,count_bytes skip="$off" count="$size" status=none
        echo "common base: the .BTF of $kdir/vmlinux" > "$out/base.txt"
    else
        [ -s "$v/p.btf" ] || { echo "error: $kdir/vmlinux has no .BTF; drop --no-vmlinux so that pahole makes the base" >&2; exit 1; }
        cp "$v/p.btf" "$out/base.btf"
        echo "common base: pahole's encoding of $kdir/vmlinux (it has no .BTF)" > "$out/base.txt"
    fi
    pbase=$out/base.btf bbase=$out/base.btf
else
    pbase=$v/p.btf bbase=$v/b.btf
    echo "own bases: pahole's modules over pahole's vmlinux, btforge's over btforge's" > "$out/base.txt"
fi
pbase_readable=$(readable "$pbase") bbase_readable=$(readable "$bbase")
bpftool btf dump file "$pbase_readable" > "$out/pbase.txt"
bpftool btf dump file "$bbase_readable" > "$out/bbase.txt"

# The modules, N at a time.
if [ "$reuse" = 0 ]; then
    t=$(now)
    rm -rf "$out/mod"
    mkdir -p "$out/mod"
    printf '%s\0' "${modules[@]}" |
        CP_OUT=$out CP_ROOT=$mroot CP_PAHOLE=$pahole CP_BTFORGE=$btforge CP_PBASE=$pbase CP_BBASE=$bbase \
            CP_PBASE_READABLE=$pbase_readable CP_BBASE_READABLE=$bbase_readable \
            nice xargs -0 -n1 -P"$par" "$0" --job
    phase "modules (${#modules[@]}, -P$par)" "$t"
fi

# Render every dump as canonical lines 'KIND NAME<TAB>C-like text', sorted. Types are spelt by
# name, so the two tools' different type ids compare; one awk loads a base once for all modules.
render_awk=$(cat << 'EOF'
function load(file,   line, id, rest, kind, name, q, n, i, kv, a) {
    cur = ""
    while ((getline line < file) > 0) {
        if (substr(line, 1, 1) != "[") {
            if (cur != "") ML[cur] = ML[cur] line "\n"
            continue
        }
        id = substr(line, 2, index(line, "]") - 2) + 0
        rest = substr(line, index(line, "]") + 2)
        kind = substr(rest, 1, index(rest, " ") - 1)
        rest = substr(rest, index(rest, "'") + 1)
        q = index(rest, "'")
        name = substr(rest, 1, q - 1)
        rest = substr(rest, q + 2)
        K[id] = kind; N[id] = name; ML[id] = ""; cur = id
        if (id > maxid) maxid = id
        n = split(rest, a, " ")
        for (i = 1; i <= n; i++) {
            sub(/,$/, "", a[i])
            if (split(a[i], kv, "=") != 2) continue
            if (kv[1] == "type_id" || kv[1] == "ret_type_id") T[id] = kv[2] + 0
            else A[id, kv[1]] = kv[2]
        }
        if (kind == "DECL_TAG") {
            TAGS[T[id]] = TAGS[T[id]] (TAGS[T[id]] == "" ? "" : ",") A[id, "component_idx"] ":" name
            tagged[T[id]] = 1
        }
    }
    close(file)
}
function unload(first,   id, k) { # forget the ids from FIRST on (a module's)
    for (id = first; id <= maxid; id++) {
        delete K[id]; delete N[id]; delete T[id]; delete ML[id]
        delete A[id, "size"]; delete A[id, "vlen"]; delete A[id, "nr_elems"]; delete A[id, "encoding"]
        delete A[id, "nr_bits"]; delete A[id, "fwd_kind"]; delete A[id, "linkage"]; delete A[id, "component_idx"]
        delete A[id, "bits_offset"]; delete A[id, "index_type_id"]
    }
    for (k in tagged) { delete TAGS[k]; delete tagged[k] }
    maxid = first - 1
}
# A member line: NM (its quoted name, or ""), and its key=value fields in MF.
function member(line,   rest, q, n, i, a, kv) {
    delete MF
    sub(/^\t/, "", line)
    NM = ""
    if (substr(line, 1, 1) == "'") {
        q = index(substr(line, 2), "'")
        NM = substr(line, 2, q - 1)
        line = substr(line, q + 3)
    }
    if (match(line, /\(VAR '[^']*'\)/)) MF["var"] = substr(line, RSTART + 6, RLENGTH - 8)
    n = split(line, a, " ")
    for (i = 1; i <= n; i++)
        if (split(a[i], kv, "=") == 2) MF[kv[1]] = kv[2]
}
function sp(d) { return d == "" ? "" : (substr(d, 1, 1) ~ /[[(]/ ? d : " " d) }
function tags(id) { return TAGS[id] == "" ? "" : " [tags " TAGS[id] "]" }
# C-like text of type ID declaring D ("" for a bare type).
function ty(id, d, depth,   k, t, nm, s, n, i, ln, fields, mn) {
    if (depth > 30) return "..." sp(d)
    if (id == 0) return "void" sp(d)
    k = K[id]
    if (k == "") return "?" id sp(d)
    nm = N[id]
    if (k == "INT" || k == "FLOAT" || k == "TYPEDEF") return nm sp(d)
    if (k == "FWD") return A[id, "fwd_kind"] " " nm sp(d)
    if (k == "PTR") {
        t = T[id]
        return ty(t, (K[t] == "ARRAY" || K[t] == "FUNC_PROTO") ? "(*" d ")" : "*" d, depth + 1)
    }
    if (k == "CONST" || k == "VOLATILE" || k == "RESTRICT" || k == "TYPE_TAG") {
        s = (k == "TYPE_TAG") ? "__tag(" nm ")" : tolower(k)
        t = T[id]
        if (K[t] == "PTR") return ty(t, s sp(d), depth + 1)
        return s " " ty(t, d, depth + 1)
    }
    if (k == "ARRAY") return ty(T[id], d "[" A[id, "nr_elems"] "]", depth + 1)
    if (k == "FUNC_PROTO") {
        s = ""
        n = split(ML[id], ln, "\n")
        for (i = 1; i < n; i++) {
            member(ln[i])
            if (MF["type_id"] == 0) fields = "..."
            else fields = ty(MF["type_id"] + 0, NM == "(anon)" ? "" : NM, depth + 1)
            s = s (i > 1 ? ", " : "") fields
        }
        return ty(T[id], d "(" (s == "" ? "void" : s) ")", depth + 1)
    }
    if (k == "STRUCT" || k == "UNION" || k == "ENUM" || k == "ENUM64") {
        s = (k == "UNION") ? "union" : (k == "STRUCT") ? "struct" : "enum"
        if (nm != "(anon)") return s " " nm sp(d)
        return s " " body(id, depth + 1) sp(d)
    }
    return tolower(k) " " nm sp(d)
}
# The members or values of a STRUCT, UNION, ENUM or ENUM64, with offsets and sizes.
function body(id, depth,   k, s, n, i, ln, e, off) {
    k = K[id]
    s = "size=" A[id, "size"]
    if (k == "ENUM" || k == "ENUM64") s = s " " A[id, "encoding"]
    s = s " {"
    n = split(ML[id], ln, "\n")
    for (i = 1; i < n; i++) {
        member(ln[i])
        if (k == "ENUM" || k == "ENUM64") e = NM "=" MF["val"]
        else {
            # Read the member before ty(), which parses nested members into MF.
            off = " @" MF["bits_offset"] (("bitfield_size" in MF) ? ":" MF["bitfield_size"] : "")
            e = ty(MF["type_id"] + 0, NM == "(anon)" ? "" : NM, depth) off
        }
        s = s (i > 1 ? "; " : " ") e
    }
    return s " }"
}
# Whether FUNC_PROTO ID's return or parameter types are ids from FIRST on.
function ownrefs(id, first,   n, i, ln) {
    if (T[id] >= first) return 1
    n = split(ML[id], ln, "\n")
    for (i = 1; i < n; i++) { member(ln[i]); if (MF["type_id"] + 0 >= first) return 1 }
    return 0
}
# Canonical lines of ids FIRST..maxid into OUT.
function emit(first, out,   id, k, nm, n, i, ln, v, off) {
    for (id = first; id <= maxid; id++) {
        k = K[id]; nm = N[id]
        if (k == "FUNC") {
            print "FUNC " nm "\t" A[id, "linkage"] " " ty(T[id], nm, 0) tags(id) > out
            # A prototype that refers to the split part's own types cannot be folded into a
            # base FUNC by libbpf's dedup, however alike their texts (OUT.local lists them).
            if (first > 1 && ownrefs(T[id], first)) print nm > (out ".local")
        }
        else if (k == "DATASEC") {
            n = split(ML[id], ln, "\n")
            for (i = 1; i < n; i++) {
                member(ln[i])
                v = MF["type_id"] + 0
                off = " @" MF["offset"] " size=" MF["size"]
                print "DATASEC " nm " " N[v] "\t" A[v, "linkage"] " " ty(T[v], N[v], 0) off tags(v) > out
            }
        } else if (nm == "(anon)" || k == "VAR" || k == "DECL_TAG" || k == "FUNC_PROTO") continue
        else if (k == "STRUCT" || k == "UNION" || k == "ENUM" || k == "ENUM64")
            print k " " nm "\t" body(id, 0) tags(id) > out
        else if (k == "TYPEDEF") print k " " nm "\t" ty(T[id], nm, 0) tags(id) > out
        else if (k == "INT")
            print k " " nm "\tsize=" A[id, "size"] " bits=" A[id, "nr_bits"] " " A[id, "encoding"] > out
        else if (k == "FLOAT") print k " " nm "\tsize=" A[id, "size"] > out
        else if (k == "FWD") print k " " nm "\t" A[id, "fwd_kind"] > out
    }
    close(out)
    if (first > 1) close(out ".local")
}
BEGIN {
    maxid = 0
    if (base != "") load(base)
    nbase = maxid
    if (basecanon != "") emit(1, basecanon)
}
{ load($1); emit(nbase + 1, $2); unload(nbase + 1) }
EOF
)
t=$(now)
# pahole's dumps over pahole's base, btforge's over btforge's: two awks, one per tool.
rm -f "$out"/mod/*/?.canon.local
for s in p b; do
    base_txt=$out/${s}base.txt
    for m in "${modules[@]}"; do
        d=$out/mod/$(basename "$m" .ko)
        [ "$(cat "$d/$s.rc")" = 0 ] && printf '%s %s\n' "$d/$s.txt" "$d/$s.canon"
    done > "$out/render-$s.list"
    nice awk -v base="$base_txt" -v basecanon="$out/${s}base.canon" "$render_awk" "$out/render-$s.list" &
done
wait
if [ -s "$v/p.txt" ]; then
    printf '%s %s\n' "$v/p.txt" "$v/p.canon" "$v/b.txt" "$v/b.canon" | awk -v base= "$render_awk"
fi
for f in "$out"/mod/*/?.canon "$out"/?base.canon "$v"/?.canon; do
    [ -e "$f" ] && sort -o "$f" "$f"
done
phase "render" "$t"

# Compare module by module; a FUNC one tool lacks gets both tools' reasons.
t=$(now)
units=()
[ "$vmlinux_too" = 1 ] && units+=("$v")
for m in "${modules[@]}"; do units+=("$out/mod/$(basename "$m" .ko)"); done
printf '%s\n' "${units[@]}" > "$out/units.list"
compare_awk=$(cat << 'EOF'
function readcanon(file, arr,   line, tab, key) {
    while ((getline line < file) > 0) {
        tab = index(line, "\t")
        key = substr(line, 1, tab - 1)
        arr[key] = (key in arr) ? arr[key] " || " substr(line, tab + 1) : substr(line, tab + 1)
    }
    close(file)
}
function readfile(file,   line, s) {
    s = ""
    while ((getline line < file) > 0) s = s line
    close(file)
    return s
}
# A prototype without its parameters' names (the last word before each ',' and ')').
function unnamed(s) { return gensub(/ \**[A-Za-z_][A-Za-z_0-9]*([,)])/, "\\1", "g", s) }
# The texts of A (joined by " || ") that B lacks, as a multiset.
function minus(a, b,   na, nb, x, y, i, j, used, r) {
    if (a == "") return ""
    na = split(a, x, / \|\| /); nb = (b == "") ? 0 : split(b, y, / \|\| /)
    r = ""
    for (i = 1; i <= na; i++) {
        for (j = 1; j <= nb; j++) if (!(j in used) && y[j] == x[i]) break
        if (j <= nb) { used[j] = 1; continue }
        r = r (r == "" ? "" : " || ") x[i]
    }
    return r
}
# The texts of V its TOOL's base has too are recorded as repeated; returns the others.
function repeats(v, base, key, tool,   n, x, i, r, rest) {
    if (v == "" || base == "") return v
    r = minus(v, base)
    rest = minus(v, r)
    n = (rest == "") ? 0 : split(rest, x, / \|\| /)
    for (i = 1; i <= n; i++)
        record(unit, key, "only " tool " type", \
            (tool == "pahole" ? "btforge" : "pahole") ": none; its base has the same " kindof(key) \
            " (the other repeats it) / " tool ": kept", "", "", tool == "pahole" ? x[i] : "", tool == "pahole" ? "" : x[i])
    return r
}
function kindof(key) { return substr(key, 1, index(key, " ") - 1) }
function nameof(key) { return substr(key, index(key, " ") + 1) }
function jstr(s, field,   re) { # the JSON string FIELD of one report line
    re = "\"" field "\":\"([^\"\\\\]|\\\\.)*\""
    if (!match(s, re)) return ""
    s = substr(s, RSTART + length(field) + 4, RLENGTH - length(field) - 5)
    gsub(/\\"/, "\"", s)
    return s
}
# Why the tool with no such line has none: its own reason, else what its base says.
function why_pahole(key, prend,   n) {
    n = nameof(key)
    if (kindof(key) != "FUNC") return inbase(PB, key, prend, "pahole")
    if (n in PS) return "pahole: " PS[n]
    return inbase(PB, key, prend, "pahole")
}
function why_btforge(key, brend,   n) {
    n = nameof(key)
    if (kindof(key) != "FUNC") return inbase(BB, key, brend, "btforge")
    if (n in BS) return "btforge: " BS[n]
    return inbase(BB, key, brend, "btforge")
}
function inbase(base, key, rend, tool) {
    if (!(key in base)) return tool ": no reason given"
    if (minus(rend, base[key]) != "") return tool ": none; its base has a " kindof(key) " of that name, other text"
    if (kindof(key) == "FUNC") return tool ": none; its base has the same FUNC (libbpf's dedup folds the module's into it)"
    return tool ": none; its base has the same " kindof(key) " (the other repeats it)"
}
function record(unit, key, what, cat, preason, breason, prend, brend,   line, c) {
    c = what " | " cat
    C[c]++
    if (EXN[c]++ < 3) EX[c] = EX[c] (EXN[c] > 1 ? ", " : "") unit ":" nameof(key)
    print unit "\t" kindof(key) "\t" nameof(key) "\t" what "\t" cat "\t" preason "\t" breason "\t" prend "\t" brend > tsv
    # A type one tool repeats from its base is listed once per module, by name only.
    if (cat ~ /the other repeats it/) {
        nrep++
        REP[what ~ /pahole/ ? "pahole" : "btforge"]++
        if (nrep <= 5) reps = reps (nrep > 1 ? ", " : "") kindof(key) " " nameof(key)
        return
    }
    udiff++
    if (kindof(key) == "FUNC") ufunc++
    line = "  " what ": " nameof(key)
    if (preason != "") line = line "\n      " preason
    if (breason != "") line = line "\n      " breason
    if (prend != "") line = line "\n      pahole's:  " prend
    if (brend != "") line = line "\n      btforge's: " brend
    body = body line "\n"
}
BEGIN {
    readcanon(pbasecanon, PB)
    readcanon(bbasecanon, BB)
    print "module\tkind\tname\twhat\tcategory\tpahole\tbtforge\tpahole_text\tbtforge_text" > tsv
}
{
    d = $0
    unit = readfile(d "/path"); sub(/.*\//, "", unit); sub(/\.ko$/, "", unit)
    nunits++
    prc = readfile(d "/p.rc"); brc = readfile(d "/b.rc")
    if (prc != "0" || brc != "0") {
        failed++
        print "== " unit ": " (prc != "0" ? "pahole failed (" prc ") " : "") (brc != "0" ? "btforge failed (" brc ")" : "") > report
        next
    }
    delete P; delete B; delete PS; delete BS; delete BR; delete PL
    readcanon(d "/p.canon", P)
    readcanon(d "/b.canon", B)
    while ((getline line < (d "/p.canon.local")) > 0) PL[line] = 1
    close(d "/p.canon.local")
    while ((getline line < (d "/p.skipped")) > 0) {
        n = line; sub(/ : skipping BTF encoding of function due to .*/, "", n)
        r = line; sub(/.*skipping BTF encoding of function due to /, "", r)
        PS[n] = r
    }
    close(d "/p.skipped")
    while ((getline line < (d "/b.json")) > 0) {
        n = jstr(line, "name")
        if (n == "") continue
        r = jstr(line, "reason"); x = jstr(line, "detail")
        BS[n] = r (x != "" ? " (" x ")" : "")
        BR[n] = r
    }
    close(d "/b.json")
    delete keys
    for (k in P) keys[k] = 1
    for (k in B) keys[k] = 1
    body = ""
    reps = ""
    udiff = ufunc = nrep = 0
    PROCINFO["sorted_in"] = "@ind_str_asc"
    for (k in keys) {
        kind = kindof(k); nm = nameof(k)
        group = (kind == "FUNC") ? "FUNC" : (kind == "DATASEC") ? "DATASEC" : "type"
        # (Tested with 'in' first: gawk 5.2 can abort on elements a lookup created.)
        pk = (k in P) ? P[k] : ""; bk = (k in B) ? B[k] : ""
        if (pk == bk) { EQ[group]++; continue }
        # Several types of one kind and name: compare them as multisets, and set aside the
        # ones only one tool has that equal one of that tool's base (repeated, not new).
        pv = minus(pk, bk); bv = minus(bk, pk)
        if (pv != pk || bv != bk) EQ[group]++
        if (group != "FUNC") { pv = repeats(pv, (k in PB) ? PB[k] : "", k, "pahole")
            bv = repeats(bv, (k in BB) ? BB[k] : "", k, "btforge") }
        if (pv != "" && bv != "") {
            cat = "other text"
            if (group == "FUNC") cat = unnamed(pv) == unnamed(bv) ? "parameter names only" : "types"
            record(unit, k, group == "FUNC" ? "FUNC prototype differs" : group " differs", cat, "", "", pv, bv)
        } else if (pv != "") {
            why = why_btforge(k, pv)
            cat = why
            if (kind == "FUNC" && (nm in BS)) cat = "btforge: " BR[nm]
            kept = "pahole: kept"
            if (kind == "FUNC" && why ~ /its base has the same FUNC/ && (nm in PL))
                kept = kept " (its prototype refers to types of its own, so the dedup did not fold it)"
            record(unit, k, "only pahole " group, cat " / " kept, "", why, pv, "")
        } else if (bv != "") {
            why = why_pahole(k, bv)
            record(unit, k, "only btforge " group, why " / btforge: kept", why, "", "", bv)
        }
    }
    delete PROCINFO["sorted_in"]
    if (nrep) {
        reps = "  and " nrep " type" (nrep > 1 ? "s" : "") " only one tool writes, the same as its base's " \
            "(it repeats them; differences.tsv lists them): " reps (nrep > 5 ? ", ..." : "")
        totrep += nrep
        withrep++
    }
    if (udiff) {
        differing++
        if (ufunc) funcdiff++
        print "== " unit " (" readfile(d "/path") "): " udiff " difference" (udiff > 1 ? "s" : "") > report
        printf "%s%s", body, (nrep ? reps "\n" : "") > report
    } else if (nrep) {
        onlyrep++
    } else equal++
}
END {
    print "units compared: " nunits + 0 " (vmlinux and/or modules; each tool's output against the other's)"
    print "  equal:                              " equal + 0
    print "  equal but for types repeated from the base: " onlyrep + 0
    print "  differing:                          " differing + 0 " (in FUNCs: " funcdiff + 0 ")"
    print "  a tool failed:                      " failed + 0
    printf "equal: %d FUNCs, %d named types, %d DATASEC entries\n", EQ["FUNC"], EQ["type"], EQ["DATASEC"]
    print "types repeated from the base: " totrep + 0 " in " withrep + 0 " units (pahole " REP["pahole"] + 0 ", btforge " REP["btforge"] + 0 ")"
    PROCINFO["sorted_in"] = "@ind_str_asc"
    for (c in C) {
        split(c, w, " \\| ")
        TOT[w[1]] += C[c]
    }
    print "differences:"
    for (w1 in TOT) printf "  %-28s %6d\n", w1, TOT[w1]
    print ""
    print "by category (what | the reason of the tool that has none / the other):"
    for (c in C) printf "%6d  %s\n          e.g. %s\n", C[c], c, EX[c]
}
EOF
)
: > "$out/report.txt"
awk -v pbasecanon="$out/pbase.canon" -v bbasecanon="$out/bbase.canon" \
    -v report="$out/report.txt" -v tsv="$out/differences.tsv" "$compare_awk" "$out/units.list" > "$out/summary.txt"
phase "compare" "$t"
phase "total" "$t0"
{
    cat "$out/base.txt"
    echo "pahole: $pahole ($("$pahole" --version)); $(cat "$tools/origin")"
    cat "$out/summary.txt"
} > "$out/summary.tmp" && mv "$out/summary.tmp" "$out/summary.txt"
cat "$out/summary.txt"
echo "full report: $out/report.txt (and differences.tsv); times: $timing" >&2
