#!/usr/bin/env bash
# readers.sh MODE ARGS: the two DWARF loaders, dwarf (elfutils libdw) and llvm-dwarf (LLVM's
# DebugInfo), read the same DWARF into the same types (see docs/readers.md).
#   same INPUT...      for each input: both readers fill the same UnitDies, field by field, for
#                      every DIE (btforge-dies-compare, $DIES_COMPARE); `btforge diff --from-a
#                      dwarf --from-b llvm-dwarf` exits 0 and lists nothing; both conversions are
#                      byte-identical and libbpf parses them
#   toolchain SRCDIR   the same for DWARF built at test time: type units (also in relocatable
#                      objects, a COMDAT section each), dwz partial units, compressed sections
#                      (also .zdebug_), C++, a PIE and a shared library; a dwz -m file, which
#                      LLVM cannot follow, is refused by llvm-dwarf in one line
#   vmlinux FILE       `same` for a vmlinux
#   vmlinux-btf FILE   the vmlinux's DWARF against its own .BTF (Debian's pahole 1.24): types equal;
#                      each FUNC difference is one docs/readers.md explains
# Heavy on a vmlinux: not run under the sanitizers (BTFORGE_SANITIZED=1), where it takes minutes.
source "$(dirname "$0")/lib.sh"
mode=$1
shift

# same INPUT: both loaders agree on INPUT.
same() {
    local input=$1 name dies=""
    name=$(basename "$input")
    if [ -n "${DIES_COMPARE:-}" ]; then
        dies=$("$DIES_COMPARE" "$input") || { echo "$dies"; fail "$name: the readers' DIEs differ"; }
        dies="; $dies"
    fi
    set +e
    "$BTFORGE" --quiet diff --from-a dwarf --from-b llvm-dwarf "$input" "$input" > "$work/diff.txt" \
        2> "$work/err"
    local rc=$?
    set -e
    [ "$rc" = 0 ] || { cat "$work/diff.txt" "$work/err"; fail "$name: the loaders differ (exit $rc)"; }
    for loader in dwarf llvm-dwarf; do
        "$BTFORGE" --quiet convert -f $loader "$input" -o "$work/$name.$loader.btf" ||
            fail "$name: $loader cannot convert it"
    done
    cmp -s "$work/$name.dwarf.btf" "$work/$name.llvm-dwarf.btf" ||
        fail "$name: the diff says equal, but the BTF is not byte-identical"
    "$BTF_ORACLE" parse "$work/$name.llvm-dwarf.btf" > /dev/null || fail "$name: libbpf rejects it"
    types=$(awk '$1 == "total" { print $2 }' "$work/diff.txt")
    echo "$name: $types types equal, BTF byte-identical$dies"
}

case "$mode" in
same)
    for input in "$@"; do
        require_file "$input"
        same "$input"
    done
    ;;
