#!/usr/bin/env bash
# cli.sh SAMPLE_OBJECT BROKEN_PLUGIN_DIR: the command-line contract (exit codes, messages,
# plugin discovery and failures, atomic output).
source "$(dirname "$0")/lib.sh"
sample=$1 broken=$2

expect_status() {
    local want=$1
    shift
    set +e
    "$@" > "$work/stdout" 2> "$work/stderr"
    local got=$?
    set -e
    [ "$got" = "$want" ] || { cat "$work/stderr"; fail "'$*' exited $got, expected $want"; }
}

expect_status 0 "$BTFORGE" --version
grep -q '^btforge [0-9]' "$work/stdout" || fail "--version prints no version"
for cmd in "" convert dump plugins; do
    expect_status 0 "$BTFORGE" $cmd --help
    grep -q 'usage: btforge' "$work/stdout" || fail "'btforge $cmd --help' prints no usage"
done

# --help names every plugin this build has (what 'btforge plugins' lists from the build tree).
expect_status 0 "$BTFORGE" --help
cp "$work/stdout" "$work/help"
expect_status 0 "$BTFORGE" plugins
for plugin in $(awk '$2 == "loader" || $2 == "emitter" { print $1 }' "$work/stdout" | sort -u); do
    grep -qE "(: |, )$plugin([ ,]|\$)" "$work/help" || fail "--help does not name the plugin $plugin"
done

# Standard output that cannot be written (/dev/full): one line with the reason, exit 1 (diff: 2,
# its status for any error).
for args in --help --version "convert --help" plugins "dump $sample" "diff $sample $sample"; do
    want=1
    [ "${args%% *}" != diff ] || want=2
    set +e
    # shellcheck disable=SC2086 # the arguments split on purpose
    "$BTFORGE" $args > /dev/full 2> "$work/stderr"
    got=$?
    set -e
    [ "$got" = "$want" ] || { cat "$work/stderr"; fail "'btforge $args > /dev/full' exited $got"; }
    [ "$(cat "$work/stderr")" = "btforge: error: standard output: write failed: No space left on device" ] ||
        { cat "$work/stderr"; fail "'btforge $args > /dev/full' does not say why"; }
done

# Usage errors: exit 2 with one line.
expect_status 2 "$BTFORGE"
expect_status 2 "$BTFORGE" frobnicate
expect_status 2 "$BTFORGE" convert "$sample"
expect_status 2 "$BTFORGE" convert "$sample" -o "$work/x" -t no-such-emitter
grep -q "unknown emitter 'no-such-emitter'" "$work/stderr" || fail "unknown emitter not named"
expect_status 2 "$BTFORGE" convert "$sample" -o "$work/x" --no-such-option
expect_status 2 "$BTFORGE" convert "$sample" -o "$work/x" --in-place
expect_status 2 "$BTFORGE" convert "$sample" -o - --elf
expect_status 2 "$BTFORGE" convert "$sample" -o "$work/x" --elf -t json
expect_status 2 "$BTFORGE" convert "$sample" -o "$work/x" --keep a --drop b
expect_status 2 "$BTFORGE" convert "$sample" -f btf -o "$work/x" --keep no_such_type
# --plugin-opt: NAME.KEY=VALUE, and a key the plugin NAME declares (btf declares none).
expect_status 2 "$BTFORGE" --plugin-opt btf convert "$sample" -o "$work/x"
grep -q "is not NAME.KEY=VALUE" "$work/stderr" || fail "a malformed --plugin-opt is not named"
expect_status 2 "$BTFORGE" --plugin-opt btf.colour=red convert "$sample" -o "$work/x"
grep -q "no plugin 'btf' with an option 'colour'" "$work/stderr" || fail "an unknown key is taken"
[ ! -e "$work/x" ] || fail "a usage error left an output file"

# The DWARF loader's options: listed, set by --plugin-opt or by their shorthands (the same
# bytes either way; --plugin-opt wins), a bad value refused, the alt file kept from the outputs.
expect_status 0 "$BTFORGE" plugins
grep -A8 -E '^dwarf +loader ' "$work/stdout" |
    grep -q -- '--plugin-opt dwarf.nested-arrays=false' ||
    fail "the dwarf loader's options are not listed"
