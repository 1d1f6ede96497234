#!/usr/bin/env bash
# fetch-bpftool-backport.sh: fetches bpftool 7.5.0, the one Debian bookworm-backports builds from
# Linux 6.12 (libbpf 1.5 linked in), the reference of the c emitter's `c.bpftool=7.5`
# (docs/c-headers.md), and unpacks it into a cache outside the repository:
#   $BTFORGE_CACHE/bpftool-VERSION/usr/sbin/bpftool
# Nothing is installed and the system's apt configuration is left alone: apt-get reads a sources
# list of its own and keeps its indexes in a temporary directory (the archive's signature is
# still checked with the system's keyring). The binary needs only libelf, zlib and libcap.
# Idempotent: does nothing when the binary is already there; prints its path.
set -euo pipefail

version=7.5.0+6.12.95-1~bpo12+1
cache=${BTFORGE_CACHE:-/var/cache/btforge}
dest=$cache/bpftool-$version
binary=$dest/usr/sbin/bpftool

[ -x "$binary" ] && { echo "$binary"; exit 0; }

mkdir -p "$cache"
cd "$cache"
deb=bpftool_${version}_$(dpkg --print-architecture).deb
if [ ! -s "$deb" ]; then
    echo "fetching bpftool $version (about 2 MB) into $cache" >&2
    apt=$(mktemp -d)
    trap 'rm -rf "$apt"' EXIT
    chmod 755 "$apt" # apt-get's downloads run as _apt
    echo "deb http://deb.debian.org/debian bookworm-backports main" > "$apt/sources.list"
    mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial"
    options=(-o "Dir::Etc::sourcelist=$apt/sources.list" -o Dir::Etc::sourceparts=/nonexistent
        -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache")
    apt-get "${options[@]}" update -qq >&2
    apt-get "${options[@]}" download "bpftool=$version" >&2 || {
        echo "error: bookworm-backports no longer serves bpftool $version; snapshot.debian.org keeps it" >&2
        exit 1
    }
fi

# Unpacked beside the final directory and moved into place, so an interrupted run is redone.
unpack=$(mktemp -d "$cache/unpack.XXXXXX")
trap 'rm -rf "$unpack" ${apt:+"$apt"}' EXIT
dpkg-deb -x "$deb" "$unpack"
"$unpack/usr/sbin/bpftool" version > /dev/null
rm -rf "$dest"
mv "$unpack" "$dest"
echo "$binary"
