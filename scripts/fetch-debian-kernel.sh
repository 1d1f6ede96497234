#!/usr/bin/env bash
# fetch-debian-kernel.sh [ARCH] [--all-modules]: fetches a Debian kernel with full DWARF (the
# reference inputs of the tests and the benchmark) and unpacks vmlinux and a few modules into a
# cache outside the repository:
#   $BTFORGE_CACHE/debian-VERSION/{vmlinux,modules/*.ko}
# --all-modules also unpacks every module of the package, in the tree the package has under
# lib/modules/VERSION/kernel (what scripts/compare-pahole.sh reads), decompressed if the package
# ships them compressed (.ko.xz, .ko.zst, .ko.gz):
#   $BTFORGE_CACHE/debian-VERSION/all-modules/DIR/NAME.ko
# ARCH is a Debian architecture: amd64 (the default), arm64, s390x (big-endian) and armhf
# (32-bit), which the test command uses; i386 (32-bit, a package over 700 MB), ppc64el, mips64el,
# mipsel (32-bit MIPS) or armel (ARMv5), for checks by hand; amd64-6.12 is Debian's 6.12 cloud
# kernel and amd64-generic its 6.1 kernel for hardware (neither used by the test command). A foreign
# architecture is added to dpkg so that apt-get can download its package (nothing is installed).
# Idempotent: does nothing when the files are already there; prints the directory.
set -euo pipefail

arch=amd64 all_modules=0
for arg in "$@"; do
    case "$arg" in
    --all-modules) all_modules=1 ;;
    -*) echo "error: unknown option '$arg' (--all-modules)" >&2; exit 2 ;;
    *) arch=$arg ;;
    esac
done
case "$arch" in
amd64)
    version=6.1.0-56-cloud-amd64
    modules=(fs/xfs/xfs fs/btrfs/btrfs arch/x86/kvm/kvm net/netfilter/nf_tables drivers/net/virtio_net)
    ;;
arm64)
    version=6.1.0-56-cloud-arm64
    # nf_dup_netdev: its empty .data lies at .data..percpu's address, where libdwfl's lookup
    # of a section by address answered .data for the module's per-CPU variable.
    modules=(fs/xfs/xfs net/netfilter/nf_tables net/netfilter/nf_dup_netdev)
    ;;
s390x)
    version=6.1.0-47-s390x
    modules=(fs/xfs/xfs net/netfilter/nf_tables)
    ;;
armhf) # 32-bit (a package over 600 MB)
    version=6.1.0-50-armmp
    modules=(fs/xfs/xfs net/netfilter/nf_tables)
    ;;
i386) # 32-bit
    version=6.1.0-50-686-pae
    modules=(fs/xfs/xfs)
    ;;
ppc64el) # checked by hand (docs/functions.md), not by the test command
    version=6.1.0-50-powerpc64le
    modules=(fs/xfs/xfs net/netfilter/nf_tables)
    ;;
mips64el) # the same
    version=6.1.0-50-mips64r2el
    modules=(fs/xfs/xfs net/netfilter/nf_tables)
    ;;
mipsel) # the same: 32-bit MIPS (o32), whose modules are relocated by REL sections
    version=6.1.0-50-4kc-malta
    modules=(fs/xfs/xfs)
    ;;
armel) # the same: ARMv5, soft-float
    version=6.1.0-50-marvell
    modules=(fs/xfs/xfs)
    ;;
amd64-generic) # the same: the 6.1 kernel for hardware (about 3,800 modules, 860 MB); amdgpu passes
    # floating-point arguments (drivers/gpu/drm/amd/display), which the cloud kernel has none of
    arch=amd64 version=6.1.0-56-amd64
    modules=(drivers/gpu/drm/amd/amdgpu/amdgpu fs/xfs/xfs)
    ;;
amd64-6.12) # the same: bookworm's newer kernel, whose modules' .data has an address (docs/readers.md)
    arch=amd64 version=6.12.117+deb12-cloud-amd64
    modules=(fs/xfs/xfs fs/btrfs/btrfs arch/x86/kvm/kvm net/netfilter/nf_tables drivers/net/virtio_net)
    ;;
*)
    echo "error: no reference kernel for architecture '$arch' (amd64, arm64, s390x, armhf, i386, ppc64el, mips64el, mipsel, armel, amd64-6.12, amd64-generic)" >&2
    exit 2
    ;;
esac
package=linux-image-$version-dbg
cache=${BTFORGE_CACHE:-/var/cache/btforge}
dest=$cache/debian-$version

have_all() {
    [ -s "$dest/vmlinux" ] || return 1
    for m in "${modules[@]}"; do [ -s "$dest/modules/$(basename "$m").ko" ] || return 1; done
}
# all-modules/.complete is written last, so an interrupted unpacking is redone.
have_all_modules() { [ "$all_modules" = 0 ] || [ -e "$dest/all-modules/.complete" ]; }
have_all && have_all_modules && { echo "$dest"; exit 0; }

mkdir -p "$cache" "$dest/modules"
cd "$cache"
deb=$(ls "${package}"_*.deb 2> /dev/null | head -n 1 || true)
if [ -z "$deb" ]; then
    echo "fetching $package (about 300 MB) into $cache" >&2
    target=$package
    if [ "$arch" != "$(dpkg --print-architecture)" ]; then
        target=$package:$arch
        if ! dpkg --print-foreign-architectures | grep -qx "$arch"; then
            dpkg --add-architecture "$arch"
            apt-get update -qq >&2 || true # another architecture's index may fail; ours is checked below
        fi
    fi
    if ! apt-get download "$target" >&2; then
        apt-get update -qq >&2 || true
        apt-get download "$target" >&2 || {
            echo "error: Debian no longer serves $target; 'apt-cache search linux-image-6.*-dbg' names the current ones" >&2
            exit 1
        }
    fi
    deb=$(ls "${package}"_*.deb | head -n 1)
fi

unpack=$(mktemp -d "$cache/unpack.XXXXXX")
trap 'rm -rf "$unpack"' EXIT
if ! have_all; then
    patterns=("*/boot/vmlinux-$version")
    for m in "${modules[@]}"; do patterns+=("*/kernel/$m.ko"); done
    dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$unpack" --wildcards "${patterns[@]}"
    mv "$unpack/usr/lib/debug/boot/vmlinux-$version" "$dest/vmlinux"
    for m in "${modules[@]}"; do
        mv "$unpack/usr/lib/debug/lib/modules/$version/kernel/$m.ko" "$dest/modules/"
    done
fi
if ! have_all_modules; then
    echo "unpacking every module of $package into $dest/all-modules" >&2
    dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$unpack" --wildcards '*/kernel/*.ko*'
    tree=$unpack/usr/lib/debug/lib/modules/$version/kernel
    # Debian's -dbg packages ship plain .ko files; other builds compress them (CONFIG_MODULE_COMPRESS_*).
    find "$tree" -name '*.ko.xz' -exec xz -d {} +
    find "$tree" -name '*.ko.zst' -exec zstd -q -d --rm {} +
    find "$tree" -name '*.ko.gz' -exec gzip -d {} +
    find "$tree" -name '*.ko' | wc -l > "$tree/.complete"
    rm -rf "$dest/all-modules"
    mv "$tree" "$dest/all-modules"
fi
echo "$dest"
