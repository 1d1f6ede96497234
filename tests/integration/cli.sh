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
echo "CLI contract holds"
