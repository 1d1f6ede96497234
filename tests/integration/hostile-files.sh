#!/usr/bin/env bash
# hostile-files.sh CASE INPUTS DWARF_SOURCES VMLINUX: btforge among files a hostile user sets up
# (docs/security.md). Every output goes to this test's directory: FIFOs, links and devices are
# made here, never /dev/null or another shared path.
#   outputs     a link is followed (the link stays), a FIFO, /dev/stdout and a device are written
#               as they are, for -o, --report-skipped and pahole-compat's --btf_encode_detached
#   same-file   an output naming an input, a base or another output (through links too) is a
#               usage error that leaves the input untouched; a failed run writes no report
#   inputs      a FIFO, /dev/stdin and a pipe are read once (ET_EXEC and ET_REL, both DWARF
#               loaders); devices are refused; a stream past --stream-limit is an error
#   truncated   an input truncated while it is read is one error line, exit 1, nothing left
#   alt-links   a .gnu_debugaltlink naming /etc/shadow, a FIFO, /proc/self/mem, a device, a file
#               with another build-id is one error line; ../ resolves beside the input, an
#               installed name under an unpacked package's tree; --dwarf-alt names the file; a .gnu_debuglink or a split unit's .dwo naming a
#               FIFO is never opened
#   jobs        -j outside 0..1024 is one usage error line
#   long-name   an output whose name is 250 characters long
#   in-place    a file its user may not write is refused; mode and owner are kept
#   json        control bytes in names: the json emitter writes what bpftool writes
#   failure     a failed run (bad input, usage error) leaves the file at -o as it was
#   links       in a sticky world-writable directory, another user's link (at any hop of a chain,
#               or a directory on the way) is not followed for any output; the caller's and the
#               directory owner's are, as the kernel's fs.protected_symlinks decides
#   in-place-special  --in-place on a FIFO, /dev/stdin, a device or a directory: usage error,
#               before anything is read
#   descriptors -o /proc/self/fd/N and /dev/fd/N: only a descriptor btforge was started with
#   signals     SIGINT, SIGTERM, SIGHUP and SIGPIPE during a run: temporaries removed, the old
#               output intact, the signal's exit status
#   libraries   run from a directory holding a library of each name btforge, its plugins and the
#               LLVM reader load: none is loaded from there, whatever loader and emitter
source "$(dirname "$0")/lib.sh"
case_name=$1 inputs=$2 sources=$3 vmlinux=$4
program=$inputs/functions-gcc-dwarf5-O2
object=$inputs/functions-gcc-dwarf5-O2.o
require_file "$program"

# run STATUS CMD...: CMD exits STATUS, with exactly one error line when it fails. The timeout
# only keeps a hang from blocking the suite: nothing here takes more than seconds.
run() {
    local want=$1 got
    shift
    set +e
    timeout 600 "$@" > "$work/stdout" 2> "$work/stderr"
    got=$?
    set -e
    [ "$got" = "$want" ] || { cat "$work/stderr"; fail "'$*' exited $got, expected $want"; }
    if [ "$want" != 0 ] && [ "$(wc -l < "$work/stderr")" != 1 ]; then
        cat "$work/stderr"
        fail "'$*': not exactly one error line"
    fi
}
# says PATTERN: the last run's error line matches PATTERN.
says() {
    grep -Eq -- "$1" "$work/stderr" || { cat "$work/stderr"; fail "the error does not say '$1'"; }
}
no_temporary_left() {
    if find "$work" -name '*.tmp.*' | grep . > "$work/left"; then
        cat "$work/left"
        fail "a temporary file was left behind"
    fi
}
is_root() { [ "$(id -u)" = 0 ]; }

"$BTFORGE" -q convert "$program" -o "$work/ref.btf"

