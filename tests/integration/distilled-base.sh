#!/usr/bin/env bash
# distilled-base.sh VMLINUX MODULE TOOLS: feature distilled_base on a kernel module (split BTF
# over a distilled base in .BTF.base, written with --elf), against upstream: libbpf master and
# upstream pahole master from TOOLS (../shared/tools). Skips without them.
#  - libbpf master parses .BTF.base, .BTF over it, the module ELF (as the kernel reads it), and
#    relocates the module's BTF onto the real base (btf__relocate, what the kernel does at load);
#  - btforge's .BTF.base and .BTF dump (bpftool) exactly as libbpf's btf__distill_base of
#    btforge's own plain split BTF of the module (tests/tools/btf-distill.c);
#  - upstream pahole master's -J --btf_features=distilled_base output is, dumped the same way,
#    libbpf's distillation of its own plain split BTF: the same rule as above, so upstream
#    writes what btforge writes for the same split BTF; and btforge diff tells the two modules'
#    distilled outputs apart by what tells their plain outputs apart, nothing more;
#  - pahole-compat -J with the feature writes the same sections;
#  - the module is read over its .BTF.base, and relocated onto a base given with -B as libbpf
#    master relocates it (btforge's module and upstream's);
#  - raw output with the feature: a warning, and the plain split BTF.
source "$(dirname "$0")/lib.sh"
vmlinux=$1 module=$2 tools=$3
require_file "$vmlinux" "fetch it with scripts/fetch-debian-kernel.sh"
require_file "$module" "fetch it with scripts/fetch-debian-kernel.sh"
btf_check=$tools/libbpf-master/btf-check
require_file "$btf_check" "libbpf master's btf-check"
require_file "$tools/pahole-master/pahole" "upstream pahole master"
gcc -O1 -I "$tools/libbpf-master/include" -o "$work/btf-distill" \
    "$(dirname "$0")/../tools/btf-distill.c" "$tools/libbpf-master/lib/libbpf.a" -lelf -lz ||
    skip "cannot build btf-distill against libbpf master"
runnable_copy "$tools/pahole-master" "$work/pahole"
"$work/pahole/pahole" --version > "$work/version.txt" || skip "upstream pahole does not run here"

# The base both encoders get: vmlinux's .BTF; for a kernel built without BTF (Debian's s390x),
# btforge's BTF of its vmlinux (an input to both sides, not an expectation).
base=$work/base.btf
section_bytes "$vmlinux" .BTF "$base" || "$BTFORGE" -q convert "$vmlinux" -o "$base"

# dumps SPLIT BASE OUT: bpftool's dumps of BASE (OUT.base.txt) and of SPLIT over it
# (OUT.split.txt).
dumps() {
    "$BPFTOOL" btf dump file "$2" > "$3.base.txt" || fail "bpftool cannot dump $2"
    "$BPFTOOL" -B "$2" btf dump file "$1" > "$3.split.txt" || fail "bpftool cannot dump $1 over $2"
}
# distilled KO PREFIX: KO's .BTF and .BTF.base as PREFIX.btf and PREFIX.base.
distilled() {
    section_bytes "$1" .BTF "$2.btf" || fail "$1 has no .BTF"
    section_bytes "$1" .BTF.base "$2.base" || fail "$1 has no .BTF.base"
}

# btforge: the module written with the feature, and its plain split BTF.
"$BTFORGE" -q convert "$module" -B "$base" --features default,distilled_base --elf \
    -o "$work/ours.ko"
"$BTFORGE" -q convert "$module" -B "$base" -o "$work/ours-plain.btf"
distilled "$work/ours.ko" "$work/ours"
"$btf_check" "$work/ours.base" >> "$work/tools.out" || fail "libbpf master refuses .BTF.base"
"$btf_check" "$work/ours.btf" "$work/ours.base" >> "$work/tools.out" ||
    fail "libbpf master refuses .BTF over .BTF.base"
"$btf_check" "$work/ours.ko" >> "$work/tools.out" || fail "libbpf master refuses the module"
"$btf_check" "$work/ours.ko" "$base" >> "$work/tools.out" ||
    fail "libbpf master cannot relocate the module's BTF onto its base"

# The same split BTF distilled by libbpf.
"$work/btf-distill" "$work/ours-plain.btf" "$base" "$work/lib.btf" "$work/lib.base"
dumps "$work/ours.btf" "$work/ours.base" "$work/ours"
dumps "$work/lib.btf" "$work/lib.base" "$work/lib"
for part in base split; do
    diff -u "$work/lib.$part.txt" "$work/ours.$part.txt" > "$work/diff.$part" ||
        fail "btforge's distilled $part differs from libbpf's: $(head -20 "$work/diff.$part")"
done
echo "$(grep -c '^\[' "$work/ours.base.txt") types in .BTF.base, $(grep -c '^\[' "$work/ours.split.txt") in .BTF: as libbpf distils them"

