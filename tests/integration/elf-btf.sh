#!/usr/bin/env bash
# elf-btf.sh CASE SOURCE_DIR|FILE
#
# convert --elf / --in-place against tools nobody here wrote: readelf lists the sections, and
# each section's bytes (read at readelf's offsets with dd, hashed with sha256sum) must be the same
# before and after except .BTF (and .shstrtab, which may only grow); bpftool dumps the new .BTF
# exactly as it dumps the BTF `convert -o` writes; libbpf parses it; programs still run.
#  objects SRC        ELF64/ELF32 of both byte orders (x86-64, i386, powerpc, s390x, bpfeb),
#                     ET_REL, ET_EXEC, ET_DYN, built from SRC/kinds.bpf.c and SRC/sample.c
#  replace OBJ        a BPF object's .BTF replaced in place (.BTF.ext untouched), twice: the
#                     file does not grow; through a symbolic link
#  xindex SRC         an object with more than 65279 sections (SHN_XINDEX; every section's
#                     header compared, the bytes of a sample)
#  failure FILE       --in-place failing midway (full filesystem, read-only directory, no write
#                     permission) leaves FILE as it was and no temporary file
#  vmlinux VMLINUX    the Debian kernel: its allocated .BTF is refused; with that one renamed,
#                     --in-place adds a .BTF the kernel accepts
source "$(dirname "$0")/lib.sh"
case_=$1 arg=$2

names_index() {
    # With SHN_XINDEX readelf prints "65535 (N)": the last number is the index.
    readelf -hW "$1" | sed -n 's/.*Section header string table index:.*[^0-9]\([0-9][0-9]*\)[^0-9]*$/\1/p'
}
# "index name type addr offset size" of every section, in a file: bash reads lines from a pipe a
# byte at a time, from a file a block at a time.
section_table() {
    readelf -SW "$1" | sed -n 's/^ *\[ *\([0-9]*\)\] /\1 /p' > "$work/table"
    count=$(wc -l < "$work/table")
}
bytes_at() { # FILE OFFSET SIZE (hex, as readelf prints them)
    dd if="$1" bs=4M iflag=skip_bytes,count_bytes skip=$((16#$2)) count=$((16#$3)) status=none
}
# "name type addr offset size sha256" for every section but NULL, .BTF and the section name
# table (clang's objects share it with the symbol names: .strtab). With tens of thousands of
# sections, the bytes of every 1009th and of every section over 64 bytes only.
sections() {
    local names count index name type addr off size rest hash
    names=$(names_index "$1")
    section_table "$1"
    awk -v names="$names" -v count="$count" '
        $1 == 0 || $2 == ".BTF" || $1 == names { next }
        {
            size = $6; sub(/^0+/, "", size)
            small = length(size) < 2 || (length(size) == 2 && size <= "40")
            hash = $3 != "NOBITS" && (count <= 2000 || $1 % 1009 == 0 || !small)
            print $2, $3, $4, $5, $6, hash ? "hash" : "-"
        }' "$work/table" > "$work/selected"
    while read -r name type addr off size hash; do
        [ "$hash" = - ] || hash=$(bytes_at "$1" "$off" "$size" | sha256sum | cut -d' ' -f1)
        echo "$name $type $addr $off $size $hash"
    done < "$work/selected"
}
names_bytes() { # FILE -> the section name table's bytes on stdout
    local names count index name type addr off size rest
    names=$(names_index "$1")
    section_table "$1"
    while read -r index name type addr off size rest; do
        if [ "$index" = "$names" ]; then bytes_at "$1" "$off" "$size"; fi
    done < "$work/table"
}

# check IN OUT: every other section unchanged, the name table only grown, .BTF what convert -o gives.
check() {
    local in=$1 out=$2
    sections "$in" > "$work/before" && sections "$out" > "$work/after"
    [ -s "$work/before" ] || fail "readelf lists no sections in $in"
    cmp -s "$work/before" "$work/after" || {
        diff "$work/before" "$work/after" | head
        fail "$out: sections other than .BTF changed"
    }
    names_bytes "$in" > "$work/names.before"
    names_bytes "$out" > "$work/names.after"
    cmp -s "$work/names.before" <(head -c "$(stat -c %s "$work/names.before")" "$work/names.after") ||
        fail "$out: the section name table lost bytes"
    readelf -SW "$out" | grep ' \.BTF  *PROGBITS' > /dev/null || fail "$out: no .BTF PROGBITS section"
    "$BTFORGE" --quiet convert "$in" "${@:3}" -o "$work/raw.btf"
    "$BPFTOOL" btf dump file "$work/raw.btf" > "$work/raw.txt"
    "$BPFTOOL" btf dump file "$out" > "$work/elf.txt" || fail "bpftool cannot read $out"
    cmp -s "$work/raw.txt" "$work/elf.txt" || fail "$out: bpftool dumps another BTF than convert -o's"
    "$BTF_ORACLE" parse "$out" > /dev/null || fail "libbpf rejects $out"
    [ "$(stat -c %a "$in")" = "$(stat -c %a "$out")" ] || fail "$out: file mode not kept"
    echo "$(basename "$out"): $(wc -l < "$work/before") sections unchanged, .BTF $(grep -c '^\[' "$work/elf.txt") types"
}

case "$case_" in
objects)
    src=$arg
    for target in x86_64-linux-gnu i386-linux-gnu powerpc-linux-gnu s390x-linux-gnu bpfeb; do
        clang-19 --target=$target -g -O2 -c "$src/kinds.bpf.c" -o "$work/k-$target.o" ||
            skip "clang-19 cannot build for $target"
        "$BTFORGE" --quiet convert "$work/k-$target.o" --elf -o "$work/k-$target.out.o"
        check "$work/k-$target.o" "$work/k-$target.out.o"
        file "$work/k-$target.out.o" | grep relocatable > /dev/null || fail "not ET_REL any more"
    done
    gcc -g -O2 -no-pie -o "$work/exec" "$src/sample.c"
    gcc -g -O2 -pie -fPIE -o "$work/pie" "$src/sample.c"
    for program in exec pie; do
        "$BTFORGE" --quiet convert "$work/$program" --elf -o "$work/$program.out"
        check "$work/$program" "$work/$program.out"
        expected=$("$work/$program" 2>&1; echo "exit $?")
        [ "$("$work/$program.out" 2>&1; echo "exit $?")" = "$expected" ] ||
            fail "$program.out does not run as $program does"
    done
    readelf -h "$work/exec.out" | grep 'EXEC' > /dev/null && readelf -h "$work/pie.out" | grep 'DYN' > /dev/null ||
        fail "ELF types changed"
    ;;
replace)
    cp "$arg" "$work/obj.o"
    readelf -SW "$work/obj.o" | grep ' \.BTF\.ext ' > /dev/null || fail "$arg has no .BTF.ext"
    btf_index=$(readelf -SW "$work/obj.o" | sed -n 's/^ *\[ *\([0-9]*\)\] \.BTF .*/\1/p')
    "$BTFORGE" --quiet convert "$work/obj.o" --in-place --features encode_force
    check "$arg" "$work/obj.o" --features encode_force
    [ "$(readelf -SW "$work/obj.o" | sed -n 's/^ *\[ *\([0-9]*\)\] \.BTF .*/\1/p')" = "$btf_index" ] ||
        fail ".BTF moved to another index"
    ! "$BPFTOOL" btf dump file "$work/obj.o" | grep -E '^\[[0-9]+\] (DECL_TAG|TYPE_TAG|ENUM64|FLOAT)' > /dev/null ||
        fail "the replaced .BTF still has kinds the features turned off"
    size=$(stat -c %s "$work/obj.o")
    "$BTFORGE" --quiet convert "$work/obj.o" --in-place --features encode_force
    [ "$(stat -c %s "$work/obj.o")" = "$size" ] || fail "rewriting in place grew the file"
    # Through a symbolic link: the file it names is rewritten, the link stays a link.
    cp "$arg" "$work/real.o" && ln -s real.o "$work/link.o"
    "$BTFORGE" --quiet convert "$work/link.o" --in-place --features encode_force
    [ -L "$work/link.o" ] && cmp -s "$work/real.o" "$work/obj.o" || fail "--in-place through a link"
    ;;