toolchain)
    src=$1
    require_file "$src/layouts.c"
    c_sources=("$src/layouts.c" "$src/functions_a.c" "$src/functions_b.c")
    for version in 4 5; do
        for cc in gcc clang-19; do
            "$cc" -g -O1 -w -gdwarf-$version -fdebug-types-section -o "$work/tu-$cc-$version" \
                "${c_sources[@]}"
            same "$work/tu-$cc-$version"
        done
        for cxx in g++ clang++-19; do
            "$cxx" -g -O1 -w -gdwarf-$version -fdebug-types-section -o "$work/tu-$cxx-$version" \
                "$src/references.cpp"
            same "$work/tu-$cxx-$version"
        done
        # Relocatable objects: a COMDAT section per type unit, one object and -r of all three.
        gcc -g -O1 -w -gdwarf-$version -fdebug-types-section -c -o "$work/tu-gcc-$version-b.o" \
            "$src/functions_b.c"
        gcc -g -O1 -w -gdwarf-$version -fdebug-types-section -r -o "$work/tu-gcc-$version-r.o" \
            "${c_sources[@]}"
        same "$work/tu-gcc-$version-b.o"
        same "$work/tu-gcc-$version-r.o"
    done
    # A relocatable object whose data sections have addresses, as `ld -r -T module.lds` gives a
    # 6.x kernel's modules: a variable lies where its symbol says (the section's offset), and
    # both loaders place it there (LLVM adds sh_addr to a relocatable file's symbols).
    printf 'SECTIONS {\n .text 0 : { *(.text .text.*) }\n .data..percpu : { *(.data..percpu) }\n .data : { *(.data .data.*) }\n}\n' \
        > "$work/module.lds"
    gcc -g -O2 -w -r -o "$work/addr.o" "${c_sources[@]}"
    ld -r -T "$work/module.lds" -o "$work/addressed.o" "$work/addr.o"
    readelf -SW "$work/addressed.o" | grep -Eq ' \.data +PROGBITS +0*[1-9a-f]' ||
        fail "ld -r gave .data no address: the case is not built"
    same "$work/addressed.o"
    for loader in dwarf llvm-dwarf; do
        "$BTFORGE" --quiet convert -f $loader --features default,global_var "$work/addressed.o" \
            -o "$work/addressed.$loader.btf"
    done
    cmp -s "$work/addressed.dwarf.btf" "$work/addressed.llvm-dwarf.btf" ||
        fail "addressed.o with global_var: the loaders' BTF differs"
    # Each DATASEC entry as "SECTION VAR OFFSET", against the symbols' "SECTION NAME VALUE".
    "$BPFTOOL" btf dump file "$work/addressed.dwarf.btf" | awk '
        /^\[[0-9]+\] DATASEC / { section = $3; gsub("\047", "", section); next }
        /^\[/ { section = "" }
        section != "" && /offset=/ {
            split($0, f, "VAR \047"); sub("\047.*", "", f[2]); sub(".*offset=", "")
            print section, f[2], $1 + 0 }' | sort > "$work/addressed.vars"
    readelf -SW "$work/addressed.o" | sed -n 's/^ *\[ *\([0-9]*\)\] \([^ ]*\) .*/\1 \2/p' > "$work/sections"
    readelf -sW "$work/addressed.o" | awk -v s="$work/sections" '
        BEGIN { while ((getline l < s) > 0) { split(l, f, " "); name[f[1]] = f[2] } }
        $4 == "OBJECT" && ($7 in name) { print name[$7], $8, $2 }' |
        while read -r section symbol value; do echo "$section $symbol $((16#$value))"; done |
        sort > "$work/addressed.syms"
    grep -q '^\.data\.\.percpu [^ ]* [1-9]' "$work/addressed.syms" ||
        fail "addressed.o: no variable past the start of .data..percpu"
    diff "$work/addressed.syms" "$work/addressed.vars" ||
        fail "addressed.o: DATASEC entries are not where the symbols are"
    echo "addressed.o: $(wc -l < "$work/addressed.syms") variables where their symbols are, with both loaders"
    # dwz: partial units in the file itself (DWARF 4 and 5).
    if command -v dwz > /dev/null; then
        for version in 4 5; do
            gcc -g -O0 -w -gdwarf-$version -o "$work/dwz-$version" "${c_sources[@]}"
            gcc -g -O1 -w -gdwarf-$version -o "$work/dwz-$version-O1" "${c_sources[@]}"
            dwz "$work/dwz-$version"
            readelf --debug-dump=info "$work/dwz-$version" > "$work/dump.txt"
            grep -q DW_TAG_partial_unit "$work/dump.txt" || fail "dwz made no partial unit"
            same "$work/dwz-$version"
        done
        # dwz -m: the types are in a file only libdw follows; LLVM must refuse, not make voids.
        gcc -g -O0 -w -o "$work/m-a" "${c_sources[@]}"
        gcc -g -O1 -w -o "$work/m-b" "${c_sources[@]}"
        dwz -m "$work/common.debug" "$work/m-a" "$work/m-b" || fail "dwz -m failed"
        if "$BTFORGE" --quiet convert -f llvm-dwarf "$work/m-a" -o "$work/m.btf" 2> "$work/err" ||
            [ "$(wc -l < "$work/err")" != 1 ] || [ -e "$work/m.btf" ] ||
            ! grep -q "^btforge: error: $work/m-a: .*\.gnu_debugaltlink" "$work/err"; then
            cat "$work/err"
            fail "dwz -m output: llvm-dwarf did not refuse it in one line naming .gnu_debugaltlink"
        fi
        echo "dwz -m output: refused by llvm-dwarf: $(cat "$work/err")"
    fi
    for kind in zlib zstd; do
        if ! gcc -g -O2 -w -gz=$kind -o "$work/gz-$kind" "${c_sources[@]}" 2> /dev/null; then
            echo "gcc cannot compress debug sections with $kind: not compared"
            continue
        fi
        gcc -g -O2 -w -gz=$kind -r -o "$work/gz-$kind.o" "${c_sources[@]}"
        # libelf before elfutils 0.189 cannot decompress zstd: then libdw refuses it, and there
        # is nothing to compare.
        if ! "$BTFORGE" --quiet convert -f dwarf "$work/gz-$kind" -o "$work/gz-$kind.btf" 2> /dev/null; then
            echo "libdw cannot read $kind-compressed DWARF here: not compared"
            continue
        fi
        same "$work/gz-$kind"
        same "$work/gz-$kind.o"
    done
    # .zdebug_ sections (zlib-gnu), which LLVM 19 no longer inflates itself.
    gcc -g -O2 -w -o "$work/plain" "${c_sources[@]}"
    gcc -g -O2 -w -r -o "$work/plain.o" "${c_sources[@]}"
    for input in plain plain.o; do
        if objcopy --compress-debug-sections=zlib-gnu "$work/$input" "$work/zdebug-$input"; then
            same "$work/zdebug-$input"
        fi
    done
    for cxx in g++ clang++-19; do
        "$cxx" -g -O1 -w -o "$work/cxx-$cxx" "$src/references.cpp"
        same "$work/cxx-$cxx"
    done
    gcc -g -O2 -w -fPIE -pie -o "$work/pie" "${c_sources[@]}"
    gcc -g -O2 -w -fPIC -shared -o "$work/shared.so" "$src/layouts.c" "$src/functions_a.c"
    same "$work/pie"
    same "$work/shared.so"
    ;;
vmlinux)
    require_file "$1" "fetch it with scripts/fetch-debian-kernel.sh"
    [ "${BTFORGE_SANITIZED:-0}" != 1 ] || skip "a vmlinux takes minutes under the sanitizers"
    same "$1"
    ;;
