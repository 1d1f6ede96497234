#!/usr/bin/env bash
# module-pahole.sh VMLINUX MODULE: a kernel module's DWARF as split BTF over vmlinux's .BTF,
# against what pahole makes of the same module: the .BTF the distribution's kernel build put in
# the module, and, when dwarves' pahole is installed, a fresh `pahole -J --btf_base` run.
#  - libbpf parses the output as split BTF over the vmlinux, and bpftool dumps it;
#  - named STRUCT/UNION/ENUM/ENUM64/TYPEDEF/FWD/INT/FLOAT, VARs and DATASECs equal pahole's,
#    arrays spelt as the base spells them; a type only pahole has must be one it repeated from
#    the base (libbpf's dedup gives up on some), never one btforge lacks;
#  - every FUNC only one side has, or that differs, is explained (docs/kernel-build.md);
#  - -j1 and -j2 give byte-identical output, and so does the base given as raw BTF;
#  - the module's bytes are unchanged (its DWARF is relocated in memory).
source "$(dirname "$0")/lib.sh"
vmlinux=$1 module=$2
require_file "$vmlinux" "fetch it with scripts/fetch-debian-kernel.sh"
require_file "$module" "fetch it with scripts/fetch-debian-kernel.sh"

# The base: vmlinux's .BTF; for a kernel built without BTF (Debian's s390x), what Debian's
# pahole 1.24 makes of it, as a build with BTF would have.
base=$vmlinux
if ! section_bytes "$vmlinux" .BTF "$work/base.btf"; then
    command -v pahole > /dev/null && [ "$(pahole --version)" = v1.24 ] ||
        skip "$vmlinux has no .BTF, and no pahole 1.24 is here to make one"
    pahole -J -j2 --btf_gen_floats --lang_exclude=rust --btf_encode_detached="$work/base.btf" \
        "$vmlinux" > /dev/null
    base=$work/base.btf
fi

module_sum=$(sha256sum < "$module")
convert() { # jobs output
    "$BTFORGE" --quiet -j "$1" convert -B "$base" "$module" -o "$2" --report-skipped "$2.skipped.json"
}
convert 2 "$work/ours.btf"
convert 1 "$work/j1.btf"
cmp "$work/ours.btf" "$work/j1.btf" || fail "-j1 output differs from -j2"
# Its DWARF was relocated in a private mapping: the file itself is never written.
[ "$(sha256sum < "$module")" = "$module_sum" ] || fail "converting it changed $module"
"$BTF_ORACLE" parse "$work/ours.btf" "$base" || fail "libbpf rejects the output as split BTF"
# The base as raw BTF (what /sys/kernel/btf/vmlinux is) gives the same output as the ELF.
"$BTFORGE" --quiet convert -B "$work/base.btf" "$module" -o "$work/raw-base.btf"
cmp "$work/ours.btf" "$work/raw-base.btf" || fail "a raw BTF base gives another output than the ELF"
"$BPFTOOL" -B "$base" btf dump file "$work/ours.btf" > "$work/ours.txt" || fail "bpftool cannot dump it"
"$BPFTOOL" btf dump file "$base" > "$work/base.txt"
readelf -sW "$module" > "$work/symbols.txt"

oracles=()
section_bytes "$module" .BTF "$work/embedded.btf" &&
    oracles+=("$work/embedded.btf")
pahole=$(command -v pahole || true)
if [ -n "$pahole" ] && [ "$(readlink -f "$pahole")" != "$(readlink -f "$BTFORGE")" ]; then
    "$pahole" -J --btf_gen_floats --lang_exclude=rust --btf_base "$base" \
        --btf_encode_detached="$work/pahole.btf" "$module" > /dev/null
    oracles+=("$work/pahole.btf")
fi
[ "${#oracles[@]}" -gt 0 ] || skip "neither the module's .BTF nor pahole to compare with"