xindex)
    for i in $(seq 1 65300); do echo ".section .s$i,\"a\""; echo ".byte $((i % 256))"; done > "$work/many.s"
    clang-19 -c "$work/many.s" -o "$work/many.o"
    clang-19 -g -O2 -c "$arg/kinds.bpf.c" -o "$work/kinds.o"
    ld -r -z noexecstack "$work/many.o" "$work/kinds.o" -o "$work/big.o"
    [ "$(readelf -h "$work/big.o" | sed -n 's/.*Number of section headers: *\([0-9]*\).*/\1/p')" = 0 ] ||
        fail "the test object does not use SHN_XINDEX"
    "$BTFORGE" --quiet convert "$work/big.o" --elf -o "$work/big.out.o"
    check "$work/big.o" "$work/big.out.o"
    ;;
failure)
    [ "$(id -u)" = 0 ] || skip "needs root to mount a small filesystem"
    unshare -m true 2> /dev/null || skip "cannot make a mount namespace here"
    cp "$arg" "$work/input"
    size=$(stat -c %s "$arg")
    # Full filesystem: room for the input, not for the output written beside it.
    unshare -m bash -c '
        set -e
        mkdir "$1/small"
        mount -t tmpfs -o size=$(( ($2 / 4096 + 2) * 4096 )) tmpfs "$1/small"
        cp "$1/input" "$1/small/input"
        set +e
        "$3" --quiet convert "$1/small/input" --in-place 2> "$1/err"
        echo $? > "$1/status"
        cmp "$1/input" "$1/small/input" && ls -A "$1/small" > "$1/left"' _ "$work" "$size" "$BTFORGE" ||
        fail "--in-place on a full filesystem changed the input"
    [ "$(cat "$work/status")" != 0 ] || fail "--in-place on a full filesystem succeeded"
    [ "$(cat "$work/left")" = input ] || fail "left behind: $(cat "$work/left")"
    echo "full filesystem: $(cat "$work/err")"
    # Read-only directory (a read-only bind mount stops root too).
    unshare -m bash -c '
        set -e
        mkdir "$1/ro" && cp "$1/input" "$1/ro/input"
        mount --bind "$1/ro" "$1/ro" && mount -o remount,bind,ro "$1/ro"
        set +e
        "$2" --quiet convert "$1/ro/input" --in-place 2> "$1/err"
        echo $? > "$1/status"' _ "$work" "$BTFORGE"
    [ "$(cat "$work/status")" != 0 ] || fail "--in-place in a read-only directory succeeded"
    cmp -s "$work/input" "$work/ro/input" || fail "--in-place in a read-only directory changed the input"
    echo "read-only directory: $(cat "$work/err")"
    # A directory the user may not write to, the file writable.
    if command -v setpriv > /dev/null; then
        mkdir "$work/locked" && cp "$work/input" "$work/locked/input"
        chmod 755 "$work" "$work/locked" && chmod 666 "$work/locked/input"
        status=0
        setpriv --reuid=nobody --regid=nogroup --clear-groups \
            "$BTFORGE" --quiet convert "$work/locked/input" --in-place 2> "$work/err" || status=$?
        [ "$status" != 0 ] || fail "--in-place without write permission succeeded"
        cmp -s "$work/input" "$work/locked/input" || fail "--in-place without permission changed the input"
        echo "no permission: $(cat "$work/err")"
    fi
    ;;
