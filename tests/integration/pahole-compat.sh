#!/usr/bin/env bash
# pahole-compat.sh program ELF | kernel VMLINUX | module VMLINUX MODULE
# `btforge pahole-compat ARGS` and a `pahole` link to btforge, as kernel builds call them:
#  - `pahole --help` describes the options;
#  - `pahole --version`, parsed as the kernel's scripts/pahole-version.sh parses it, is a number
#    the kernel accepts (>= 116 for BTF at all; >= 119 split BTF, >= 125 the flags below);
#  - each pahole argument list writes, with --btf_encode_detached, byte for byte what the
#    btforge convert command written here next to it writes (switches spelt out by hand from
#    pahole's manual and pahole.c; without --btf_features the set is pahole's legacy one
#    (var, decl_tag, type_tag, enum64) that the legacy switches change; `+LIST` is the default
#    set and LIST; every language unless --lang_exclude);
#  - bad arguments, and unknown features under --btf_features_strict, are
#    refused with a usage error naming them, and write nothing;
#  - --verbose prints one line per skipped function, the functions --report-skipped lists;
#  - -J without --btf_encode_detached writes .BTF into the ELF (convert --in-place);
#  - without -J, `pahole FILE` prints the layouts `convert FILE -t layout` prints (layout.sh
#    holds them to upstream pahole's);
#  - kernel: the kernel accepts what a kernel build's flags make of vmlinux.
source "$(dirname "$0")/lib.sh"
mode=$1
shift
case "$mode" in
program) input=$1 base="" ;;
kernel) input=$1 base="" ;;
module) base=$1 input=$2 ;;
*) fail "unknown mode $mode" ;;
esac
require_file "$input" "fetch it with scripts/fetch-debian-kernel.sh"
[ -z "$base" ] || require_file "$base"
# kernel: vmlinux, its copy with .BTF and what objcopy dumps, below.
[ "$mode" != kernel ] || require_copies 3 "$input"

mkdir "$work/bin"
ln -s "$BTFORGE" "$work/bin/pahole"
pahole() { PATH="$work/bin:$PATH" command pahole "$@"; }

pahole --help | grep -- "--btf_encode_detached" > /dev/null || fail "pahole --help lacks the options"

# --- --version, as scripts/pahole-version.sh reads it ---
version=$(pahole --version | sed -E 's/v([0-9]+)\.([0-9]+)/\1\2/')
[[ $version =~ ^[0-9]+$ ]] && [ "$version" -ge 125 ] || fail "pahole --version gives '$version'"
[ "$("$BTFORGE" pahole-compat --version)" = "$(pahole --version)" ] || fail "the two --version differ"
echo "pahole --version -> $(pahole --version) -> $version"

# --- argument translation: each row is 'pahole args' and 'the equivalent convert args' ---
row=0
same() { # "pahole args" "convert args" (INPUT, BASE and the output file are added)
    row=$((row + 1))
    local b=() cb=()
    [ -z "$base" ] || b=(--btf_base "$base") cb=(-B "$base")
    # shellcheck disable=SC2086
    pahole $1 "${b[@]}" --btf_encode_detached="$work/p$row.btf" "$input" ||
        fail "pahole $1 failed"
    eval '"$BTFORGE" --quiet convert "$input" "${cb[@]}" -o "$work/c$row.btf"' "$2"
    cmp "$work/p$row.btf" "$work/c$row.btf" || fail "pahole $1 differs from convert $2"
    echo "  pahole $1 == btforge convert $2 ($(stat -c %s "$work/c$row.btf") bytes)"
}
echo "argument translation:"
if [ "$mode" = kernel ]; then
    # The flags a 6.1 kernel's scripts/pahole-flags.sh passes pahole 1.24: the legacy set.
    same "-J -j --btf_gen_floats --lang_exclude=rust" "--features var,float,decl_tag,type_tag,enum64"
    # And into the ELF, as link-vmlinux.sh runs it: on a vmlinux whose linked-in .BTF is renamed
    # out of the way (the state of .tmp_vmlinux.btf before pahole runs).
    objcopy --rename-section .BTF=.BTF.linked "$input" "$work/vmlinux"
    pahole -J -j --btf_gen_floats --lang_exclude=rust "$work/vmlinux" || fail "pahole -J failed"
    objcopy --dump-section .BTF="$work/vmlinux.btf" "$work/vmlinux" "$work/scratch"
    rm -f "$work/vmlinux" "$work/scratch"
    cmp "$work/vmlinux.btf" "$work/c1.btf" || fail "pahole -J wrote another .BTF than convert"
    "$BTF_ORACLE" parse "$work/vmlinux.btf" || fail "libbpf rejects the .BTF"
    require_kernel_accepts "$work/vmlinux.btf"
    echo "a 6.1 kernel build's pahole flags write into vmlinux the .BTF convert writes; the kernel accepts it"
    exit 0