expect_status 0 "$BTFORGE" convert "$sample" -f dwarf -o "$work/shorthand.btf" --no-dedup \
    --nested-arrays --lang-exclude go
expect_status 0 "$BTFORGE" --plugin-opt dwarf.dedup=false --plugin-opt dwarf.nested-arrays=true \
    --plugin-opt dwarf.lang-exclude=go convert "$sample" -f dwarf -o "$work/plugin-opt.btf"
cmp -s "$work/shorthand.btf" "$work/plugin-opt.btf" || fail "a shorthand differs from --plugin-opt"
expect_status 0 "$BTFORGE" convert "$sample" -f dwarf -o "$work/default.btf"
! cmp -s "$work/default.btf" "$work/plugin-opt.btf" || fail "the sample has no nested array to test"
expect_status 0 "$BTFORGE" --plugin-opt dwarf.nested-arrays=false convert "$sample" -f dwarf \
    --nested-arrays -o "$work/override.btf"
cmp -s "$work/default.btf" "$work/override.btf" || fail "--plugin-opt does not win over a shorthand"
expect_status 2 "$BTFORGE" --plugin-opt dwarf.dedup=maybe convert "$sample" -f dwarf -o "$work/x"
grep -q "dedup: 'maybe' is not true or false" "$work/stderr" || fail "a bad flag value is taken"
expect_status 2 "$BTFORGE" --plugin-opt "dwarf.dwarf-alt=$work/default.btf" convert "$sample" \
    -f dwarf -o "$work/default.btf"
grep -q "is the same file as the alt file" "$work/stderr" || fail "-o may name the alt file"
[ ! -e "$work/x" ] || fail "a usage error left an output file"

# Bad input: exit 1, one line naming the file.
expect_status 1 "$BTFORGE" convert "$work/missing.btf" -o "$work/x"
grep -q "$work/missing.btf" "$work/stderr" || fail "missing input not named"
printf 'hello' > "$work/junk"
expect_status 1 "$BTFORGE" dump "$work/junk"
[ "$(wc -l < "$work/stderr")" = 1 ] || fail "more than one error line"

# Plugins: the built ones are listed; broken ones are reported by name and the rest still work.
expect_status 0 "$BTFORGE" plugins
for p in 'btf +loader' 'btf +emitter' 'text +emitter' 'json +emitter'; do
    grep -Eq "^$p +abi [0-9]+ " "$work/stdout" || fail "plugin '$p' not listed"
done
# Capabilities, listed under the plugin: the host goes by them, not by names.
grep -A1 -E '^btf +loader ' "$work/stdout" | grep -q 'capabilities: reads-btf' ||
    fail "the btf loader's capability is not listed"
expect_status 0 "$BTFORGE" --plugin-dir "$broken" plugins
grep -Eq "failed: .*libbtforge-wrong-abi.so: plugin ABI version [0-9]+" "$work/stdout" ||
    fail "the wrong-ABI plugin is not reported"
grep -q "failed: .*libbtforge-not-elf.so: cannot load" "$work/stdout" ||
    fail "the non-library plugin is not reported"
expect_status 0 "$BTFORGE" --plugin-dir "$broken" dump "$sample"
grep -q "plugin .*libbtforge-wrong-abi.so not loaded" "$work/stderr" || fail "no warning on stderr"
BTFORGE_PLUGIN_PATH="$broken" expect_status 0 "$BTFORGE" plugins
grep -q "libbtforge-wrong-abi.so" "$work/stdout" || fail "BTFORGE_PLUGIN_PATH not searched"

# Output is atomic: a failed run leaves no partial file, and the file it would replace untouched.
expect_status 0 "$BTFORGE" convert "$sample" -o "$work/out.btf"
"$BTF_ORACLE" parse "$work/out.btf" > /dev/null || fail "libbpf rejects the output"
cp "$work/out.btf" "$work/before.btf"
expect_status 1 "$BTFORGE" convert "$work/junk" -f btf -o "$work/out.btf"
cmp -s "$work/out.btf" "$work/before.btf" || fail "a failed run changed the previous output"
[ -z "$(ls "$work" | grep '\.tmp\.')" ] || fail "a temporary file was left behind"
expect_status 0 "$BTFORGE" convert "$sample" -f btf -o - -t text
cmp "$work/stdout" <("$BPFTOOL" btf dump file "$sample") || fail "'-o -' text differs from bpftool"

