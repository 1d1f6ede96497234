#!/usr/bin/env bash
# batch.sh VMLINUX MODULE... : convert with several INPUTs over one base (--out-dir, --in-place).
#  - each output is byte-identical to what converting its input alone gives (module-pahole
#    checks those against pahole), at -j1 and -j2, and libbpf parses it as split BTF;
#  - --elf names each output as its input, with that BTF as its .BTF; --in-place rewrites each
#    input and no other file;
#  - a bad input fails alone: one line naming it, the others written, exit 1; no output for it;
#  - usage errors (-o with several INPUTs, two inputs of one file name, an output over an input,
#    --in-place on one file twice, a report with several INPUTs, dump with several) exit 2 and
#    write nothing; an unreadable base writes nothing.
source "$(dirname "$0")/lib.sh"
vmlinux=$1
shift
require_file "$vmlinux" "fetch it with scripts/fetch-debian-kernel.sh"
modules=()
for module in "$@"; do
    require_file "$module" "fetch it with scripts/fetch-debian-kernel.sh"
    modules+=("$module")
done
[ "${#modules[@]}" -ge 2 ] || fail "give at least two modules"

for module in "${modules[@]}"; do
    name=$(basename "$module")
    "$BTFORGE" --quiet convert -B "$vmlinux" "$module" -o "$work/$name.alone"
done
for jobs in 1 2; do
    mkdir "$work/j$jobs"
    "$BTFORGE" --quiet -j "$jobs" convert -B "$vmlinux" "${modules[@]}" --out-dir "$work/j$jobs"
    for module in "${modules[@]}"; do
        name=$(basename "$module")
        cmp "$work/j$jobs/$name.btf" "$work/$name.alone" ||
            fail "-j$jobs: $name in a batch differs from $name converted alone"
    done
    [ "$(ls "$work/j$jobs" | wc -l)" = "${#modules[@]}" ] || fail "-j$jobs: other files written"
done
for module in "${modules[@]}"; do
    "$BTF_ORACLE" parse "$work/j2/$(basename "$module").btf" "$vmlinux" ||
        fail "libbpf rejects $(basename "$module")'s split BTF"
done
echo "batch outputs equal the single conversions' at -j1 and -j2; libbpf parses them"

# --elf: the module itself, named as it, its .BTF the batch's BTF.
mkdir "$work/elf"
"$BTFORGE" --quiet convert -B "$vmlinux" "${modules[@]}" --out-dir "$work/elf" --elf
copies=()
for module in "${modules[@]}"; do
    name=$(basename "$module")
    section_bytes "$work/elf/$name" .BTF "$work/section.btf" || fail "--elf: $name has no .BTF"
    cmp "$work/section.btf" "$work/$name.alone" || fail "--elf: $name's .BTF is not its BTF"
    mkdir -p "$work/copies/$(dirname "$module")"
    cp "$module" "$work/copies/$module"
    copies+=("$work/copies/$module")
done
# --in-place: each copy gains what --elf wrote; the originals stay as they are.
sums=$(sha256sum "${modules[@]}")
"$BTFORGE" --quiet convert -B "$vmlinux" "${copies[@]}" --in-place
for module in "${modules[@]}"; do
    cmp "$work/copies/$module" "$work/elf/$(basename "$module")" ||
        fail "--in-place: $(basename "$module") differs from its --elf output"
done
[ "$(sha256sum "${modules[@]}")" = "$sums" ] || fail "a batch changed its inputs"
echo "--elf and --in-place write each module with its BTF"

# A bad input among good ones.
printf 'not an object\n' > "$work/bad.ko"
mkdir "$work/mixed"
set +e
"$BTFORGE" --quiet convert -B "$vmlinux" "${modules[0]}" "$work/bad.ko" "${modules[1]}" \
    --out-dir "$work/mixed" 2> "$work/mixed.err"
status=$?
set -e
cat "$work/mixed.err"
[ "$status" = 1 ] || fail "a failing input: exit $status, not 1"
[ "$(grep -c "^btforge: error: $work/bad.ko: " "$work/mixed.err")" = 1 ] ||
    fail "no one-line error naming the bad input"
grep -q "^btforge: error: convert: 1 of 3 INPUTs failed$" "$work/mixed.err" ||
    fail "no summary of the failures"
[ ! -e "$work/mixed/bad.ko.btf" ] || fail "an output for the bad input"
for module in "${modules[0]}" "${modules[1]}"; do
    cmp "$work/mixed/$(basename "$module").btf" "$work/$(basename "$module").alone" ||
        fail "a good input next to a bad one was not converted"
done
echo "a bad input fails alone"

# Usage errors and an unreadable base: exit 2 (usage) or 1, nothing written.
expect() { # status what command...
    local want=$1 what=$2 status
    shift 2
    mkdir "$work/none"
    set +e
    "$@" > /dev/null 2> "$work/err"
    status=$?
    set -e
    [ "$status" = "$want" ] || fail "$what: exit $status, not $want ($(cat "$work/err"))"
    [ "$(wc -l < "$work/err")" = 1 ] || fail "$what: not one line: $(cat "$work/err")"
    [ -z "$(ls "$work/none")" ] || fail "$what: wrote $(ls "$work/none")"
    rmdir "$work/none"
    echo "$what: $(cat "$work/err")"
}
mkdir "$work/other"
cp "${modules[0]}" "$work/other/"
expect 2 "-o with several INPUTs" \
    "$BTFORGE" convert -B "$vmlinux" "${modules[@]}" -o "$work/none/out.btf"
expect 2 "two INPUTs of one file name" \
    "$BTFORGE" convert -B "$vmlinux" "${modules[0]}" "$work/other/$(basename "${modules[0]}")" \
    --out-dir "$work/none"
copy=$work/other/$(basename "${modules[0]}")
copy_sum=$(sha256sum < "$copy")
expect 2 "--elf output over an INPUT" \
    "$BTFORGE" convert -B "$vmlinux" "$copy" "${modules[1]}" --out-dir "$work/other" --elf
ln -s "$copy" "$work/other/link.ko"
expect 2 "--in-place on one file twice" \
    "$BTFORGE" convert -B "$vmlinux" "$copy" "$work/other/link.ko" --in-place
[ "$(sha256sum < "$copy")" = "$copy_sum" ] || fail "a refused batch changed its input"
expect 2 "--report-skipped with several INPUTs" \
    "$BTFORGE" convert -B "$vmlinux" "${modules[@]}" --out-dir "$work/none" \
    --report-skipped "$work/none/skipped.json"
expect 2 "--out-dir with --in-place" \
    "$BTFORGE" convert -B "$vmlinux" "${modules[@]}" --out-dir "$work/none" --in-place
expect 2 "dump with several INPUTs" "$BTFORGE" dump "${modules[@]}"
expect 1 "--out-dir that is no directory" \
    "$BTFORGE" convert -B "$vmlinux" "${modules[@]}" --out-dir "$work/none/missing"
expect 1 "an unreadable base" \
    "$BTFORGE" convert -B "$work/bad.ko" "${modules[@]}" --out-dir "$work/none"
