#!/usr/bin/env bash
# pahole-linked.sh OUT_DIR KERNEL_DIR [ERE]: runs upstream pahole again on every module of a
# scripts/compare-pahole.sh run (OUT_DIR, common base), after linking the module into an
# executable, and compares its FUNC names with btforge's (OUT_DIR/mod/NAME/b.btf).
#
# Why: pahole reads a module (ET_REL) through libdwfl, which lays its sections out at made-up
# addresses (from 0x10000 on) and relocates the DWARF there, while pahole's symbol table keeps
# each symbol's section offset (st_value). Every comparison pahole makes between a function's
# DWARF address and its symbols' addresses (is the code at an .isra/.constprop symbol; which
# instance is at a symbol) therefore fails in modules, never in vmlinux. Linked into an
# executable (ld -r is not enough: that stays ET_REL), DWARF and symbols have the same absolute
# addresses, so pahole applies to the module the rules it applies to vmlinux.
#
# Writes, in OUT_DIR/linked/: NAME.skipped and NAME.names (pahole's skip lines and FUNC names
# for the linked module), summary.tsv (per module, the FUNC names only pahole on the linked
# module writes and only btforge writes) and differences.tsv (each FUNC difference of the
# original comparison but those the base has, with pahole's verdict on the linked module).
# ERE limits the modules. About 3 minutes for a kernel's 1,000 modules on 2 cores.
# Tools: $PAHOLE (default ../shared/tools/pahole-master/pahole beside the repository), ld
# (aarch64-linux-gnu-ld for arm64 modules), bpftool. One process at a time, niced.
set -euo pipefail
# Every run reads its base (-B) itself: none writes a cache (~/.cache/btforge).
export BTFORGE_BASE_CACHE=off
[ $# -ge 2 ] || { echo "usage: $0 OUT_DIR KERNEL_DIR [ERE]" >&2; exit 2; }
out=$(cd "$1" && pwd) kdir=$(cd "$2" && pwd) match=${3:-.}
mroot=$kdir/all-modules
[ -d "$mroot" ] || mroot=$kdir/modules
repo=$(cd "$(dirname "$0")/.." && pwd)
pahole=${PAHOLE:-$repo/../shared/tools/pahole-master/pahole}
features=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs
base=$out/base.btf
[ -s "$base" ] || { echo "error: $base: only common-base runs are supported" >&2; exit 1; }
mkdir -p "$out/linked"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

names() { # BTF: the FUNC names, sorted
    bpftool btf dump file "$1" -B "$base" | sed -n "s/^\[[0-9]*\] FUNC '\([^']*\)'.*/\1/p" | sort
}

summary=$out/linked/summary.tsv
printf 'module\tonly_pahole_linked\tonly_btforge\n' > "$summary"
for d in "$out"/mod/*/; do
    name=$(basename "$d")
    [[ $name =~ $match ]] || continue
    [ -s "$d/b.btf" ] || continue
    ko=$mroot/$(sed -n 1p "$d/path")
    [ -f "$ko" ] || { echo "$name: $ko not found" >&2; continue; }
    case "$(readelf -h "$ko" | sed -n 's/^ *Machine: *//p')" in
    *AArch64*) ld=aarch64-linux-gnu-ld ;;
    *) ld=ld ;;
    esac
    if ! nice -n 19 "$ld" -o "$tmp/m.exe" --unresolved-symbols=ignore-all -e 0 \
        --no-warn-rwx-segments "$ko" 2> "$tmp/ld.err"; then
        echo "$name: ld failed: $(head -1 "$tmp/ld.err")" >&2
        continue
    fi
    nice -n 19 "$pahole" -J --btf_features="$features" --lang_exclude=rust --btf_base "$base" \
        --btf_encode_detached="$tmp/m.btf" --verbose "$tmp/m.exe" 2> /dev/null |
        grep -F 'skipping BTF encoding of function' > "$out/linked/$name.skipped" || true
    names "$tmp/m.btf" > "$out/linked/$name.names"
    names "$d/b.btf" > "$tmp/b.names"
    onlyp=$(comm -23 "$out/linked/$name.names" "$tmp/b.names" | paste -sd' ')
    onlyb=$(comm -13 "$out/linked/$name.names" "$tmp/b.names" | paste -sd' ')
    printf '%s\t%s\t%s\n' "$name" "$onlyp" "$onlyb" >> "$summary"
    rm -f "$tmp/m.exe" "$tmp/m.btf"
done

# Every FUNC difference of the original comparison (but those the base has: they do not depend
# on the rules) with what pahole says of it once the module is linked.
verdicts=$out/linked/differences.tsv
printf 'module\tname\tcategory\tpahole_on_linked_module\n' > "$verdicts"
awk -F'\t' '$2 == "FUNC" && $4 ~ /^only/ && $5 !~ /base has the same/ && $1 != "vmlinux" {
    c = $5; sub(/ \(.*/, "", c); print $1 "\t" $3 "\t" c }' "$out/differences.tsv" |
    while IFS=$'\t' read -r m f c; do
        [ -f "$out/linked/$m.names" ] || continue
        if grep -qx -- "$f" "$out/linked/$m.names"; then
            v=kept
        else
            v=$(awk -v f="$f : " 'index($0, f) == 1 { sub(/.*due to /, ""); print; exit }' \
                "$out/linked/$m.skipped")
            v=${v:-not written, no reason given}
        fi
        printf '%s\t%s\t%s\t%s\n' "$m" "$f" "$c" "$v"
    done | sort >> "$verdicts"