# Upstream pahole master, the same module, base and features.
cp "$module" "$work/up.ko"
chmod u+w "$work/up.ko"
"$work/pahole/pahole" -J --btf_features=default,distilled_base --btf_base "$base" "$work/up.ko" \
    >> "$work/tools.out"
"$work/pahole/pahole" -J --btf_features=default --btf_base "$base" \
    --btf_encode_detached="$work/up-plain.btf" "$module" >> "$work/tools.out"
distilled "$work/up.ko" "$work/up"
"$work/btf-distill" "$work/up-plain.btf" "$base" "$work/uplib.btf" "$work/uplib.base"
# In this machine's byte order: bpftool reads other orders only with the classic header.
"$work/btf-distill" --native "$work/up.base" "$work/up-native.base"
"$work/btf-distill" --native "$work/up.btf" "$work/up.base" "$work/up-native.btf"
dumps "$work/up-native.btf" "$work/up-native.base" "$work/up"
dumps "$work/uplib.btf" "$work/uplib.base" "$work/uplib"
for part in base split; do
    cmp -s "$work/up.$part.txt" "$work/uplib.$part.txt" ||
        fail "upstream pahole's distilled $part is not libbpf's distillation of its split BTF"
done

# btforge diff, which compares the types a split BTF has of its own: the distilled outputs differ
# where the plain ones do, but for TYPEDEFs distillation copied from the base into either side's
# .BTF (the only named kind it copies), each of them a typedef of the base.
differences() { # A B [BASE]: the counts and the differences listed, TYPEDEFs apart
    "$BTFORGE" diff --max 100000 ${3:+-B "$3"} "$1" "$2" > "$work/diff.out" || true
    sed -n '/^kind /,$p' "$work/diff.out" | grep -v '^\(TYPEDEF\|total\) ' | sort > "$4"
    grep '^TYPEDEF .*: only in [AB]: ' "$work/diff.out" | sort > "$4.typedefs" || true
}
differences "$work/ours-plain.btf" "$work/up-plain.btf" "$base" "$work/plain.diff"
differences "$work/ours.ko" "$work/up.ko" "" "$work/distilled.diff"
diff -u "$work/plain.diff" "$work/distilled.diff" > "$work/diffs.diff" ||
    fail "btforge and upstream pahole differ otherwise with distilled_base: $(head -30 "$work/diffs.diff")"
"$BPFTOOL" btf dump file "$base" > "$work/base.txt"
comm -13 "$work/plain.diff.typedefs" "$work/distilled.diff.typedefs" | while read -r _ name _; do
    grep -qF "] TYPEDEF '${name%:}' " "$work/base.txt" ||
        fail "TYPEDEF ${name%:}: only one side has it with distilled_base, and the base has none"
done
echo "against upstream pahole master: $(grep -c ": " "$work/plain.diff" || true) differences but TYPEDEFs, as without distilled_base"

# pahole's interface, as an out-of-tree module build calls it: what --elf wrote.
cp "$module" "$work/compat.ko"
chmod u+w "$work/compat.ko"
"$BTFORGE" pahole-compat -J --btf_features=default,distilled_base --btf_base "$base" \
    "$work/compat.ko"
distilled "$work/compat.ko" "$work/compat"
cmp "$work/compat.btf" "$work/ours.btf" && cmp "$work/compat.base" "$work/ours.base" ||
    fail "pahole-compat -J --btf_features=distilled_base writes other sections than --elf"

# Read over its .BTF.base without a base; with one (-B), relocated onto it as libbpf master
# relocates it (btf__relocate), for btforge's module and upstream's. Compared in this machine's
# byte order.
"$BTFORGE" dump "$work/ours.ko" > "$work/dump.txt" || fail "dump cannot read the module"
"$work/btf-distill" --native "$base" "$work/base-native.btf"
for side in ours up; do
    "$BTFORGE" -q convert -f btf "$work/$side.ko" -B "$base" -o "$work/$side-relocated.btf"
    "$work/btf-distill" --native "$work/$side-relocated.btf" "$base" "$work/$side-relocated-n.btf"
    "$work/btf-distill" --native "$work/$side.ko" "$base" "$work/$side-libbpf-n.btf"
    for f in relocated-n libbpf-n; do
        "$BPFTOOL" -B "$work/base-native.btf" btf dump file "$work/$side-$f.btf" \
            > "$work/$side-$f.txt" || fail "bpftool cannot dump $side-$f.btf"
    done
    cmp -s "$work/$side-libbpf-n.txt" "$work/$side-relocated-n.txt" ||
        fail "$side.ko relocated onto its base differs from libbpf's relocation"
done
echo "relocated onto the base as libbpf relocates them: both modules"

# Raw output: warned about, and the plain split BTF.
"$BTFORGE" convert "$module" -B "$base" --features default,distilled_base \
    -o "$work/raw.btf" 2> "$work/raw.err"
grep -qF "distilled_base" "$work/raw.err" || fail "raw output with distilled_base: no warning"
cmp "$work/raw.btf" "$work/ours-plain.btf" || fail "raw output with distilled_base is not the plain split BTF"
