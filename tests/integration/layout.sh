#!/usr/bin/env bash
# layout.sh TOOLS btf INPUT... | TOOLS split VMLINUX MODULE | TOOLS programs SOURCE... |
#           TOOLS dwarf-vmlinux VMLINUX
# btforge's `pahole` link printing layouts (the layout emitter) against upstream pahole master
# (TOOLS: ../shared/tools/pahole-master), byte for byte, upstream's output made at test time:
#  - btf: each INPUT's BTF (a raw BTF file, /sys/kernel/btf/vmlinux, or an ELF file read with
#    -F btf) with no option, -E, --hex, -s, -H 1, -c 32, --structs -M, and -C lists (structs,
#    unions, typedefs, enums), with and without -E;
#  - split: MODULE's split BTF over VMLINUX's (--btf_base), which lists the base's types too;
#  - programs: the SOURCEs linked into one program by gcc and clang-19, DWARF 4 and 5, -O0 and
#    -O2: its DWARF (-F dwarf: no option, -E, -M, --hex, -c 32, -C lists; a file with DWARF and
#    .BTF is read as DWARF) and the BTF upstream encodes from it (-F btf; also with FLOATs), so
#    that where upstream's DWARF and BTF layouts differ, btforge's differ the same way (checked
#    to differ somewhere);
#    `btforge convert -t layout` with its shorthands gives the same; the options btforge leaves
#    out are refused, one line naming the option, exit 2;
#  - dwarf-vmlinux: a vmlinux's DWARF whole (-s, and every layout with --lang_exclude=rust: in
#    the order upstream reads its units), and with -C lists of the structs upstream's -s lists,
#    taken in its order (upstream's DWARF reader finds -C names in the order of its units).
source "$(dirname "$0")/lib.sh"
tools=$1 mode=$2
shift 2
require_file "$tools/bin/pahole" "upstream pahole, in ../shared/tools"
runnable_copy "$tools" "$work/upstream"
upstream() { "$work/upstream/pahole" "$@"; }
mkdir "$work/bin"
ln -s "$(readlink -f "$BTFORGE")" "$work/bin/pahole"
btforge() { "$work/bin/pahole" "$@"; }

# same ARGS...: upstream pahole and btforge's print the same bytes and both succeed.
checks=0
same() {
    local args
    args=$(echo "$*" | cut -c1-100)
    upstream "$@" > "$work/upstream.out" 2> "$work/upstream.err" ||
        fail "upstream pahole $args failed: $(head -3 "$work/upstream.err")"
    [ ! -s "$work/upstream.err" ] || fail "upstream pahole $args: $(head -3 "$work/upstream.err")"
    btforge "$@" > "$work/btforge.out" || fail "btforge's pahole $args failed"
    [ -s "$work/upstream.out" ] || fail "upstream pahole $args printed nothing"
    cmp -s "$work/upstream.out" "$work/btforge.out" ||
        { diff "$work/upstream.out" "$work/btforge.out" | head -20; fail "pahole $args differs"; }
    checks=$((checks + 1))
    echo "  pahole $args: $(wc -l < "$work/btforge.out") lines, identical"
}
# names FILE KINDS N [BASE]: every Nth name of a struct, union, typedef or enum (KINDS, bpftool's
# words as btforge dump prints them) of what FILE carries (over BASE), comma-separated.
names() {
    "$BTFORGE" dump "$1" ${4:+-B "$4"} |
        sed -n -E "s/^\[[0-9]+\] ($2) '([^'(]+)'.*/\2/p" | awk '!seen[$0]++' |
        awk -v n="$3" 'NR % n == 1' | paste -sd, -
}

case "$mode" in
btf)
    for input in "$@"; do
        format=()
        [ "$input" = "${input%:btf}" ] || { input=${input%:btf}; format=(-F btf); }
        require_file "$input" "fetch it with scripts/fetch-debian-kernel.sh"
        echo "$input ${format[*]}:"
        for options in "" "-E" "--hex" "-s" "-H 1" "-c 32" "--structs -M"; do
            # shellcheck disable=SC2086 # the options split on purpose
            same "${format[@]}" $options "$input"
        done
        composites=$(names "$input" "STRUCT|UNION" 5)
        others=$(names "$input" "TYPEDEF|ENUM|ENUM64" 20)
        same "${format[@]}" -C "$composites" "$input"
        same "${format[@]}" -E -C "$composites,$others" "$input"
    done
    ;;
split)
    vmlinux=$1 module=$2
    require_file "$module" "fetch it with scripts/fetch-debian-kernel.sh"
    for options in "" "-E" "-s -H 2"; do
        # shellcheck disable=SC2086
        same -F btf --btf_base "$vmlinux" $options "$module"
    done
    same -F btf --btf_base "$vmlinux" -C "$(names "$module" "STRUCT|UNION" 3 "$vmlinux")" "$module"
    ;;