case "$case_name" in
outputs)
    # A link is followed: its target is replaced, the link stays a link.
    echo old > "$work/target"
    ln -s target "$work/link"
    run 0 "$BTFORGE" -q convert "$program" -o "$work/link"
    [ -L "$work/link" ] || fail "the output link was replaced"
    cmp -s "$work/target" "$work/ref.btf" || fail "the link's target is not the output"
    # ... through a chain of links into another directory, for the report too.
    mkdir "$work/elsewhere"
    ln -s elsewhere/report.json "$work/report-link"
    ln -s report-link "$work/report-chain"
    run 0 "$BTFORGE" -q convert "$program" -o "$work/out.btf" --report-skipped "$work/report-chain"
    [ -L "$work/report-link" ] && [ -f "$work/elsewhere/report.json" ] ||
        fail "the report was not written through the links"
    grep -q '"skipped"' "$work/elsewhere/report.json" || fail "the report is not there"
    # A FIFO is written, not replaced.
    mkfifo "$work/fifo"
    cat "$work/fifo" > "$work/from-fifo" &
    reader=$!
    run 0 "$BTFORGE" -q convert "$program" -o "$work/fifo"
    wait "$reader"
    [ -p "$work/fifo" ] || fail "the FIFO was replaced"
    cmp -s "$work/from-fifo" "$work/ref.btf" || fail "the FIFO did not receive the output"
    # '-' is standard output: a pipe, or a file appended to (never a path outside $work).
    "$BTFORGE" -q convert "$program" -o - | cat > "$work/from-stdout"
    cmp -s "$work/from-stdout" "$work/ref.btf" || fail "-o - into a pipe differs"
    echo "earlier line" > "$work/log"
    "$BTFORGE" -q convert "$program" -o - >> "$work/log"
    [ "$(head -n 1 "$work/log")" = "earlier line" ] || fail "-o - >> LOG lost LOG"
    tail -c +14 "$work/log" | cmp -s - "$work/ref.btf" || fail "-o - >> LOG differs"
    # pahole-compat's --btf_encode_detached follows the same rules.
    ln -s detached.btf "$work/detached-link"
    run 0 "$BTFORGE" pahole-compat -J --btf_features=default \
        --btf_encode_detached="$work/detached-link" "$program"
    [ -L "$work/detached-link" ] && cmp -s "$work/detached.btf" "$work/ref.btf" ||
        fail "--btf_encode_detached through a link"
    # A character device (a null device of this test's own, root only) stays a device.
    if is_root && mknod "$work/null" c 1 3 2> /dev/null; then
        run 0 "$BTFORGE" -q convert "$program" -o "$work/null" --report-skipped "$work/null2"
        run 0 "$BTFORGE" -q convert "$program" -o "$work/out.btf" --report-skipped "$work/null"
        run 0 "$BTFORGE" pahole-compat -J --btf_encode_detached="$work/null" "$program"
        [ -c "$work/null" ] || fail "the device output was replaced"
        devices="a device,"
    else
        devices="(no device could be made here),"
    fi
    no_temporary_left
    echo "outputs: links followed, a FIFO, /dev/stdout, $devices written as they are"
    ;;
same-file)
    cp "$program" "$work/in"
    cp "$program" "$work/in.orig"
    ln -s in "$work/in-link"
    cp "$work/ref.btf" "$work/base.btf"
    for args in "-o $work/in" "-o $work/in-link" "-o $work/x --report-skipped $work/in" \
        "-o $work/x --report-skipped $work/in-link" "-o $work/base.btf -B $work/base.btf" \
        "-o $work/x --report-skipped $work/x" "--in-place --report-skipped $work/in" \
        "--in-place -B $work/in-link" "-o $work/x --elf --report-skipped $work/in"; do
        # shellcheck disable=SC2086 # the options split on purpose
        run 2 "$BTFORGE" convert "$work/in" $args
        says "same file|would write over"
        cmp -s "$work/in" "$work/in.orig" || fail "convert in $args changed the input"
    done
    cmp -s "$work/base.btf" "$work/ref.btf" || fail "the base was changed"
    [ ! -e "$work/x" ] || fail "a refused run wrote an output"
    # A failed conversion (after the DWARF was read) leaves neither output nor report.
    run 2 "$BTFORGE" convert "$program" -o "$work/out.btf" --report-skipped "$work/report.json" \
        --keep no_such_type
    [ ! -e "$work/out.btf" ] && [ ! -e "$work/report.json" ] || fail "a failed run left a file"
    no_temporary_left
    echo "same-file: 9 ways of naming an input or an output twice refused; no report on failure"
    ;;