fi
same "-J" "--features var,decl_tag,type_tag,enum64 --lang-exclude ''"
same "-J -j --btf_gen_floats --lang_exclude=rust" "--features var,float,decl_tag,type_tag,enum64"
same "-J -j2 --lang_exclude rust --skip_encoding_btf_vars --skip_encoding_btf_decl_tag" \
    "--features type_tag,enum64"
same "-J --btf_gen_all" "--features default --lang-exclude ''"
same "-J --btf_features=+global_var --lang_exclude=rust" "--features default,global_var"
same "-J --btf_features=no_such_feature" "--features none --lang-exclude ''"
same "-J --jobs=3 --btf_features=default --lang_exclude=rust" "--lang-exclude rust"
same "-J --btf_features=encode_force,var,float,no_such_feature --reproducible_build" \
    "--features encode_force,var,float --lang-exclude ''"
same "-J --btf_features_strict=decl_tag,var --btf_features=global_var" \
    "--features decl_tag,var,global_var --lang-exclude ''"
same "-J --btf_features_strict=+attributes" "--features default,attributes --lang-exclude ''"

# --- refusals: usage errors (exit 2) naming the problem, no output ---
refused() { # expected-message pahole-args...
    local message=$1
    shift
    set +e
    pahole "$@" > "$work/refused.out" 2>&1
    local status=$?
    set -e
    [ "$status" = 2 ] || fail "pahole $* exits $status, not 2"
    grep -qF -- "$message" "$work/refused.out" || fail "pahole $*: '$(cat "$work/refused.out")' lacks '$message'"
    [ ! -e "$work/refused.btf" ] || fail "pahole $* wrote output"
    echo "  refused: pahole $* -> $(cat "$work/refused.out")"
}
echo "refusals:"
refused "'--no_such_option'" -J --no_such_option --btf_encode_detached="$work/refused.btf" "$input"
refused "'no_such_feature'" -J --btf_features_strict=var,no_such_feature \
    --btf_encode_detached="$work/refused.btf" "$input"
refused "needs -J" --btf_features=default "$input"
refused "more than one input" -J --btf_encode_detached="$work/refused.btf" "$input" "$input"
refused "-jx" -J -jx --btf_encode_detached="$work/refused.btf" "$input"

# --- without -J: layouts, as convert -t layout prints them ---
pahole "$input" > "$work/layout.pahole" || fail "pahole FILE failed"
"$BTFORGE" convert "$input" -t layout -o - --lang-exclude "" > "$work/layout.convert"
cmp "$work/layout.pahole" "$work/layout.convert" || fail "pahole prints other layouts than convert"
struct=$(pahole -s "$input" | head -1 | cut -f1)
if [ -n "$struct" ]; then
    pahole -C "$struct" "$input" > "$work/layout.pahole" || fail "pahole -C failed"
    "$BTFORGE" convert "$input" -t layout -o - --lang-exclude "" -C "$struct" \
        > "$work/layout.convert"
    cmp "$work/layout.pahole" "$work/layout.convert" || fail "pahole -C prints other layouts"
    [ -s "$work/layout.pahole" ] || fail "pahole -C $struct printed nothing"
fi
echo "  pahole FILE and pahole -C NAME FILE print what convert FILE -t layout prints"

# --- --verbose: pahole's skip lines, the functions --report-skipped lists ---
pahole --verbose --btf_features=default --btf_encode_detached="$work/verbose.btf" "$input" \
    > "$work/verbose.out" || fail "pahole --verbose failed"
"$BTFORGE" --quiet convert "$input" -o "$work/report.btf" --report-skipped "$work/report.json"
grep -o '"name":"[^"]*"' "$work/report.json" | cut -d'"' -f4 | sort > "$work/report.names" || true
sed -n 's/^\([^ ]*\) : skipping BTF encoding of function due to .*/\1/p' "$work/verbose.out" |
    sort > "$work/verbose.names"
cmp "$work/report.names" "$work/verbose.names" || fail "pahole --verbose lists other functions"
[ "$(wc -l < "$work/verbose.out")" = "$(wc -l < "$work/verbose.names")" ] ||
    fail "pahole --verbose prints more than skip lines: $(head -3 "$work/verbose.out")"
echo "  pahole --verbose: $(wc -l < "$work/verbose.names") skip lines, as --report-skipped"

# --- -J: .BTF into the ELF itself (convert --in-place) ---
if [ "$mode" = program ]; then
    cp "$input" "$work/elf"
    pahole -J --btf_features=default "$work/elf" || fail "pahole -J failed"
    objcopy=$(command -v objcopy || command -v llvm-objcopy-19)
    "$objcopy" --dump-section .BTF="$work/elf.btf" "$work/elf" "$work/scratch.o"
    "$BTFORGE" --quiet convert "$input" -o "$work/want.btf" --lang-exclude ""
    cmp "$work/elf.btf" "$work/want.btf" || fail "pahole -J wrote another .BTF than convert"
    echo "  pahole -J wrote the .BTF convert writes into a copy of the ELF"
fi
echo "pahole-compat: $row argument lists equal to their convert commands, refusals clear"