programs)
    sources=("$@")
    for source in "${sources[@]}"; do require_file "$source"; done
    command -v clang-19 > /dev/null || skip "clang-19 is not installed"
    differ=0
    for cc in gcc clang-19; do
        for dwarf in 4 5; do
            for level in 0 2; do
                program="$work/${cc}-dwarf$dwarf-O$level"
                "$cc" -g -gdwarf-$dwarf -O$level -w -o "$program" "${sources[@]}"
                echo "$(basename "$program"):"
                for options in "" "-E" "-M" "--hex" "-c 32"; do
                    # shellcheck disable=SC2086
                    same -F dwarf $options "$program"
                done
                list=bits,anonymous,functions,local_only,arrays,color,point_t,handler_t
                same -F dwarf -C "$list" "$program"
                same -F dwarf -E -C "$list,holder,typedefs" "$program"
                # -C names are looked up unit by unit (shapes_v2.c's unit comes second, with its
                # own union api_frame): each from the unit the previous name was found in on, or
                # with --skip_missing from the first, printed in the order of their units.
                for names in v2_only,api_frame api_frame,v2_only; do
                    same -F dwarf -C "$names" "$program"
                    same -F dwarf --skip_missing -C "$names" "$program"
                done
                same -F dwarf --skip_missing -C bits,v2_only,holder "$program"
                upstream -C api_frame,v2_only "$program" > "$work/first.out"
                upstream -C v2_only,api_frame "$program" > "$work/second.out"
                grep -q queue "$work/first.out" && ! grep -q queue "$work/second.out" ||
                    fail "the -C lists do not reach both versions of union api_frame"
                # A listing by name reads units until it has found the names, as pahole does:
                # bits is in the first unit, v2_only in the second.
                dies() {
                    "$BTFORGE" --stats convert "$program" -t layout -o "$work/stats.out" "$@" \
                        2>&1 > /dev/null | sed -n 's/.*DIEs kept \([0-9,]*\).*/\1/p' | tr -d ,
                }
                [ "$(dies -C bits)" -lt "$(dies -C v2_only)" ] &&
                    [ "$(dies -C v2_only)" = "$(dies)" ] ||
                    fail "-C bits read the second unit too, or -C v2_only not all"
                # pahole does not find holder after v2_only (an earlier unit has it) and says so
                # after printing bits and v2_only; btforge prints the same, then its error.
                upstream -C bits,v2_only,holder "$program" > "$work/upstream.out" 2> /dev/null
                if btforge -C bits,v2_only,holder "$program" > "$work/btforge.out" \
                    2> "$work/err"; then
                    fail "pahole -C bits,v2_only,holder: btforge found holder after v2_only"
                fi
                cmp -s "$work/upstream.out" "$work/btforge.out" &&
                    grep -q "'holder' not found" "$work/err" ||
                    fail "pahole -C bits,v2_only,holder: not upstream's output, then the error"
                # The BTF upstream encodes from the DWARF, in a copy that has both: read as
                # DWARF by default, as BTF with -F btf.
                cp "$program" "$program.btf"
                upstream -J "$program.btf"
                same "$program.btf"
                cmp -s "$work/upstream.out" <(upstream -F dwarf "$program") ||
                    fail "a file with DWARF and .BTF: upstream did not read its DWARF"
                upstream -F dwarf "$program" > "$work/dwarf.out"
                same -F btf "$program.btf"
                cmp -s "$work/dwarf.out" "$work/btforge.out" || differ=$((differ + 1))
                same -F btf -E "$program.btf"
                # With BTF's FLOAT kind, which pahole's BTF reader spells "single double".
                cp "$program" "$program.floats"
                upstream -J --btf_gen_floats "$program.floats"
                same -F btf "$program.floats"
                # convert's own options give the same.
                "$BTFORGE" convert "$program" -t layout -o - -C "$list" -E --cacheline 32 \
                    > "$work/convert.out"
                upstream -C "$list" -E -c 32 "$program" > "$work/upstream.out"
                cmp "$work/upstream.out" "$work/convert.out" ||
                    fail "convert -t layout -C ... -E --cacheline 32 differs from pahole's"
                checks=$((checks + 1))
            done
        done
    done
    [ "$differ" -gt 0 ] || fail "no program's DWARF and BTF layouts differ: nothing shows they differ alike"
    echo "upstream's DWARF and BTF layouts differ for $differ of 8 programs; btforge's alike"
    # What btforge leaves out is refused by name, never ignored.
    for option in -R -S -P --reorganize --packable -a --show_private_classes -r -I; do
        set +e
        btforge "$option" "$program" > "$work/refused.out" 2> "$work/refused.err"
        status=$?
        set -e
        [ "$status" = 2 ] || fail "pahole $option exits $status, not 2"
        [ ! -s "$work/refused.out" ] || fail "pahole $option printed layouts"
        [ "$(wc -l < "$work/refused.err")" = 1 ] && grep -qF -- "'$option'" "$work/refused.err" ||
            fail "pahole $option: '$(cat "$work/refused.err")' is not one line naming it"
    done
    echo "  refused by name: -R -S -P --reorganize --packable -a --show_private_classes -r -I"
    ;;
dwarf-vmlinux)
    vmlinux=$1
    require_file "$vmlinux" "fetch it with scripts/fetch-debian-kernel.sh"
    [ "${BTFORGE_SANITIZED:-0}" != 1 ] || skip "run by the release build only (minutes under ASan)"
    # Whole listings: every struct and union, in the order upstream reads the units.
    same -F dwarf -s "$vmlinux"
    list=$(awk 'NR % 40 == 1 { print $1 }' "$work/upstream.out" | paste -sd, -)
    same -F dwarf --lang_exclude=rust "$vmlinux"
    same -F dwarf -C "$list" "$vmlinux"
    same -F dwarf -E --hex -C "$(echo "$list" | cut -d, -f1-40)" "$vmlinux"
    ;;
*) fail "unknown mode $mode" ;;
esac
echo "layout: $checks outputs byte-identical with upstream pahole master"
