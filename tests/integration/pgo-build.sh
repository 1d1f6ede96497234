#!/usr/bin/env bash
# pgo-build.sh SOURCE_DIR PROGRAM KERNEL_DIR: the profile-guided build (scripts/build-pgo.sh,
# -DBTFORGE_PGO) with a short training of its own (PROGRAM's DWARF, a module over vmlinux):
# configure refuses what cannot work; the instrumented btforge writes a profile; the final build
# compiles with it and carries no instrumentation; its btforge writes the same bytes as this
# build's (lib.sh's same_outputs_as_suite).
source "$(dirname "$0")/lib.sh"
src=$1 program=$2 kernel=$3
[ "$BTFORGE_SANITIZED" = 1 ] && skip "profile-guided builds are release builds, not sanitized ones"
command -v cmake > /dev/null || skip "cmake is not installed"
command -v readelf > /dev/null || skip "readelf is not installed"
require_file "$program"
require_file "$kernel/vmlinux" "fetch it with scripts/fetch-debian-kernel.sh"
module=$kernel/modules/virtio_net.ko
require_file "$module" "fetch it with scripts/fetch-debian-kernel.sh"

refused() { # refused NAME MESSAGE CMAKE-OPTIONS...: configure fails, saying MESSAGE
    local name=$1 message=$2
    shift 2
    cmake -S "$src" -B "$work/$name" -DBTFORGE_TESTS=OFF "$@" > "$work/$name.log" 2>&1 &&
        fail "configure accepted $*"
    grep -q "$message" "$work/$name.log" || { cat "$work/$name.log"; fail "$* refused, but not for '$message'"; }
}
refused no-profile "no profile" -DBTFORGE_PGO=USE -DBTFORGE_PGO_DIR="$work/empty"
refused bad-mode "takes GENERATE or USE" -DBTFORGE_PGO=SOMETIMES
refused sanitized "not with BTFORGE_SANITIZE" -DBTFORGE_PGO=GENERATE -DBTFORGE_SANITIZE=ON

# What an instrumented binary calls: libgcov (GCC) or clang's profile runtime. grep reads all of
# readelf's output: with -q, readelf's SIGPIPE would fail the pipeline under pipefail.
instrumented() { readelf -sW "$1" | grep -E '__gcov_|__llvm_profile_' > /dev/null; }
training=$work/training.sh
cat > "$training" << EOF
#!/usr/bin/env bash
set -euo pipefail
"\$1" --quiet convert "$program" -o "$work/training-program.btf"
"\$1" --quiet convert "$module" -B "$kernel/vmlinux" -o "$work/training-module.btf"
if readelf -sW "\$1" | grep -E '__gcov_|__llvm_profile_' > /dev/null; then touch "$work/was-instrumented"; fi
EOF
chmod +x "$training"
pgo=$work/pgo
BTFORGE_PGO_TRAINING=$training "$src/scripts/build-pgo.sh" "$pgo" > "$work/build-pgo.log" 2>&1 ||
    { tail -n 40 "$work/build-pgo.log"; fail "scripts/build-pgo.sh failed"; }
[ -e "$work/was-instrumented" ] || fail "the training's btforge was not instrumented"
compgen -G "$pgo/pgo-profile/*.gcda" > /dev/null || compgen -G "$pgo/pgo-profile/*.profdata" > /dev/null ||
    fail "the training wrote no profile into $pgo/pgo-profile"
grep -q -- '-fprofile-use=' "$pgo/compile_commands.json" || fail "the final build did not use the profile"
grep -q -- '-fprofile-generate' "$pgo/compile_commands.json" && fail "the final build is still instrumented"
core=$(core_library "$pgo/bin/btforge")
[ -f "$core" ] || fail "no libbtforge-core loaded by $pgo/bin/btforge"
for file in "$pgo/bin/btforge" "$core" "$pgo"/bin/plugins/*.so; do
    instrumented "$file" && fail "$file still carries profiling instrumentation"
done

same_outputs_as_suite "$pgo" "$program" "$kernel"
echo "pgo-build: trained, rebuilt with the profile, no instrumentation left, same outputs"