vmlinux-btf)
    vmlinux=$1
    require_file "$vmlinux" "fetch it with scripts/fetch-debian-kernel.sh"
    [ "${BTFORGE_SANITIZED:-0}" != 1 ] || skip "a vmlinux takes minutes under the sanitizers"
    "$BTFORGE" --quiet convert "$vmlinux" -o "$work/vmlinux.btf" --report-skipped "$work/skipped.json"
    set +e
    "$BTFORGE" --quiet diff --from-a dwarf --from-b btf --flatten-arrays --max 100000 \
        "$vmlinux" "$vmlinux" > "$work/diff.txt"
    rc=$?
    set -e
    [ "$rc" = 1 ] || fail "DWARF against .BTF: exit $rc, expected 1 (the FUNC sets differ)"
    # Every kind of type is equal; only FUNCs, and the VAR and DATASEC of docs/readers.md, differ.
    awk '$1 ~ /^[A-Z0-9_]+$/ && $1 != "FUNC" && $1 != "VAR" && $1 != "DATASEC" &&
         $3 + $4 + $5 != 0' "$work/diff.txt" > "$work/types.txt"
    [ ! -s "$work/types.txt" ] || { cat "$work/types.txt"; fail "types differ from the .BTF's"; }
    grep -q "^VAR fixed_percpu_data: only in A" "$work/diff.txt" ||
        fail "the VAR pahole 1.24 left out is no longer the only VAR difference"
    # Each FUNC difference has one of the causes docs/readers.md counts.
    bpftool_funcs() { "$BPFTOOL" btf dump file "$1" | sed -n "s/^\[[0-9]*\] FUNC '\([^']*\)'.*/\1/p"; }
    bpftool_funcs "$vmlinux" | sort | uniq -d > "$work/duplicated.txt"
    readelf -sW "$vmlinux" | awk '$4 == "FUNC" { print $8 }' | sort -u > "$work/symbols.txt"
    grep -o '"name":"[^"]*","reason":"[^"]*"' "$work/skipped.json" |
        sed 's/"name":"\([^"]*\)","reason":"\([^"]*\)"/\1\t\2/' > "$work/skipped.txt"
    awk -F'\t' -v dup="$work/duplicated.txt" -v syms="$work/symbols.txt" \
        -v skipped="$work/skipped.txt" '
        BEGIN {
            while ((getline l < dup) > 0) duplicated[l] = 1
            while ((getline l < syms) > 0) symbol[l] = 1
            while ((getline l < skipped) > 0) { split(l, f, "\t"); reason[f[1]] = f[2] }
        }
        /^FUNC [^ ]+: / {
            name = $0; sub(/^FUNC /, "", name); sub(/: .*/, "", name)
            if ($0 ~ /: only in B: /) {
                if (name in reason) why = "only in .BTF: btforge skips it: " reason[name]
                else if (name in duplicated) why = "only in .BTF: a second FUNC of the name"
                else why = "UNEXPLAINED only in .BTF"
            } else if ($0 ~ /: only in A: /) {
                why = (name in symbol) ? "UNEXPLAINED only in DWARF" \
                    : "only in DWARF: its symbol has a .isra/.constprop suffix"
            } else if (seen[name]++) {
                next
            } else if (!(name in duplicated) && $0 ~ /: param [0-9]+ (name|.* type): /) {
                why = "different: parameter names or qualifiers of another instance"
            } else {
                why = "UNEXPLAINED different"
            }
            count[why]++
        }
        END { for (w in count) print count[w] "\t" w }' "$work/diff.txt" | sort -rn > "$work/causes.txt"
    cat "$work/causes.txt"
    ! grep -q UNEXPLAINED "$work/causes.txt" || fail "FUNC differences with no known cause"
    ;;
*)
    fail "unknown mode '$mode'"
    ;;
esac
