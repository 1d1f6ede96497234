#!/usr/bin/env bash
# Fetches the Debian cloud kernel with full DWARF (the reference input of the tests and the
# benchmark) and unpacks vmlinux and a few modules into a cache outside the repository:
#   $BTFORGE_CACHE/debian-6.1.0-56-cloud-amd64/{vmlinux,modules/*.ko}
# Idempotent: does nothing when the files are already there.
set -euo pipefail

version=6.1.0-56-cloud-amd64
package=linux-image-$version-dbg
cache=${BTFORGE_CACHE:-/var/cache/btforge}
dest=$cache/debian-$version
modules=(fs/xfs/xfs fs/btrfs/btrfs arch/x86/kvm/kvm net/netfilter/nf_tables drivers/net/virtio_net)

have_all() {
    [ -s "$dest/vmlinux" ] || return 1
    for m in "${modules[@]}"; do [ -s "$dest/modules/$(basename "$m").ko" ] || return 1; done
}
have_all && { echo "$dest"; exit 0; }

mkdir -p "$cache" "$dest/modules"
cd "$cache"
deb=$(ls "${package}"_*.deb 2> /dev/null | head -n 1 || true)
if [ -z "$deb" ]; then
    echo "fetching $package (about 280 MB) into $cache" >&2
    if ! apt-get download "$package" >&2; then
        apt-get update -qq >&2
        apt-get download "$package" >&2 || {
            echo "error: Debian no longer serves $package; 'apt-cache depends linux-image-cloud-amd64-dbg' names the current one" >&2
            exit 1
        }
    fi
    deb=$(ls "${package}"_*.deb | head -n 1)
fi

patterns=("*/boot/vmlinux-$version")
for m in "${modules[@]}"; do patterns+=("*/kernel/$m.ko"); done
unpack=$(mktemp -d "$cache/unpack.XXXXXX")
trap 'rm -rf "$unpack"' EXIT
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$unpack" --wildcards "${patterns[@]}"
mv "$unpack/usr/lib/debug/boot/vmlinux-$version" "$dest/vmlinux"
for m in "${modules[@]}"; do
    mv "$unpack/usr/lib/debug/lib/modules/$version/kernel/$m.ko" "$dest/modules/"
done
echo "$dest"
