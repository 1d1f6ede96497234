#!/usr/bin/env bash
# sweep-dbg-packages.sh OUT_DIR PKG[:ARCH]...: btforge on every debug file of Debian '-dbg'
# packages, against tools nobody here wrote. Real programs show patterns the kernel and the test
# inputs do not (gcc LTO partitions, parameters relisted in lexical blocks, declarations several
# units resolve differently); this is how they were found.
#
# Each package is downloaded (apt-get download, any architecture dpkg knows) into
# $BTFORGE_CACHE/dbg-packages (default /var/cache/btforge) and unpacked there; nothing is written
# into the repository. For every ELF file with DWARF the package holds (debug files under
# usr/lib/debug, by build id or by path, and unstripped objects elsewhere such as grub's modules;
# not dwz's shared files, which are read through the files that refer to them):
#   FAIL     btforge could not convert it (its error);
#   DEDUP    btforge's BTF is not libbpf's btf__dedup of the same types (btforge --no-dedup,
#            then btf-oracle dedup): by type count, or by meaning (btforge diff);
#   READERS  the libdw and LLVM readers wrote different bytes (files the LLVM reader refuses,
#            dwz's, are skipped with its one-line reason);
#   FUNCS    the FUNCs differ from upstream pahole master's (--btf_features=default): each FUNC
#            only master writes with btforge's reason for leaving it out (--report-skipped),
#            each only btforge writes with master's (--verbose).
# OUT_DIR/report.txt has every line, OUT_DIR/summary.txt the counts (also printed).
# Tools: $BTFORGE (default build/release/bin/btforge), $BTF_ORACLE (build/release/bin/btf-oracle),
# $PAHOLE (../shared/tools/pahole-master/pahole beside the repository).
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 OUT_DIR PKG[:ARCH]..." >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
btforge=${BTFORGE:-$root/build/release/bin/btforge}
oracle=${BTF_ORACLE:-$root/build/release/bin/btf-oracle}
pahole=${PAHOLE:-$root/../shared/tools/pahole-master/pahole}
for tool in "$btforge" "$oracle" "$pahole"; do
    [ -x "$tool" ] || { echo "error: $tool: not an executable (build first)" >&2; exit 1; }
done
mkdir -p "$1"
out=$(cd "$1" && pwd)
shift
cache=${BTFORGE_CACHE:-/var/cache/btforge}/dbg-packages
mkdir -p "$cache"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: > "$out/report.txt"

# report KIND FILE TEXT: one line of the report, printed as it comes.
report() {
    echo "$1 $2 $3" | tee -a "$out/report.txt"
}

# funcs BTF: the FUNC names of a BTF file, sorted (btforge reads libbpf 1.8's longer header in
# either byte order, which Debian's bpftool does not).
funcs() {
    "$btforge" --quiet dump "$1" | awk '$2 == "FUNC" { gsub("\047", "", $3); print $3 }' |
        LC_ALL=C sort
}