# An empty --keep or --drop list is a usage error (it used to keep everything).
for list in '' ',' ',,'; do
    expect_status 2 "$BTFORGE" convert "$sample" -f btf -o "$work/x" --keep "$list"
    grep -q -- "--keep needs at least one type name" "$work/stderr" || fail "--keep '$list' taken"
    expect_status 2 "$BTFORGE" convert "$sample" -f btf -o "$work/x" --drop "$list"
done
[ ! -e "$work/x" ] || fail "a usage error left an output file"

# Split BTF read without its base: the error says what it needs. INPUT given as its own base: a
# warning.
"$BTFORGE" -q convert "$sample" -f btf -o "$work/base.btf" --keep "$(
    "$BPFTOOL" btf dump file "$sample" | grep -m1 -oE "^\[[0-9]+\] STRUCT '[a-z_0-9]+'" |
        sed -E "s/.*'(.*)'/\1/")"
expect_status 0 "$BTFORGE" convert "$sample" -f dwarf -B "$work/base.btf" -o "$work/split.btf"
expect_status 1 "$BTFORGE" dump "$work/split.btf"
grep -q "split.btf: .*does not start with a NUL byte.*split BTF.*give its base with -B" \
    "$work/stderr" || fail "split BTF without -B: the error does not say it needs its base"
expect_status 0 "$BTFORGE" dump "$work/split.btf" -B "$work/base.btf"
expect_status 0 "$BTFORGE" convert "$work/base.btf" -B "$work/base.btf" -o "$work/self.btf"
grep -q "warning: .*base.btf: INPUT is also its base (-B)" "$work/stderr" ||
    fail "INPUT as its own base: no warning"

# A list BTF can hold only with the layout feature (24-bit vlen), written without it: the error
# names the input.
python3 - "$work/wide.btf" << 'PY'
import struct, sys
members = 70000
types = struct.pack("<3I", 1, 1 << 24 | 0, 4) + struct.pack("<I", 32)      # [1] INT 'int'
types += struct.pack("<3I", 5, 4 << 24 | members, 4 * members)              # [2] STRUCT 'wide'
types += b"".join(struct.pack("<3I", 10, 1, 32 * i) for i in range(members))
# info_sz, elem_sz, flags for kinds 0-19, as the UAPI's table.
sizes = [(0, 0), (4, 0), (0, 0), (12, 0), (0, 12), (0, 12), (0, 8), (0, 0), (0, 0), (0, 0),
         (0, 0), (0, 0), (0, 0), (0, 8), (4, 0), (0, 12), (0, 0), (4, 0), (0, 0), (0, 12)]
layout = b"".join(struct.pack("<BBH", i, e, 0) for i, e in sizes)
strings = b"\0int\0wide\0m\0"
header = struct.pack("<HBBI6I", 0xEB9F, 1, 0, 32, 0, len(types), len(types) + len(layout),
                     len(strings), len(types), len(layout))
open(sys.argv[1], "wb").write(header + types + layout + strings)
PY
expect_status 1 "$BTFORGE" convert "$work/wide.btf" -o "$work/x"
grep -q "error: $work/wide.btf: STRUCT \[2\] 'wide' has 70000 members" "$work/stderr" ||
    fail "a list BTF cannot hold: the error does not name the input"
grep -q "with the layout feature: --features default,layout)" "$work/stderr" ||
    fail "a list BTF cannot hold: the error does not say which option writes it"
expect_status 0 "$BTFORGE" convert "$work/wide.btf" -o "$work/wide-out.btf" --features default,layout
cmp -s "$work/wide.btf" "$work/wide-out.btf" || fail "the 24-bit vlen BTF did not round-trip"

