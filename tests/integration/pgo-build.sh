#!/usr/bin/env bash
# pgo-build.sh configure SOURCE_DIR COMPILER_ID
# pgo-build.sh build SOURCE_DIR COMPILER_ID PROGRAM KERNEL_DIR
# btforge's profile-guided build (scripts/build-pgo.sh, -DBTFORGE_PGO).
#  - configure (a test, seconds): configure refuses what cannot work, for GCC and clang, and gives
#    each compiler its flags (GCC: atomic counters; a partial training optimised as usual).
#  - build (scripts/heavy-checks.sh, ten minutes: two builds): the PGO build by the other compiler
#    (clang when this build is GCC's, GCC when it is clang's), with a short training of its own
#    (PROGRAM's DWARF, a module over vmlinux). The instrumented btforge writes a profile; the
#    final build compiles with it and carries no instrumentation; its btforge writes this
#    build's bytes (lib.sh's same_outputs_as_suite): what C++ leaves to the compiler must not
#    show. (The order of a call's arguments did: clang's btforge crashed on every module over
#    vmlinux while GCC's passed every test.)
source "$(dirname "$0")/lib.sh"
mode=$1 src=$2 compiler=$3
[ "$BTFORGE_SANITIZED" = 1 ] && skip "profile-guided builds are release builds, not sanitized ones"
gnu=(gcc g++) clang=()
for version in -19 ""; do
    if [ ${#clang[@]} -eq 0 ] && command -v "clang$version" > /dev/null &&
        command -v "clang++$version" > /dev/null; then
        clang=("clang$version" "clang++$version")
    fi
done
case "$compiler" in
GNU) other=("${clang[@]}") ;;
Clang) other=("${gnu[@]}") ;;
*) skip "no other compiler is known for $compiler" ;;
esac
if [ ${#other[@]} -ne 2 ] || ! command -v "${other[1]}" > /dev/null; then
    skip "no other compiler than $compiler is installed"
fi
command -v cmake > /dev/null || skip "cmake is not installed"
# configure NAME CC CXX CMAKE-OPTIONS...: configure only, into $work/NAME (log: $work/NAME.log).
configure() {
    local name=$1 cc=$2 cxx=$3
    shift 3
    CC=$cc CXX=$cxx cmake -S "$src" -B "$work/$name" -DCMAKE_BUILD_TYPE=Release \
        -DBTFORGE_TESTS=OFF "$@" > "$work/$name.log" 2>&1
}
# refused NAME MESSAGE CC CXX CMAKE-OPTIONS...: configure fails, saying MESSAGE
refused() {
    local name=$1 message=$2
    shift 2
    configure "$name" "$@" && fail "configure accepted ${*:3} ($2)"
    grep -q "$message" "$work/$name.log" ||
        { cat "$work/$name.log"; fail "${*:3} ($2) refused, but not for '$message'"; }
}
# configure_checks: refusals and each compiler's flags, configured only.
configure_checks() {
    refused bad-mode "takes GENERATE or USE" "${other[@]}" -DBTFORGE_PGO=SOMETIMES
    refused sanitized "not with BTFORGE_SANITIZE" "${other[@]}" -DBTFORGE_PGO=GENERATE \
        -DBTFORGE_SANITIZE=ON
    # Each compiler's profile (GCC's *.gcda, clang's merged btforge.profdata) is looked for.
    for pair in "${gnu[*]}" "${clang[*]}"; do
        [ -n "$pair" ] || continue
        read -r cc cxx <<< "$pair"
        refused "no-profile-$cc" "BTFORGE_PGO=USE: no " "$cc" "$cxx" -DBTFORGE_PGO=USE \
            -DBTFORGE_PGO_DIR="$work/empty"
    done
    # Each compiler's flags in its compile commands.
    if [ -n "${clang[*]}" ]; then
        configure clang-generate "${clang[@]}" -DBTFORGE_PGO=GENERATE \
            -DBTFORGE_PGO_DIR="$work/clang-profile"
        grep -q -- '-fprofile-generate=' "$work/clang-generate/compile_commands.json" ||
            fail "clang's instrumented build is not instrumented"
        mkdir -p "$work/clang-profile" && touch "$work/clang-profile/btforge.profdata"
        configure clang-use "${clang[@]}" -DBTFORGE_PGO=USE -DBTFORGE_PGO_DIR="$work/clang-profile"
        grep -q -- '-fprofile-use=.*btforge.profdata' "$work/clang-use/compile_commands.json" ||
            fail "clang's build with the profile does not read the merged profile"
    fi
    configure gnu-generate gcc g++ -DBTFORGE_PGO=GENERATE -DBTFORGE_PGO_DIR="$work/gnu-profile"
    grep -q -- '-fprofile-generate=.* -fprofile-update=atomic' \
        "$work/gnu-generate/compile_commands.json" || fail "GCC's instrumented build does not count atomically"
    mkdir -p "$work/gnu-profile" && touch "$work/gnu-profile/unit.gcda"
    configure gnu-use gcc g++ -DBTFORGE_PGO=USE -DBTFORGE_PGO_DIR="$work/gnu-profile"
    grep -q -- '-fprofile-use=.* -fprofile-partial-training' "$work/gnu-use/compile_commands.json" ||
        fail "GCC's build with the profile does not keep untrained code optimised"
    echo "pgo-build: configure refuses what cannot work and gives GCC and clang their flags"
}

# build_checks PROGRAM KERNEL_DIR: the build by the other compiler, trained, and its outputs.
build_checks() {
    local program=$1 kernel=$2 module training pgo core file
    command -v readelf > /dev/null || skip "readelf is not installed"
    require_file "$program"
    require_file "$kernel/vmlinux" "fetch it with scripts/fetch-debian-kernel.sh"
    module=$kernel/modules/virtio_net.ko
    require_file "$module" "fetch it with scripts/fetch-debian-kernel.sh"

    # What an instrumented binary calls: libgcov (GCC) or clang's profile runtime. grep reads
    # all of readelf's output: with -q, readelf's SIGPIPE would fail the pipeline under pipefail.
    instrumented() { readelf -sW "$1" | grep -E '__gcov_|__llvm_profile_' > /dev/null; }
    training=$work/training.sh
    cat > "$training" << TRAINING
#!/usr/bin/env bash
set -euo pipefail
"\$1" --quiet convert "$program" -o "$work/training-program.btf"
"\$1" --quiet convert "$module" -B "$kernel/vmlinux" -o "$work/training-module.btf"
if readelf -sW "\$1" | grep -E '__gcov_|__llvm_profile_' > /dev/null; then touch "$work/was-instrumented"; fi
TRAINING
    chmod +x "$training"
    pgo=$work/pgo
    CC=${other[0]} CXX=${other[1]} BTFORGE_PGO_TRAINING=$training "$src/scripts/build-pgo.sh" "$pgo" \
        > "$work/build-pgo.log" 2>&1 ||
        { tail -n 40 "$work/build-pgo.log"; fail "scripts/build-pgo.sh failed"; }
    [ -e "$work/was-instrumented" ] || fail "the training's btforge was not instrumented"
    compgen -G "$pgo/pgo-profile/*.gcda" > /dev/null ||
        compgen -G "$pgo/pgo-profile/*.profdata" > /dev/null ||
        fail "the training wrote no profile into $pgo/pgo-profile"
    grep -q -- '-fprofile-use=' "$pgo/compile_commands.json" ||
        fail "the final build did not use the profile"
    grep -q -- '-fprofile-generate' "$pgo/compile_commands.json" &&
        fail "the final build is still instrumented"
    grep -q "CMAKE_CXX_COMPILER:[A-Z]*=.*${other[1]}\$" "$pgo/CMakeCache.txt" ||
        fail "the build is not ${other[1]}'s"
    core=$(core_library "$pgo/bin/btforge")
    [ -f "$core" ] || fail "no libbtforge-core loaded by $pgo/bin/btforge"
    for file in "$pgo/bin/btforge" "$core" "$pgo"/bin/plugins/*.so; do
        instrumented "$file" && fail "$file still carries profiling instrumentation"
    done

    same_outputs_as_suite "$pgo" "$program" "$kernel"
    echo "pgo-build: ${other[1]}'s build trained, rebuilt with the profile, no instrumentation left;"
    echo "it writes what $compiler's does"
}

case "$mode" in
configure) configure_checks ;;
build) build_checks "$4" "$5" ;;
*) fail "unknown mode $mode (configure or build)" ;;
esac