inputs)
    require_file "$object"
    "$BTFORGE" -q convert "$object" -o "$work/object.btf"
    mkfifo "$work/in.fifo"
    cat "$program" > "$work/in.fifo" &
    run 0 "$BTFORGE" -q convert "$work/in.fifo" -o "$work/from-fifo.btf"
    cmp -s "$work/from-fifo.btf" "$work/ref.btf" || fail "a FIFO input converts differently"
    run 0 "$BTFORGE" -q convert /dev/stdin -o "$work/from-stdin.btf" < "$program"
    cmp -s "$work/from-stdin.btf" "$work/ref.btf" || fail "/dev/stdin converts differently"
    for loader in dwarf llvm-dwarf; do
        [ "$loader" = dwarf ] || "$BTFORGE" plugins | grep -q '^llvm-dwarf ' || continue
        cat "$object" | "$BTFORGE" -q convert -f "$loader" /dev/stdin -o "$work/piped.btf" ||
            fail "an ET_REL object through a pipe (-f $loader) fails"
        cmp -s "$work/piped.btf" "$work/object.btf" ||
            fail "an ET_REL object through a pipe (-f $loader) converts differently"
    done
    cat "$work/ref.btf" | "$BTFORGE" dump /dev/stdin > "$work/dump.txt" ||
        fail "raw BTF through a pipe fails"
    # Devices and directories are refused, whichever loader, input or base.
    for args in "-f btf /dev/zero" "-f dwarf /dev/zero" "/dev/zero" "$program -B /dev/zero"; do
        # shellcheck disable=SC2086
        run 1 "$BTFORGE" convert $args -o "$work/x"
        says "/dev/zero: is a device"
    done
    run 1 "$BTFORGE" dump /dev/zero
    run 2 "$BTFORGE" diff "$program" /dev/zero # diff's status for any error
    says "/dev/zero: is a device"
    run 1 "$BTFORGE" convert "$work" -o "$work/x"
    says "is a directory"
    # A stream is read up to --stream-limit, then refused.
    head -c 3000000 /dev/zero > "$work/in.fifo" 2> /dev/null &
    run 1 "$BTFORGE" --stream-limit 1M convert -f btf "$work/in.fifo" -o "$work/x"
    says "longer than the 1048576 bytes .*--stream-limit"
    run 2 "$BTFORGE" --stream-limit 1X convert "$program" -o "$work/x"
    [ ! -e "$work/x" ] || fail "a refused input left an output"
    echo "inputs: FIFO, /dev/stdin and pipes read once; devices refused; streams limited"
    ;;
truncated)
    checked=""
    # The test hook truncates the input after its unit headers are read, before the units:
    # as another process truncating it during the run, at a chosen point.
    for input in "$program" "$object" "$vmlinux"; do
        if [ "$input" = "$vmlinux" ]; then
            [ -r "$vmlinux" ] || { echo "(no $vmlinux: fetch-debian-kernel.sh)"; continue; }
            [ "${BTFORGE_SANITIZED:-0}" != 1 ] || continue
        fi
        copy=$work/$(basename "$input")
        cp "$input" "$copy"
        BTFORGE_TEST_TRUNCATE_INPUT=4096 run 1 "$BTFORGE" -q convert "$copy" -o "$copy.btf" \
            --report-skipped "$copy.json"
        says "^btforge: error: $copy: the file changed during the run"
        [ ! -e "$copy.btf" ] && [ ! -e "$copy.json" ] || fail "a truncated input left an output"
        no_temporary_left
        rm "$copy"
        checked="$checked $(basename "$input")"
    done
    echo "truncated while read: one error line, no output ($checked)"
    ;;