# A plugin found earlier in the search path shadows the built-in one of its kind and name: listed,
# and a run that uses it says so on stderr, --quiet or not (docs/security.md).
built=$(dirname "$BTFORGE")/plugins
mkdir "$work/shadow"
cp "$built/libbtforge-emitter-text.so" "$work/shadow/libbtforge-my-text.so"
expect_status 0 "$BTFORGE" --plugin-dir "$work/shadow" plugins
grep -qx "shadowed: text ($(realpath "$built")/libbtforge-emitter-text.so) by $work/shadow/libbtforge-my-text.so" \
    "$work/stdout" || { cat "$work/stdout"; fail "the shadowed plugin is not listed"; }
expect_status 0 "$BTFORGE" --plugin-dir "$work/shadow" -q dump "$sample"
grep -q "note: emitter 'text' is $work/shadow/libbtforge-my-text.so, which shadows " "$work/stderr" ||
    fail "a run using a shadowing plugin does not say so"
expect_status 0 "$BTFORGE" --plugin-dir "$work/shadow" -q convert "$sample" -o "$work/x.btf"
[ ! -s "$work/stderr" ] || fail "a run not using the shadowing plugin mentions it"
rm -f "$work/x.btf"
# The same through $BTFORGE_PLUGIN_PATH, for the emitter convert writes BTF with.
mkdir "$work/shadow-env"
cp "$built/libbtforge-emitter-btf.so" "$work/shadow-env/libbtforge-other-btf.so"
BTFORGE_PLUGIN_PATH=$work/shadow-env expect_status 0 "$BTFORGE" plugins
grep -qx "shadowed: btf ($(realpath "$built")/libbtforge-emitter-btf.so) by $work/shadow-env/libbtforge-other-btf.so" \
    "$work/stdout" || { cat "$work/stdout"; fail "the btf emitter shadowed through BTFORGE_PLUGIN_PATH is not listed"; }
BTFORGE_PLUGIN_PATH=$work/shadow-env expect_status 0 "$BTFORGE" -q convert "$sample" -o "$work/x.btf"
grep -q "note: emitter 'btf' is $work/shadow-env/libbtforge-other-btf.so, which shadows " "$work/stderr" ||
    fail "convert with a shadowing btf emitter does not say so"
rm -f "$work/x.btf"
# An emitter library named libbtforge-emitter-NAME.so is loaded only when a run needs emitter
# NAME (or all of them): one that cannot load troubles no other run, and is reported when it is
# wanted. It must hold emitter NAME. Two of one name: the first in the search path is used, and
# says so.
mkdir "$work/lazy"
printf 'not a library' > "$work/lazy/libbtforge-emitter-zzz.so"
cp "$built/libbtforge-emitter-text.so" "$work/lazy/libbtforge-emitter-json.so"
expect_status 0 "$BTFORGE" --plugin-dir "$work/lazy" convert "$sample" -o "$work/x.btf"
[ ! -s "$work/stderr" ] || fail "a run not using the broken emitters mentions them"
rm -f "$work/x.btf"
expect_status 2 "$BTFORGE" --plugin-dir "$work/lazy" convert "$sample" -t zzz -o "$work/x"
grep -q "plugin $work/lazy/libbtforge-emitter-zzz.so not loaded: cannot load" "$work/stderr" ||
    fail "the broken emitter a run asks for is not reported"
grep -q "unknown emitter 'zzz' (available: .*btf" "$work/stderr" ||
    fail "an emitter that cannot load is not an unknown one, with the others listed"
expect_status 0 "$BTFORGE" --plugin-dir "$work/lazy" plugins
grep -qx "failed: $work/lazy/libbtforge-emitter-json.so: its name says emitter 'json', it holds emitter 'text'" \
    "$work/stdout" || { cat "$work/stdout"; fail "a misnamed emitter library is not reported"; }
grep -Eq '^json +emitter ' "$work/stdout" || fail "the json emitter is gone with a misnamed one"
mkdir "$work/lazy-text"
cp "$built/libbtforge-emitter-text.so" "$work/lazy-text/"
expect_status 0 "$BTFORGE" --plugin-dir "$work/lazy-text" -q dump "$sample"
grep -q "note: emitter 'text' is $work/lazy-text/libbtforge-emitter-text.so, which shadows " \
    "$work/stderr" || fail "a run using an emitter loaded on demand does not say it shadows another"
