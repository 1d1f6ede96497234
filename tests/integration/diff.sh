#!/usr/bin/env bash
# diff.sh MODE ARGS: `btforge diff` end to end.
#   same INPUT...   each input against itself: exit 0, nothing listed
#   different A B   two builds of a kernel: exit 1, differences listed (text and JSON agree)
#   pairs PREFIX    PREFIX-0.bpf.o against PREFIX-1..4.bpf.o, each changed in one thing: exactly
#                   that thing is listed; and the error contract (exit 2)
#   carried ELF     dump and diff read what a file carries: copies of ELF (with DWARF) whose
#                   .BTF sections differ are dumped as bpftool dumps them and differ; with
#                   -f dwarf their DWARF, which is the same
source "$(dirname "$0")/lib.sh"
mode=$1
shift

# run_diff STATUS ARGS...: `btforge diff ARGS` must exit STATUS; output in $work/out.
run_diff() {
    local want=$1
    shift
    set +e
    "$BTFORGE" --quiet diff "$@" > "$work/out" 2> "$work/err"
    local got=$?
    set -e
    [ "$got" = "$want" ] || { cat "$work/err"; fail "'btforge diff $*' exited $got, expected $want"; }
}

# The listed differences: the lines after the blank line that ends the count table.
listed() {
    awk 'blanks >= 2; /^$/ { blanks++ }' "$work/out"
}

# total_counts: the "total" row of the count table: equal only-a only-b different.
total_counts() {
    awk '$1 == "total" { print $2, $3, $4, $5 }' "$work/out"
}

case "$mode" in
same)
    for input in "$@"; do
        require_file "$input"
        start=$(date +%s%N)
        run_diff 0 -f btf "$input" "$input"
        ms=$((($(date +%s%N) - start) / 1000000))
        [ -z "$(listed)" ] || fail "$input against itself lists differences"
        read -r equal onlyA onlyB different <<< "$(total_counts)"
        [ "$equal" -gt 0 ] && [ "$onlyA$onlyB$different" = 000 ] ||
            fail "$input against itself: counts $equal $onlyA $onlyB $different"
        echo "$input against itself: $equal types equal, ${ms} ms"
    done
    ;;