alt-links)
    command -v dwz > /dev/null || skip "dwz is not installed (scripts/install-deps.sh installs it)"
    c_sources=("$sources/layouts.c" "$sources/functions_a.c" "$sources/functions_b.c")
    for v in 4 5; do
        gcc -g -O0 -w -gdwarf-$v -o "$work/a$v" "${c_sources[@]}"
        gcc -g -O1 -w -gdwarf-$v -o "$work/b$v" "${c_sources[@]}"
        cp "$work/a$v" "$work/a$v.plain"
        dwz -m "$work/common$v.debug" "$work/a$v" "$work/b$v" || fail "dwz -m failed"
    done
    "$BTFORGE" -q convert "$work/a5.plain" -o "$work/plain.btf"
    run 0 "$BTFORGE" -q convert "$work/a5" -o "$work/a5.btf"
    "$BTFORGE" -q diff -f btf "$work/plain.btf" "$work/a5.btf" > /dev/null ||
        fail "the dwz -m file converts to other types"
    objcopy --dump-section .gnu_debugaltlink="$work/link.bin" "$work/a5" "$work/dump.o"
    name_length=$(($(head -c 4096 "$work/link.bin" | tr '\0' '\n' | head -n 1 | wc -c) - 1))
    tail -c +$((name_length + 2)) "$work/link.bin" > "$work/build-id.bin"
    # relink NAME: a copy of a5 whose .gnu_debugaltlink names NAME, with a5's build-id.
    relink() {
        { printf '%s\0' "$1" && cat "$work/build-id.bin"; } > "$work/new-link.bin"
        objcopy --update-section .gnu_debugaltlink="$work/new-link.bin" "$work/a5" "$work/hostile"
    }
    mkfifo "$work/alt.fifo"
    cp "$work/common4.debug" "$work/other-id.debug"
    for name in /etc/shadow "$work/alt.fifo" /proc/self/mem /proc/self/fd/0 /dev/zero \
        "$work/other-id.debug" ../x "$work" ""; do
        relink "$name"
        run 1 "$BTFORGE" -q convert "$work/hostile" -o "$work/x"
        says "^btforge: error: $work/hostile: the alt file its .gnu_debugaltlink names"
    done
    relink "$work/other-id.debug"
    run 1 "$BTFORGE" -q convert "$work/hostile" -o "$work/x"
    says "its build-id is [0-9a-f]+$"
    # A relative name is looked for beside the input, whatever the current directory.
    mkdir "$work/sub"
    relink "../common5.debug"
    mv "$work/hostile" "$work/sub/relative"
    (cd / && run 0 "$BTFORGE" -q convert "$work/sub/relative" -o "$work/relative.btf")
    cmp -s "$work/relative.btf" "$work/a5.btf" || fail "../NAME beside the input differs"
    # An input in an unpacked debug package names its alt file as installed (an absolute
    # /usr/lib/debug/.dwz/ name): found under the tree's root, as under /; by build-id too.
    tree=$work/unpacked/usr/lib/debug
    mkdir -p "$tree/.build-id/ab" "$tree/.dwz/test"
    cp "$work/common5.debug" "$tree/.dwz/test/common.debug"
    relink /usr/lib/debug/.dwz/test/common.debug
    mv "$work/hostile" "$tree/.build-id/ab/cdef.debug"
    run 0 "$BTFORGE" -q convert "$tree/.build-id/ab/cdef.debug" -o "$work/unpacked.btf"
    cmp -s "$work/unpacked.btf" "$work/a5.btf" || fail "the unpacked tree's alt file differs"
    id=$(od -An -tx1 -v "$work/build-id.bin" | tr -d ' \n')
    mkdir -p "$tree/.build-id/${id:0:2}"
    mv "$tree/.dwz/test/common.debug" "$tree/.build-id/${id:0:2}/${id:2}.debug"
    run 0 "$BTFORGE" -q convert "$tree/.build-id/ab/cdef.debug" -o "$work/unpacked.btf"
    cmp -s "$work/unpacked.btf" "$work/a5.btf" || fail "the unpacked tree's alt file by build-id"
    rm "$tree/.build-id/${id:0:2}/${id:2}.debug"
    run 1 "$BTFORGE" -q convert "$tree/.build-id/ab/cdef.debug" -o "$work/x"
    says "not found \(name it with --dwarf-alt FILE\)$"
    # --dwarf-alt names the file; its build-id is still checked.
    mv "$work/common5.debug" "$work/renamed.debug"
    run 1 "$BTFORGE" -q convert "$work/a5" -o "$work/x"
    run 0 "$BTFORGE" -q convert "$work/a5" --dwarf-alt "$work/renamed.debug" -o "$work/alt.btf"
    cmp -s "$work/alt.btf" "$work/a5.btf" || fail "--dwarf-alt gives other BTF"
    run 1 "$BTFORGE" -q convert "$work/a5" --dwarf-alt "$work/common4.debug" -o "$work/x"
    says "its build-id is"
    run 1 "$BTFORGE" -q convert "$work/a5" --dwarf-alt "$work/alt.fifo" -o "$work/x"
    # .gnu_debuglink is never followed: a stripped file naming a FIFO is refused, not a hang.
    objcopy --only-keep-debug "$work/a4.plain" "$work/a4.dbg"
    objcopy --strip-debug --add-gnu-debuglink="$work/a4.dbg" "$work/a4.plain" "$work/stripped"
    rm "$work/a4.dbg"
    mkfifo "$work/a4.dbg"
    run 1 "$BTFORGE" -q convert -f dwarf "$work/stripped" -o "$work/x"
    [ ! -e "$work/x" ] || fail "a refused alt file left an output"
    # Nor is the .dwo file a split-DWARF skeleton unit names (here a FIFO): never opened (a hang
    # if it were); the skeleton is refused by name instead.
    mkdir "$work/split"
    (cd "$work/split" && gcc -g -gdwarf-5 -gsplit-dwarf -O0 -w -o prog "${c_sources[@]}")
    for dwo in "$work"/split/*.dwo; do
        rm "$dwo"
        mkfifo "$dwo"
    done
    for loader in dwarf llvm-dwarf; do
        [ "$loader" = dwarf ] || "$BTFORGE" plugins | grep -q '^llvm-dwarf ' || continue
        run 1 "$BTFORGE" -q convert -f "$loader" "$work/split/prog" -o "$work/split.btf"
        says "a skeleton unit: its DWARF is in 'prog-layouts.dwo'"
    done
    [ ! -e "$work/split.btf" ] || fail "a refused skeleton unit left an output"
    echo "alt-links: 9 hostile .gnu_debugaltlink names refused, ../ beside the input, an" \
        "unpacked package's tree, --dwarf-alt;" \
        ".gnu_debuglink and .dwo files never opened"
    ;;
jobs)
    for j in -1 100000 1025 x "" 2x; do
        run 2 "$BTFORGE" -j "$j" convert "$program" -o "$work/x"
    done
    [ ! -e "$work/x" ] || fail "a bad -j left an output"
    for j in 0 1 1024; do
        run 0 "$BTFORGE" -q -j "$j" convert "$program" -o "$work/j$j.btf"
        cmp -s "$work/j$j.btf" "$work/ref.btf" || fail "-j $j gives other BTF"
    done
    echo "jobs: -j outside 0..1024 refused with one line"
    ;;
long-name)
    long=$work/$(printf 'n%.0s' $(seq 250))
    run 0 "$BTFORGE" -q convert "$program" -o "$long"
    cmp -s "$long" "$work/ref.btf" || fail "the 250-character output differs"
    cp "$program" "$long"
    run 0 "$BTFORGE" -q convert "$long" --in-place
    no_temporary_left
    echo "long-name: a 250-character output name, written and replaced in place"
    ;;
in-place)
    is_root || skip "needs root to make files of another user"
    id nobody > /dev/null 2>&1 || skip "no user 'nobody'"
    mkdir "$work/shared"
    chmod 0777 "$work/shared"
    chmod 0755 "$work"
    # As a user who may not write the file: refused, untouched.
    for mode in 0444 0644 0666; do
        cp "$program" "$work/shared/root-$mode"
        chmod "$mode" "$work/shared/root-$mode"
        run 1 runuser -u nobody -- "$BTFORGE" -q convert "$work/shared/root-$mode" --in-place
        cmp -s "$work/shared/root-$mode" "$program" || fail "nobody's --in-place changed a file"
        [ "$(stat -c %U "$work/shared/root-$mode")" = root ] || fail "the owner changed"
    done
    # root may write a 0444 file, as cp and sed -i may; owner, group and mode are kept.
    cp "$program" "$work/shared/theirs"
    chown nobody:nogroup "$work/shared/theirs"
    chmod 0640 "$work/shared/theirs"
    ln "$work/shared/theirs" "$work/shared/hard-link"
    run 0 "$BTFORGE" -q convert "$work/shared/theirs" --in-place
    [ "$(stat -c %U:%G:%a "$work/shared/theirs")" = nobody:nogroup:640 ] ||
        fail "--in-place changed owner or mode: $(stat -c %U:%G:%a "$work/shared/theirs")"
    cmp -s "$work/shared/theirs" "$program" && fail "--in-place wrote nothing"
    # Like sed -i, the replacement is a new file: a hard link keeps the old contents.
    cmp -s "$work/shared/hard-link" "$program" || fail "the hard link was written through"
    cp "$program" "$work/shared/read-only"
    chmod 0444 "$work/shared/read-only"
    run 0 "$BTFORGE" -q convert "$work/shared/read-only" --in-place
    [ "$(stat -c %a "$work/shared/read-only")" = 444 ] || fail "the 0444 mode changed"
    no_temporary_left
    echo "in-place: refused for a user who may not write the file; owner and mode kept"
    ;;
json)
    # STRUCT 'node' of kinds.btf renamed to bytes 01, '"', '\' and a newline.
    require_file "$inputs/kinds.btf"
    cp "$inputs/kinds.btf" "$work/control.btf"
    grep -abo 'node' "$work/control.btf" > "$work/offsets"
    offset=$(head -n 1 "$work/offsets" | cut -d: -f1)
    printf '\001"\\\n' | dd of="$work/control.btf" bs=1 seek="$offset" conv=notrunc 2> /dev/null
    "$BTFORGE" dump "$work/control.btf" > "$work/dump.txt"
    grep -q "STRUCT '"$'\x01' "$work/dump.txt" || fail "the renamed struct is not where expected"
    run 0 "$BTFORGE" dump --json "$work/control.btf"
    "$BPFTOOL" btf dump file "$work/control.btf" -j > "$work/bpftool.json"
    cmp -s "$work/stdout" "$work/bpftool.json" || fail "json differs from bpftool's"
    echo "json: control bytes in names written as bpftool writes them (docs/security.md)"
    ;;
links)
    mkdir "$work/tmp" "$work/private" "$work/plain"
    chmod 1777 "$work/tmp"
    cp "$program" "$work/victim"
    # The caller's link in a sticky world-writable directory is followed.
    ln -s "$work/mine.btf" "$work/tmp/mine"
    run 0 "$BTFORGE" -q convert "$program" -o "$work/tmp/mine"
    cmp -s "$work/mine.btf" "$work/ref.btf" || fail "the caller's link was not followed"
    cp "$program" "$work/mine"
    ln -s "$work/mine" "$work/tmp/my-input"
    run 0 "$BTFORGE" -q convert "$work/tmp/my-input" --in-place
    cmp -s "$work/mine" "$program" && fail "--in-place did not follow the caller's link"
    is_root || skip "needs root to make links of another user (the caller's link is followed)"
    id nobody > /dev/null 2>&1 || skip "no user 'nobody'"
    echo secret > "$work/secret"
    chmod 0600 "$work/secret"
    # nobodys LINK TARGET: a symbolic link of user nobody.
    nobodys() {
        ln -s "$2" "$1"
        chown -h nobody "$1"
    }
    nobodys "$work/tmp/evil" "$work/secret"
    nobodys "$work/tmp/dangling" "$work/created"
    nobodys "$work/tmp/dir" "$work/private"
    nobodys "$work/tmp/victim" "$work/victim"
    ln -s evil "$work/tmp/chain"              # root's link, then nobody's
    nobodys "$work/plain/hop" ../tmp/dangling # nobody's link where that is fine, then refused
    for args in "-o $work/tmp/evil" "-o $work/tmp/dangling" "-o $work/tmp/chain" \
        "-o $work/plain/hop" "-o $work/tmp/dir/out.btf" \
        "-o $work/out.btf --report-skipped $work/tmp/evil" "--elf -o $work/tmp/evil"; do
        # shellcheck disable=SC2086 # the options split on purpose
        run 1 "$BTFORGE" -q convert "$program" $args
        says "symbolic link .* sticky world-writable directory"
    done
    run 1 "$BTFORGE" -q convert "$work/tmp/victim" --in-place
    says "^btforge: error: $work/tmp/victim: .*symbolic link"
    run 1 "$BTFORGE" pahole-compat -J --btf_encode_detached="$work/tmp/evil" "$program"
    says "^btforge: error: $work/tmp/evil: .*symbolic link"
    run 1 "$BTFORGE" pahole-compat -J "$work/tmp/victim"
    [ "$(cat "$work/secret")" = secret ] || fail "a link of another user was followed"
    [ ! -e "$work/created" ] || fail "a dangling link of another user created its target"
    [ -z "$(ls -A "$work/private")" ] || fail "a directory link of another user was followed"
    cmp -s "$work/victim" "$program" || fail "--in-place followed a link of another user"
    [ ! -e "$work/out.btf" ] || fail "a refused report left the output"
    no_temporary_left
    # Followed: the directory owner's link, and any link in a directory that is not both sticky
    # and world-writable.
    mkdir "$work/theirs" "$work/group-only"
    chmod 1777 "$work/theirs"
    chown nobody "$work/theirs"
    nobodys "$work/theirs/link" "$work/theirs.btf"
    run 0 "$BTFORGE" -q convert "$program" -o "$work/theirs/link"
    cmp -s "$work/theirs.btf" "$work/ref.btf" || fail "the directory owner's link was not followed"
    chmod 1770 "$work/group-only"
    nobodys "$work/group-only/link" "$work/group-only.btf"
    run 0 "$BTFORGE" -q convert "$program" -o "$work/group-only/link"
    cmp -s "$work/group-only.btf" "$work/ref.btf" || fail "a link in a 1770 directory"
    nobodys "$work/plain/report" "$work/report.json"
    run 0 "$BTFORGE" -q convert "$program" -o "$work/plain.btf" --report-skipped "$work/plain/report"
    [ -L "$work/plain/report" ] && [ -s "$work/report.json" ] || fail "a plain directory's link"
    no_temporary_left
    echo "links: another user's link in a sticky world-writable directory refused (10 ways);" \
        "the caller's, the directory owner's and other directories' followed"
    ;;
in-place-special)
    # Refused before INPUT is opened: a FIFO without a writer would otherwise block here.
    mkfifo "$work/fifo"
    run 2 "$BTFORGE" -q convert "$work/fifo" --in-place
    says "^btforge: error: $work/fifo: .*not a regular file"
    [ -p "$work/fifo" ] || fail "the FIFO was replaced"
    run 2 "$BTFORGE" -q convert /dev/stdin --in-place < "$program"
    says "^btforge: error: /dev/stdin: .*not a regular file"
    run 2 "$BTFORGE" -q convert /dev/stdin --in-place < <(cat "$program")
    run 2 "$BTFORGE" -q convert "$work" --in-place
    run 2 "$BTFORGE" pahole-compat -J "$work/fifo"
    if is_root && mknod "$work/null" c 1 3 2> /dev/null; then
        run 2 "$BTFORGE" -q convert "$work/null" --in-place
        [ -c "$work/null" ] || fail "the device was replaced"
    fi
    cp "$program" "$work/real"
    ln -s real "$work/link"
    run 0 "$BTFORGE" -q convert "$work/link" --in-place
    [ -L "$work/link" ] || fail "the link was replaced"
    cmp -s "$work/real" "$program" && fail "--in-place through a link wrote nothing"
    no_temporary_left
    echo "in-place-special: a FIFO, /dev/stdin, a directory, a device refused before reading"
    ;;
descriptors)
    # Descriptors 3-9 are closed for btforge: whatever it opens itself (a piped input's memory
    # file) is not an output.
    for n in 3 4 5 6 7 8 9; do
        for path in /proc/self/fd/$n /dev/fd/$n; do
            run 2 "$BTFORGE" -q convert /dev/stdin -o "$path" < <(cat "$program") \
                3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&-
            says "^btforge: error: $path: .*descriptor"
        done
        # /proc/PID/fd/N, PID btforge's own.
        run 2 bash -c 'exec "$0" -q convert /dev/stdin -o /proc/$$/fd/'"$n" "$BTFORGE" \
            < <(cat "$program") 3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&-
        says "descriptor"
    done
    # One it was given is written.
    for path in /proc/self/fd/5 /dev/fd/5; do
        rm -f "$work/fd5.btf"
        run 0 "$BTFORGE" -q convert /dev/stdin -o "$path" < <(cat "$program") 5> "$work/fd5.btf"
        cmp -s "$work/fd5.btf" "$work/ref.btf" || fail "-o $path: the output differs"
    done
    echo "descriptors: /proc/self/fd/N, /dev/fd/N, /proc/PID/fd/N only for descriptors given"
    ;;
signals)
    require_file "$vmlinux" "scripts/fetch-debian-kernel.sh"
    env --default-signal=INT true 2> /dev/null || skip "env has no --default-signal (coreutils 8.31)"
    echo "old output" > "$work/out.btf"
    echo "old report" > "$work/report.json"
    intact() {
        [ "$(cat "$work/out.btf")" = "old output" ] || fail "$1 changed the output"
        [ "$(cat "$work/report.json")" = "old report" ] || fail "$1 changed the report"
        no_temporary_left
    }
    for signal in INT TERM HUP; do
        # Python starts the run with the signal at its default action (a script's background
        # job starts with SIGINT ignored), sends it once the temporary output exists, and prints
        # the status as Python sees it: -N only for a process the signal ended, which an
        # exit(128 + N) cannot fake.
        status=$(python3 - "$signal" "$work" "$BTFORGE" -q convert "$vmlinux" -o "$work/out.btf" \
            --report-skipped "$work/report.json" 2> "$work/stderr" << 'PY'
import glob, signal, subprocess, sys, time
number = getattr(signal, "SIG" + sys.argv[1])
run = subprocess.Popen(sys.argv[3:], preexec_fn=lambda: signal.signal(number, signal.SIG_DFL))
# The temporary appears once the outputs are opened, seconds before the run ends.
for _ in range(6000):
    if glob.glob(sys.argv[2] + "/.out.btf.tmp.*") or run.poll() is not None:
        break
    time.sleep(0.1)
if not glob.glob(sys.argv[2] + "/.out.btf.tmp.*"):
    print("no temporary output appeared")
    run.kill()
run.send_signal(number)
print(run.wait())
PY
        )
        [ "$status" = "-$(kill -l "$signal")" ] ||
            { cat "$work/stderr"; fail "SIG$signal: $status, not ended by the signal"; }
        intact "SIG$signal"
    done
    # Standard output a pipe nobody reads: SIGPIPE at the first write, the report's temporary
    # file still there; again -N only if the signal ended the process.
    status=$(python3 - "$BTFORGE" -q convert "$vmlinux" -o - --report-skipped "$work/report.json" \
        2> "$work/stderr" << 'PY'
import signal, subprocess, sys
run = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE,
                       preexec_fn=lambda: signal.signal(signal.SIGPIPE, signal.SIG_DFL))
run.stdout.close()
print(run.wait())
PY
    )
    [ "$status" = "-$(kill -l PIPE)" ] || { cat "$work/stderr"; fail "SIGPIPE: $status, not ended by the signal"; }
    intact SIGPIPE
    echo "signals: SIGINT, SIGTERM, SIGHUP, SIGPIPE leave no temporary file and the old output"
    ;;
libraries)
    # A kernel tree is the working directory of a build's runs: the dynamic loader must find
    # nothing there, whatever the run paths say (CMake's padded ones searched it). Every ELF file
    # of the build and the libraries they load get a decoy of each name: not an ELF file, so
    # loading one fails the run.
    command -v readelf > /dev/null || skip "readelf is not installed"
    core=$(core_library "$BTFORGE")
    plugins=("$(dirname "$BTFORGE")"/plugins/*.so)
    [ -f "$core" ] && [ -f "${plugins[0]}" ] || fail "no libbtforge-core or plugins beside $BTFORGE"
    mkdir "$work/tree"
    for elf in "$BTFORGE" "${plugins[@]}" "$core"; do
        ldd "$elf" | awk '$1 ~ /^lib/ {print $1}'
    done | sort -u | while read -r name; do echo "not a library" > "$work/tree/$name"; done
    decoys=$(ls "$work/tree" | wc -l)
    [ "$decoys" -ge 8 ] || fail "only $decoys library names found"
    for elf in "$BTFORGE" "${plugins[@]}" "$core"; do
        readelf -d "$elf" | sed -n 's/.*R\(UN\)\{0,1\}PATH.*\[\(.*\)\]$/\2/p' | tr ':' '\n' |
            grep -vE '^(/|\$ORIGIN)' && fail "$elf: an empty or relative run path entry (above)"
    done
    cp "$program" "$work/tree/program"
    cd "$work/tree"
    for loader in dwarf llvm-dwarf; do
        [ "$loader" = dwarf ] || "$BTFORGE" plugins | grep -q '^llvm-dwarf ' || continue
        for emitter in btf text json c layout; do
            run 0 "$BTFORGE" -q convert -f "$loader" program -t "$emitter" -o "out.$loader.$emitter"
        done
    done
    run 0 "$BTFORGE" -q convert out.dwarf.btf -B out.dwarf.btf -t btf-func-addr -o out.func-addr
    cmp -s out.dwarf.btf out.llvm-dwarf.btf 2> /dev/null || [ ! -e out.llvm-dwarf.btf ] ||
        fail "the two loaders wrote different BTF"
    echo "libraries: $decoys decoy libraries in the working directory, none loaded"
    ;;
failure)
    echo "earlier output" > "$work/out"
    printf 'hello' > "$work/junk"
    run 1 "$BTFORGE" convert "$work/junk" -o "$work/out"
    run 1 "$BTFORGE" convert "$work/missing" -o "$work/out"
    run 2 "$BTFORGE" convert "$program" -o "$work/out" --bogus
    run 2 "$BTFORGE" convert "$program" -o "$work/out" --keep no_such_type
    run 2 "$BTFORGE" convert "$program" -o "$work/out" -t no-such-emitter
    [ "$(cat "$work/out")" = "earlier output" ] || fail "a failed run changed the file at -o"
    no_temporary_left
    echo "failure: 5 failed runs left the file at -o as it was"
    ;;
*)
    fail "unknown case $case_name"
    ;;
esac