# reasons FILE NAMES...: "NAME (REASON)" for each name, from btforge's skip list of FILE.
reasons() {
    local file=$1
    shift
    [ $# -gt 0 ] || return 0
    printf '%s\n' "$@" | LC_ALL=C sort > "$tmp/names"
    sed -n 's/^\([^ ]*\) : skipping BTF encoding of function due to \(.*\)$/\1\t\2/p' "$file" |
        LC_ALL=C sort -t "$(printf '\t')" -k1,1 | LC_ALL=C join -t "$(printf '\t')" -a1 "$tmp/names" - |
        awk -F '\t' '{ printf "%s (%s) ", $1, ($2 == "" ? "no reason given" : $2) }'
}

# check FILE NAME: every comparison above for one debug file.
check() {
    local file=$1 name=$2 ours theirs
    if ! "$btforge" --quiet convert "$file" -o "$tmp/ours.btf" --list-skipped \
        > "$tmp/ours.skipped" 2> "$tmp/err"; then
        report FAIL "$name" "$(head -1 "$tmp/err")"
        return
    fi
    "$btforge" --quiet convert "$file" --no-dedup -o "$tmp/raw.btf"
    ours=$("$oracle" parse "$tmp/ours.btf")
    theirs=$("$oracle" dedup "$tmp/raw.btf" "" "$tmp/libbpf.btf")
    if [ "$ours" != "$theirs" ] ||
        ! "$btforge" --quiet diff -f btf "$tmp/libbpf.btf" "$tmp/ours.btf" > /dev/null; then
        report DEDUP "$name" "btforge $ours, libbpf's dedup $theirs"
    fi
    if "$btforge" --quiet convert -f llvm-dwarf "$file" -o "$tmp/llvm.btf" 2> "$tmp/err"; then
        cmp -s "$tmp/ours.btf" "$tmp/llvm.btf" || report READERS "$name" "the two readers differ"
    else
        echo "skip-llvm $name $(head -1 "$tmp/err")" >> "$out/report.txt"
    fi
    # pahole writes next to its input: a copy, so the cache stays as unpacked.
    cp "$file" "$tmp/input"
    rm -f "$tmp/master.btf"
    if ! "$pahole" -J --verbose --btf_features=default --btf_encode_detached="$tmp/master.btf" \
        "$tmp/input" > "$tmp/master.log" 2>&1 || [ ! -s "$tmp/master.btf" ]; then
        local why
        why=$(grep -v skipping "$tmp/master.log" | head -1 || true)
        echo "skip-pahole $name ${why:-(no BTF written, no message)}" >> "$out/report.txt"
        return
    fi
    funcs "$tmp/ours.btf" > "$tmp/ours.funcs"
    funcs "$tmp/master.btf" > "$tmp/master.funcs"
    local -a only_master only_ours
    mapfile -t only_master < <(LC_ALL=C comm -13 "$tmp/ours.funcs" "$tmp/master.funcs")
    mapfile -t only_ours < <(LC_ALL=C comm -23 "$tmp/ours.funcs" "$tmp/master.funcs")
    local text=""
    [ ${#only_master[@]} -eq 0 ] ||
        text+="; only master: $(reasons "$tmp/ours.skipped" "${only_master[@]}")"
    [ ${#only_ours[@]} -eq 0 ] ||
        text+="; only btforge: $(reasons "$tmp/master.log" "${only_ours[@]}")"
    [ -z "$text" ] || report FUNCS "$name" \
        "btforge $(wc -l < "$tmp/ours.funcs"), master $(wc -l < "$tmp/master.funcs")$text"
}

files=0
for package in "$@"; do
    # One directory per package and architecture: the .deb, and the tree it unpacks to.
    dir=$cache/${package/:/_}
    mkdir -p "$dir"
    if ! ls "$dir"/*.deb > /dev/null 2>&1; then
        (cd "$dir" && apt-get download "$package" > "$tmp/apt.log" 2>&1) ||
            { echo "error: $package: $(grep '^E:' "$tmp/apt.log" | head -1)" >&2; exit 1; }
    fi
    if [ ! -d "$dir/tree" ]; then
        rm -rf "$dir/tree.partial"
        dpkg-deb -x "$dir"/*.deb "$dir/tree.partial"
        mv "$dir/tree.partial" "$dir/tree"
    fi
    while IFS= read -r file; do
        [ "$(head -c 4 "$file" | od -An -tx1 | tr -d ' ')" = 7f454c46 ] || continue
        readelf -S "$file" > "$tmp/sections" 2> /dev/null || continue
        grep -q '\.debug_info' "$tmp/sections" || continue
        files=$((files + 1))
        check "$file" "$package:${file#"$dir"/tree/}"
    done < <(find "$dir/tree" -type f -not -path '*/usr/share/*' -not -path '*/.dwz/*' 2> /dev/null | LC_ALL=C sort)
done

{
    echo "$files debug files of $# packages"
    for kind in FAIL DEDUP READERS FUNCS; do
        echo "$kind $(grep -c "^$kind " "$out/report.txt" || true)"
    done
    echo "llvm reader refused $(grep -c '^skip-llvm ' "$out/report.txt" || true), pahole failed $(grep -c '^skip-pahole ' "$out/report.txt" || true)"
} | tee "$out/summary.txt"