different)
    a=$1 b=$2
    require_file "$a"
    require_file "$b" "fetch it with scripts/fetch-debian-kernel.sh"
    case "$b" in
    */debian-"$(uname -r)"/*) skip "this machine runs the kernel $b was built as" ;;
    esac
    run_diff 1 -f btf "$a" "$b" --max 25
    read -r equal onlyA onlyB different <<< "$(total_counts)"
    [ $((onlyA + onlyB + different)) -gt 0 ] || fail "exit 1 but the counts show no difference"
    [ "$(listed | grep -vc '^\.\.\. ')" = 25 ] || fail "--max 25 did not list 25 differences"
    listed | grep '^\.\.\. [0-9]* more differences not listed' > /dev/null || fail "no note of the rest"
    run_diff 1 -f btf "$a" "$b" --json --max 0
    grep -q '"equal": false' "$work/out" || fail "JSON does not say the graphs differ"
    grep -q '"listed": 0,' "$work/out" || fail "JSON lists differences despite --max 0"
    echo "$a against $b: equal $equal, only in A $onlyA, only in B $onlyB, different $different"
    ;;
pairs)
    prefix=$1
    reference=$prefix-0.bpf.o
    require_file "$reference"

    # expect_one VARIANT LINE: the variant differs from the reference in LINE and nothing else.
    expect_one() {
        run_diff 1 -f btf "$reference" "$prefix-$1.bpf.o"
        [ "$(listed)" = "$2" ] || { cat "$work/out"; fail "variant $1: expected only '$2'"; }
        read -r _ onlyA onlyB different <<< "$(total_counts)"
        [ "$onlyA $onlyB $different" = "0 0 1" ] || fail "variant $1: counts $onlyA $onlyB $different"
    }
    expect_one 1 "STRUCT event: member 'flags': (absent) -> char flags at bit 8"
    expect_one 2 "STRUCT sample: member 'value' offset: 32 -> 8"
    expect_one 3 "ENUM level: value 'LEVEL_HIGH': 4 -> 5"
    expect_one 4 "FUNC record: param 2 'n' type: int -> long"

    # The other way round, the sides swap.
    run_diff 1 --from-a btf --from-b btf "$prefix-1.bpf.o" "$reference"
    [ "$(listed)" = "STRUCT event: member 'flags': char flags at bit 8 -> (absent)" ] ||
        fail "the swapped diff is not the mirror image"
    run_diff 1 -f btf "$reference" "$prefix-4.bpf.o" --json
    grep -qF '{"kind": "FUNC", "type": "record", "what": "param 2 '"'n'"' type", "a": "int", "b": "long"}' \
        "$work/out" || { cat "$work/out"; fail "JSON does not name the parameter"; }
    grep -qF '"FUNC": {"equal": 0, "only_a": 0, "only_b": 0, "different": 1}' "$work/out" ||
        fail "JSON counts are wrong"
    # --kinds leaves the changed kind out: equal.
    run_diff 0 -f btf "$reference" "$prefix-3.bpf.o" --kinds struct,FUNC

    # Errors of any kind exit 2, with one line.
    run_diff 2 -f btf "$reference"
    run_diff 2 -f btf "$reference" "$work/missing.o"
    grep -q "$work/missing.o" "$work/err" || fail "the missing input is not named"
    printf 'hello' > "$work/junk"
    run_diff 2 "$work/junk" "$reference"
    [ "$(wc -l < "$work/err")" = 1 ] || fail "more than one error line"
    run_diff 2 -f no-such-loader "$reference" "$reference"
    run_diff 2 -f btf "$reference" "$reference" --kinds PTR
    run_diff 2 -f btf "$reference" "$reference" --max -1
    echo "each variant differs from the reference in exactly its one change"
    ;;
carried)
    input=$1
    require_file "$input"
    # Two copies with the same DWARF: one's .BTF has every type, the other's only one struct's.
    "$BTFORGE" --quiet convert "$input" --elf -o "$work/full.o"
    "$BTFORGE" --quiet convert "$input" --elf -o "$work/part.o" --keep "$2"
    for f in full part; do
        "$BTFORGE" --quiet dump "$work/$f.o" > "$work/$f.dump"
        "$BPFTOOL" btf dump file "$work/$f.o" > "$work/$f.bpftool"
        cmp "$work/$f.dump" "$work/$f.bpftool" || fail "dump of $f.o is not its .BTF as bpftool prints it"
    done
    "$BTFORGE" --quiet convert "$input" -o "$work/dwarf.btf"
    "$BTFORGE" --quiet dump -f dwarf "$work/part.o" > "$work/part.dwarf"
    "$BTFORGE" --quiet dump "$work/dwarf.btf" > "$work/dwarf.dump"
    cmp "$work/part.dwarf" "$work/dwarf.dump" || fail "dump -f dwarf is not the DWARF's BTF"
    ! cmp -s "$work/full.dump" "$work/part.dump" || fail "the two .BTF sections should differ"
    run_diff 1 "$work/full.o" "$work/part.o"
    [ -n "$(listed)" ] || fail "diff of different .BTF sections lists nothing"
    run_diff 0 -f dwarf "$work/full.o" "$work/part.o"
    # convert still reads the DWARF: its output is the same from either copy.
    "$BTFORGE" --quiet convert "$work/part.o" -o "$work/again.btf"
    cmp "$work/dwarf.btf" "$work/again.btf" || fail "convert of part.o did not read its DWARF"
    echo "dump and diff read .BTF (as bpftool), -f dwarf the DWARF; convert reads the DWARF"
    ;;
*)
    fail "unknown mode '$mode'"
    ;;
esac
