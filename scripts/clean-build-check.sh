#!/usr/bin/env bash
# clean-build-check.sh: builds btforge as the README's "build by hand" says, in a fresh Debian
# bookworm root (debootstrap) holding only the packages that paragraph lists, with the tests off;
# then installs it there and builds the out-of-tree example plugin against the install, through
# CMake and through pkg-config. Checks that the README's package list is complete. As root; the
# root is made under $BTFORGE_CACHE (default /var/cache/btforge) and reused; needs debootstrap
# and the network (Debian's mirror). Prints what it did and ends with "clean build: ok".
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cache=${BTFORGE_CACHE:-/var/cache/btforge}
chroot_dir=$cache/clean-bookworm
[ "$(id -u)" = 0 ] || { echo "error: run as root (debootstrap, chroot)" >&2; exit 1; }
# A mirror in mid-sync fails the update for some index; the lists at hand may still do (the
# install names what they cannot give).
update_lists='apt-get update -qq || echo "warning: apt-get update failed: installing from the package lists at hand" >&2'
command -v debootstrap > /dev/null || {
    sh -c "$update_lists"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap
}

# The packages of the README's by-hand build, as it lists them (its first paragraph on it).
packages=$(sed -n '/^Build by hand/,/^$/p' "$root/README.md" | tr '\n' ' ' |
    sed -n 's/.*Debian.s `\([^`]*\)`.*/\1/p')
[ -n "$packages" ] || { echo "error: no package list found in README.md" >&2; exit 1; }
echo "README's packages: $packages"

if [ ! -x "$chroot_dir/usr/bin/apt-get" ]; then
    rm -rf "$chroot_dir"
    debootstrap --variant=minbase bookworm "$chroot_dir" http://deb.debian.org/debian > /dev/null
fi
cleanup() { umount "$chroot_dir/proc" 2> /dev/null || true; }
trap cleanup EXIT
mount -t proc proc "$chroot_dir/proc"
# shellcheck disable=SC2086 # the list is words
chroot "$chroot_dir" /bin/sh -c "$update_lists; DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends $packages > /dev/null"

# The committed tree, nothing else.
rm -rf "$chroot_dir/src" "$chroot_dir/opt/btforge"
mkdir -p "$chroot_dir/src"
git -C "$root" archive HEAD | tar -x -C "$chroot_dir/src"
chroot "$chroot_dir" /bin/sh -ec '
    cd /src
    cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DBTFORGE_TESTS=OFF > configure.log
    cmake --build build -j "$(nproc)" > build.log
    build/bin/btforge --version
    build/bin/btforge plugins | sed -n "s/^\([a-z-]*\) *\(loader\|emitter\).*/  \1 \2/p"
    cmake --install build --prefix /opt/btforge > install.log
    cmake -S examples/emitter-kinds -B kinds-cmake -DCMAKE_PREFIX_PATH=/opt/btforge > /dev/null
    cmake --build kinds-cmake > /dev/null
    mkdir -p kinds-pc
    PKG_CONFIG_PATH=/opt/btforge/lib/pkgconfig make -C kinds-pc \
        -f /src/examples/emitter-kinds/Makefile > /dev/null
    /opt/btforge/bin/btforge --plugin-dir kinds-pc plugins | grep -q "^kinds"
    echo "  the example plugin built through CMake and pkg-config, and loads"
'
echo "clean build: ok"