vmlinux)
    require_file "$arg" "fetch it with scripts/fetch-debian-kernel.sh"
    # At most three copies at once: two files and the one --in-place writes beside them.
    require_copies 3 "$arg"
    status=0
    "$BTFORGE" --quiet convert "$arg" --elf -o "$work/refused" 2> "$work/err" || status=$?
    [ "$status" = 1 ] && grep -q SHF_ALLOC "$work/err" || fail "allocated .BTF not refused ($status)"
    [ ! -e "$work/refused" ] || fail "output left after a refusal"
    echo "refused: $(cat "$work/err")"
    # As in a kernel build, before the BTF is linked in: the allocated .BTF renamed out of the
    # way (objcopy cannot remove it: relocations refer to __start_BTF).
    objcopy --rename-section .BTF=.BTF.linked "$arg" "$work/vmlinux"
    cp -p "$work/vmlinux" "$work/vmlinux.orig"
    "$BTFORGE" --quiet convert "$work/vmlinux" --in-place
    check "$work/vmlinux.orig" "$work/vmlinux"
    rm "$work/vmlinux"
    "$BTF_ORACLE" load "$work/raw.btf" || [ $? = "$SKIP" ] || fail "the kernel rejects vmlinux's new .BTF"
    # As ld.lld links .tmp_vmlinux.btf (LLVM=1 kernel builds): the kernel's .BTF output section
    # kept, empty and allocated. pahole -J fills it; so does btforge, leaving it unallocated (the
    # build copies it out and links it in).
    : > "$work/empty"
    objcopy --add-section .BTF="$work/empty" --set-section-flags .BTF=alloc,readonly \
        "$work/vmlinux.orig" "$work/vmlinux.lld"
    rm "$work/vmlinux.orig"
    readelf -SW "$work/vmlinux.lld" | grep -Eq ' \.BTF +PROGBITS +[0-9a-f]+ [0-9a-f]+ 0+ .* A ' ||
        fail "objcopy did not make an empty allocated .BTF"
    cp -p "$work/vmlinux.lld" "$work/vmlinux.lld.orig"
    "$BTFORGE" --quiet convert "$work/vmlinux.lld" --in-place
    ! readelf -SW "$work/vmlinux.lld" | grep -Eq ' \.BTF +PROGBITS .* A ' ||
        fail "the filled .BTF is still allocated"
    check "$work/vmlinux.lld.orig" "$work/vmlinux.lld"
    # The kernel build's own call.
    cp -p "$work/vmlinux.lld.orig" "$work/vmlinux.lld"
    "$BTFORGE" pahole-compat -J "$work/vmlinux.lld" > /dev/null || fail "pahole -J refuses LLD's empty .BTF"
    "$BTF_ORACLE" parse "$work/vmlinux.lld" > /dev/null || fail "libbpf rejects pahole -J's .BTF"
    ;;
*) fail "unknown case $case_" ;;
esac
