#!/usr/bin/env bash
# Installs the Debian bookworm packages btforge builds and tests with (as root; a no-op when all
# are present).
set -euo pipefail

packages=(
    build-essential cmake pkg-config          # toolchain
    libelf-dev libdw-dev zlib1g-dev            # elfutils: ELF and DWARF
    libbpf-dev                                 # the c emitter (btf_dump); oracle: libbpf's parser, BPF_BTF_LOAD
    # Asio, DLL, Program_options, JSON (the json loader): Boost 1.81, bookworm's only Boost with
    # Boost.JSON; it replaces the default 1.74 development packages (they conflict)
    libboost1.81-dev libboost-program-options1.81-dev libboost-json1.81-dev
    doctest-dev                                # unit tests
    bpftool                                    # oracle: bpftool btf dump
    dwz                                        # DWARF inputs: dwz partial units
    xz-utils                                   # pahole's reference BTF (shared/data) is .xz
    dwarves                                    # bench/run.sh: Debian's pahole to compare with
    gawk                                       # upstream pahole's test suite (pahole-upstream)
    clang-19 llvm-19 libclang-rt-19-dev        # BPF test inputs, objcopy, libFuzzer
    llvm-19-dev                                # the llvm-dwarf loader (LLVM DebugInfo)
    lld-19                                     # cross-program tests: clang's riscv64 and loongarch64 links
    qemu-user                                  # cross-program tests: run the cross-built programs
    # cross-program tests: Debian's cross compilers and C libraries, one per kernel architecture
    gcc-aarch64-linux-gnu libc6-dev-arm64-cross
    gcc-s390x-linux-gnu libc6-dev-s390x-cross
    gcc-arm-linux-gnueabihf libc6-dev-armhf-cross
    gcc-i686-linux-gnu libc6-dev-i386-cross
    gcc-powerpc64le-linux-gnu libc6-dev-ppc64el-cross
    gcc-riscv64-linux-gnu libc6-dev-riscv64-cross
    python3                                    # tests: generated C, ELF header patching
    jq                                         # docs/json-rewriting.md's example, run as a test
)

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2> /dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" != 0 ]; then
    echo "error: missing packages (${missing[*]}); run this script as root" >&2
    exit 1
fi
echo "installing: ${missing[*]}" >&2
# A mirror in mid-sync fails the update for some index; the lists at hand may still do (the
# install below names what they cannot give).
apt-get update -qq >&2 || echo "warning: apt-get update failed: installing from the package lists at hand" >&2
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