# The json loader reads through its companion, loaded from beside the plugin when it reads an
# input (btforge/plugin/Companion.h): a copy of the plugin without it fails that run with one
# line naming the missing companion, and writes nothing; a run reading no JSON is not affected.
mkdir "$work/lone"
cp "$built/libbtforge-loader-json.so" "$work/lone/"
expect_status 0 "$BTFORGE" convert "$sample" -t json -o "$work/sample.json"
expect_status 1 "$BTFORGE" --plugin-dir "$work/lone" -q convert "$work/sample.json" -o "$work/x.btf"
grep -qx "btforge: error: $work/sample.json: json: cannot load its companion $work/lone/btforge-json-reader.so (.*)" \
    "$work/stderr" || { cat "$work/stderr"; fail "a missing companion is not one clear error"; }
[ ! -e "$work/x.btf" ] || fail "a run without its companion wrote an output"
expect_status 0 "$BTFORGE" --plugin-dir "$work/lone" -q convert "$sample" -o "$work/x.btf"
rm -f "$work/x.btf"
# --stats: after the run, on stderr (even with --quiet), every phase with its wall and CPU
# milliseconds adding up to the total, the serial fraction with its projections, the peak memory
# and what holds it, and the counts; the output is the same bytes. Timings are not checked, only
# the format.
expect_status 0 "$BTFORGE" --quiet convert "$sample" -o "$work/plain.btf"
[ ! -s "$work/stderr" ] || fail "without --stats, stderr is not empty"
expect_status 0 "$BTFORGE" --stats --quiet convert "$sample" -o "$work/stats.btf"
cmp -s "$work/plain.btf" "$work/stats.btf" || fail "--stats changes the output"
stats_fail() { cat "$work/stderr"; fail "--stats: $1"; }
[ "$(wc -l < "$work/stderr")" = 19 ] || stats_fail "not 19 lines"
grep -qxF "btforge: stats for $sample" "$work/stderr" || stats_fail "no title naming the input"
ms='[0-9]+\.[0-9]'
for phase in "start-up and plugins" base "base index" read map merge dedup functions variables \
    "load, other" write other total; do
    grep -Eq "^  $phase +$ms +$ms\$" "$work/stderr" || stats_fail "no '$phase' row"
done
awk '/^  phase/ { on = 1; next } on && /^  total/ { total = $2; on = 0; next }
    on { sum += $(NF - 1); rows++ } END { d = sum - total; exit !(d <= 0.06 * rows && d >= -0.06 * rows) }' \
    "$work/stderr" || stats_fail "the phases do not add up to the total"
grep -Eq '^  serial fraction [01]\.[0-9]{2} \(.*\): 8 cores [0-9]+ ms, 16 cores [0-9]+ ms, 64 cores [0-9]+ ms$' \
    "$work/stderr" || stats_fail "no serial fraction with projections"
grep -Eq '^  peak RSS [0-9]+\.[0-9] MB, reached by the end of: [a-z ,-]+$' "$work/stderr" ||
    stats_fail "no peak memory"
# What holds the memory: the DWARF loader's holders, each in MB, together below the peak.
grep -Eq "^  held \(each at its largest\): a unit's DIEs $ms MB, merger \(world, index, merged types\) $ms MB, resulting types $ms MB\$" \
    "$work/stderr" || stats_fail "no memory holders"
awk '/^  peak RSS/ { peak = $3 } /^  held/ { n = split($0, f, " MB"); for (i = 1; i < n; i++) { k = split(f[i], w, " "); sum += w[k] } }
    END { exit !(sum > 0 && sum < peak) }' "$work/stderr" || stats_fail "the holders are not below the peak"
grep -Eq '^  counts: .*units [0-9,]+' "$work/stderr" && grep -Eq 'DIEs kept [0-9,]+' "$work/stderr" &&
    grep -Eq 'types before dedup [0-9,]+, types after dedup [0-9,]+' "$work/stderr" ||
    stats_fail "counts missing"

echo "CLI contract holds"