# A type only pahole has is explained if the base has it: pahole repeated it instead of
# referring to it. Named: the base has one of that kind and name. Anonymous: the base has one
# of that kind with the same member names.
in_base() { # kind name description
    if [ "$2" != "(anonymous" ]; then
        grep -qF "] $1 '$2' " "$work/base.txt"
        return
    fi
    local members
    members=$(sed -e 's/^[^{]*{//' -e 's/}[^}]*$//' <<< "$3" | tr ';' '\n' |
        sed -e 's/:[ 0-9]*$//' -e 's/\[[0-9]*\]//g' | grep -oE '[A-Za-z_][A-Za-z_0-9]*$' | paste -sd,)
    awk -v kind="$1" -v want="$members" '
        function check() { if (open && got == want) found = 1 }
        /^\[/ { check(); open = ($2 == kind && $3 == "\x27(anon)\x27"); got = ""; next }
        open { n = $1; gsub("\x27", "", n); got = got (got == "" ? "" : ",") n }
        END { check(); exit !found }' "$work/base.txt"
}

unexplained=0
for oracle in "${oracles[@]}"; do
    name=$(basename "$oracle" .btf)
    set +e
    "$BTFORGE" diff -f btf -B "$base" --max 100000 \
        --kinds STRUCT,UNION,ENUM,ENUM64,TYPEDEF,FWD,INT,FLOAT,VAR,DATASEC \
        "$work/ours.btf" "$oracle" > "$work/$name.types"
    set -e
    echo "== types against $name: $(grep '^total' "$work/$name.types")"
    while IFS= read -r line; do
        kind=${line%% *} rest=${line#* }
        tname=${rest%%: *}
        case "$line" in
        *": only in B: "*)
            if in_base "$kind" "${tname%%:*}" "${line#*: only in B: }"; then
                echo "  $kind $tname: pahole repeats the base's"
            else
                echo "  UNEXPLAINED: $line"
                unexplained=$((unexplained + 1))
            fi ;;
        *) echo "  UNEXPLAINED: $line"; unexplained=$((unexplained + 1)) ;;
        esac
    done < <(grep -E '^[A-Z0-9_]+ .*: (only in [AB]|.* -> )' "$work/$name.types" || true)

    # FUNCs, with the reason each side leaves one out.
    set +e
    "$BTFORGE" diff -f btf -B "$base" --max 100000 --kinds FUNC \
        "$work/ours.btf" "$oracle" > "$work/$name.funcs"
    set -e
    echo "== FUNCs against $name: $(grep '^total' "$work/$name.funcs")"
    while IFS= read -r line; do
        fname=${line#FUNC } fname=${fname%%:*}
        reason=""
        case "$line" in
        *": only in A: "*)
            if grep -qF "] FUNC '$fname' " "$work/base.txt"; then
                reason="the base has a FUNC of this name: libbpf's dedup folds the module's into it"
            elif grep -qE " $fname(\.(isra|constprop)\.[0-9]+)+$" "$work/symbols.txt" &&
                ! grep -qE " FUNC .* $fname$" "$work/symbols.txt"; then
                reason="only a compiler clone's symbol ($fname.isra/.constprop): pahole < 1.25 matches symbols by exact name"
            fi ;;
        *": only in B: "*)
            reason=$(sed -n "s/^{\"name\":\"$fname\",\"reason\":\"\([^\"]*\)\".*/btforge skips it: \1/p" \
                "$work/ours.btf.skipped.json")
            grep -qF "] FUNC '$fname' " "$work/ours.txt" &&
                reason="pahole < 1.31 writes one FUNC per definition, btforge one per name" ;;
        *)
            # Several definitions (a __weak default and its override): btforge describes the one
            # at the symbol's address, pahole < 1.31 the first it reads.
            dwarfdump=$(command -v llvm-dwarfdump-19 || command -v llvm-dwarfdump || true)
            [ -n "$dwarfdump" ] &&
                "$dwarfdump" --name="$fname" "$module" > "$work/dies.txt" &&
                [ "$(grep -c DW_AT_low_pc "$work/dies.txt")" -ge 2 ] &&
                reason="several definitions; btforge's is the one at the symbol" ;;
        esac
        echo "  $line${reason:+  [$reason]}"
        [ -n "$reason" ] || { echo "  UNEXPLAINED"; unexplained=$((unexplained + 1)); }
    done < <(grep -E '^FUNC [^ ]+: ' "$work/$name.funcs" || true)
done
[ "$unexplained" = 0 ] || fail "$unexplained differences from pahole nobody explains"
echo "split BTF libbpf parses; types equal to pahole's but for its repeats of base types; FUNC differences explained"
