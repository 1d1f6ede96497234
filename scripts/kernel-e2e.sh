#!/usr/bin/env bash
# kernel-e2e.sh ARCH [--pahole PATH] [--llvm] [--lto] [--kernel VERSION]: btforge in a real kernel
# build, end to end.
#
# Builds Debian's linux-source-6.1 or --kernel's (tinyconfig + BPF + BTF + ftrace/kprobes) for
# ARCH with PAHOLE= btforge's `pahole` link, and two test modules (tests/kernel-e2e), boots the
# kernel in qemu with a busybox initramfs and checks in the guest that /sys/kernel/btf/vmlinux and
# the modules' /sys/kernel/btf/<module> are the built .BTF (relocated, for a module over a
# distilled base), that the kernel accepted them ("BPF:"
# lines in dmesg otherwise), and that libbpf programs compiled against the kernel's own BTF
# load and run (fentry, kprobe with CO-RE, tp_btf). On the host: no resolve_btfids warnings.
#
#   ARCH            x86_64, arm64, s390x, riscv64 or ppc64le (a new one is an entry in arch_table)
#   --pahole PATH   encode with PATH instead of btforge (e.g. /usr/bin/pahole, to compare)
#   --llvm          build the kernel and modules with clang-19 and LLVM's tools (LLVM=-19), whose
#                   DWARF gives an unused parameter no location: e2e_shape_scaled's fentry then
#                   attaches to a function pahole 1.31's rule left out ("optimized parameters")
#   --lto           --llvm with clang's full link-time optimisation (CONFIG_LTO_CLANG_FULL), whose
#                   DWARF refers from one compile unit into others (DW_FORM_ref_addr)
#   --kernel V      Debian's linux-source-V instead of 6.1: 6.12 (bookworm's backport), whose
#                   build asks for pahole's --btf_features
#   BTFORGE_BUILD   btforge's build dir (default build/release; built when missing), or
#   BTFORGE         the btforge binary itself
#
# As root on Debian bookworm: installs what it needs. Downloads, sources, sysroots and kernel
# builds are cached in $KERNEL_E2E_CACHE (/var/cache/btforge/kernel-e2e); a run works in a temp
# dir under /tmp. Idempotent: a second run relinks vmlinux (so its BTF is made again by the
# current encoder), rebuilds the modules and boots again. Exit 0 only if every check passed.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cache=${KERNEL_E2E_CACHE:-/var/cache/btforge/kernel-e2e}
boot_timeout=${KERNEL_E2E_BOOT_TIMEOUT:-900}

die() {
    echo "kernel-e2e: error: $*" >&2
    exit 1
}
note() { echo "kernel-e2e: $*" >&2; }
# Whether stdin has a line matching the extended regex: grep -q stops at the first, and under
# pipefail the writer it leaves to SIGPIPE would make the pipe fail though a line matched.
matches() { [ "$(grep -cE "$1")" != 0 ]; }

# Everything that differs between architectures (ARCH, then the kernel version). fentry_check:
# bpf-run where fentry programs can attach, bpf-load where the kernel cannot attach them
# (arm64's and s390x's tinyconfig kernels have no ftrace direct calls, riscv64's before 6.3 no
# BPF trampoline: attaching gives ENOTSUPP whatever the BTF) and loading is the proof.
arch_table() {
    bpf_target=bpfel # BPF objects in the guest's byte order
    kprobe_offset=   # where in the openat wrapper the kprobe goes, after its name
    pool_packages=   # SUITE:PACKAGE fetched from deb.debian.org's pool, not through apt
    loader_link=()   # what the loader's link adds for this sysroot
    case "$1" in
    x86_64)
        deb_arch=amd64 triplet=x86_64-linux-gnu karch=x86_64 cross=
        cross_packages="gcc binutils libc6-dev"
        image=arch/x86/boot/bzImage
        qemu_package="qemu-system-x86"
        qemu=(qemu-system-x86_64 -m 512)
        console=ttyS0
        arch_config="CONFIG_SERIAL_8250 CONFIG_SERIAL_8250_CONSOLE"
        syscall_prefix=__x64_sys_ bpf_arch=x86 fentry_check=bpf-run
        ;;
    arm64)
        deb_arch=arm64 triplet=aarch64-linux-gnu karch=arm64 cross=aarch64-linux-gnu-
        cross_packages="gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu libc6-dev-arm64-cross"
        image=arch/arm64/boot/Image
        qemu_package="qemu-system-arm"
        # shellcheck disable=SC2054 # the comma is part of -cpu's argument
        qemu=(qemu-system-aarch64 -M virt -cpu max,pauth-impdef=on -m 512)
        console=ttyAMA0
        arch_config="CONFIG_SERIAL_AMBA_PL011 CONFIG_SERIAL_AMBA_PL011_CONSOLE"
        syscall_prefix=__arm64_sys_ bpf_arch=arm64 fentry_check=bpf-load
        ;;
    s390x)
        # Big-endian: the kernel reads the BTF in its own byte order.
        deb_arch=s390x triplet=s390x-linux-gnu karch=s390 cross=s390x-linux-gnu-
        cross_packages="gcc-s390x-linux-gnu binutils-s390x-linux-gnu libc6-dev-s390x-cross"
        image=arch/s390/boot/bzImage
        qemu_package="qemu-system-misc"
        qemu=(qemu-system-s390x -M s390-ccw-virtio -m 512)
        console=ttysclp0
        arch_config="CONFIG_SCLP_TTY CONFIG_SCLP_VT220_TTY CONFIG_SCLP_VT220_CONSOLE"
        syscall_prefix=__s390x_sys_ bpf_arch=s390 fentry_check=bpf-load bpf_target=bpfeb
        ;;
    riscv64)
        # Bookworm has no riscv64 port: the guest's libraries come from trixie's pool (below).
        deb_arch=riscv64 triplet=riscv64-linux-gnu karch=riscv cross=riscv64-linux-gnu-
        cross_packages="gcc-riscv64-linux-gnu binutils-riscv64-linux-gnu"
        image=arch/riscv/boot/Image
        qemu_package="qemu-system-misc"
        qemu=(qemu-system-riscv64 -M virt -m 512)
        console=ttyS0
        # The virt machine's serial port sits behind its PLIC, which the SoC option selects
        # (SOC_VIRT until 6.6, ARCH_VIRT since). Debian's userland uses the FPU, which
        # tinyconfig leaves out, and trixie's libbpf (1.5) opens a memfd for each map. Since 6.6
        # the kernel finds the FPU in "riscv,isa" (all qemu 7.2's device tree gives) only with
        # RISCV_ISA_FALLBACK.
        # riscv wraps its syscalls since 6.6; 6.1's sys_openat is an alias of __se_sys_openat.
        # Since 6.6 no kprobe goes on ftrace's NOPs at a function's entry (no
        # DYNAMIC_FTRACE_WITH_REGS): the kprobe takes the instruction after them (4 compressed).
        # BPF trampolines came to riscv in 6.3.
        local platform
        if [ "$2" = 6.1 ]; then
            platform=CONFIG_SOC_VIRT syscall_prefix=sys_ fentry_check=bpf-load
        else
            platform="CONFIG_ARCH_VIRT CONFIG_RISCV_ISA_FALLBACK" syscall_prefix=__riscv_sys_
            kprobe_offset=+8 fentry_check=bpf-run
        fi
        arch_config="CONFIG_SERIAL_8250 CONFIG_SERIAL_8250_CONSOLE CONFIG_SERIAL_OF_PLATFORM
            $platform CONFIG_FPU CONFIG_SHMEM CONFIG_TMPFS CONFIG_MEMFD_CREATE"
        bpf_arch=riscv
        # trixie's static libraries need a newer C library than bookworm's cross glibc (2.36):
        # the sysroot brings trixie's, which binutils 2.40's ld crashes on and lld links. libelf
        # is sid's: trixie's libelf.a (0.192) lacks the search trees it calls.
        pool_packages="trixie:busybox-static trixie:libbpf-dev sid:libelf-dev trixie:zlib1g-dev
            trixie:libzstd-dev trixie:libc6-dev trixie:libc6 trixie:linux-libc-dev"
        loader_link=(-B "$cache/lld/" -B "$cache/sysroot-$deb_arch/usr/lib/$triplet/" -lzstd)
        ;;
    ppc64le)
        # pseries under qemu: SLOF boots the ELF vmlinux (through prom_init, the OF boot
        # trampoline tinyconfig leaves out); hvc0 is the hypervisor's console. Debian's ppc64el
        # userland uses VSX, which tinyconfig leaves out too.
        deb_arch=ppc64el triplet=powerpc64le-linux-gnu karch=powerpc cross=powerpc64le-linux-gnu-
        cross_packages="gcc-powerpc64le-linux-gnu binutils-powerpc64le-linux-gnu
            libc6-dev-ppc64el-cross"
        image=vmlinux
        qemu_package="qemu-system-ppc"
        # No display: pseries' default VGA card needs seabios' ROM, which qemu only recommends.
        qemu=(qemu-system-ppc64 -M pseries -m 512 -vga none)
        console=hvc0
        arch_config="CONFIG_PPC64 CONFIG_PPC_BOOK3S_64 CONFIG_CPU_LITTLE_ENDIAN CONFIG_PPC_PSERIES
            CONFIG_PPC_OF_BOOT_TRAMPOLINE CONFIG_HVC_CONSOLE CONFIG_ALTIVEC CONFIG_VSX"
        # powerpc's syscall wrappers keep the plain name; its BPF trampolines came in 6.13.
        syscall_prefix=sys_ bpf_arch=powerpc fentry_check=bpf-load
        ;;
    *) return 1 ;;
    esac
}

# What BPF and BTF need on top of tinyconfig; every one must end up =y (checked).
common_config="CONFIG_64BIT CONFIG_PRINTK CONFIG_TTY CONFIG_BLK_DEV_INITRD CONFIG_BINFMT_ELF
    CONFIG_BINFMT_SCRIPT CONFIG_DEVTMPFS CONFIG_PROC_FS CONFIG_SYSFS CONFIG_DEBUG_FS
    CONFIG_KALLSYMS CONFIG_MODULES CONFIG_MODULE_UNLOAD CONFIG_PERF_EVENTS
    CONFIG_FTRACE CONFIG_TRACING CONFIG_FUNCTION_TRACER CONFIG_DYNAMIC_FTRACE
    CONFIG_KPROBES CONFIG_KPROBE_EVENTS CONFIG_BPF CONFIG_BPF_SYSCALL CONFIG_BPF_JIT
    CONFIG_BPF_EVENTS CONFIG_DEBUG_KERNEL CONFIG_DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT
    CONFIG_DEBUG_INFO CONFIG_DEBUG_INFO_BTF CONFIG_DEBUG_INFO_BTF_MODULES"

# Guest-architecture packages unpacked (never installed) into the sysroot: the static busybox,
# and libbpf with what its static library needs, for the loader.
sysroot_packages="busybox-static libbpf-dev libelf-dev zlib1g-dev"
host_packages="make flex bison bc libssl-dev libelf-dev zlib1g-dev cpio xz-utils
    clang-19 llvm-19 lld-19 bpftool dpkg-dev"

usage() {
    echo "usage: kernel-e2e.sh x86_64|arm64|s390x|riscv64|ppc64le [--pahole PATH] [--llvm] [--lto]" \
        "[--kernel VERSION]" >&2
    exit 2
}

[ $# -ge 1 ] || usage
arch=$1
shift
pahole=
llvm=
lto=
kernel=6.1
while [ $# -gt 0 ]; do
    case "$1" in
    --pahole)
        [ $# -ge 2 ] || usage
        pahole=$2
        shift 2
        ;;
    --llvm)
        llvm=-19
        shift
        ;;
    --lto)
        llvm=-19 lto=CONFIG_LTO_CLANG_FULL
        shift
        ;;
    --kernel)
        [ $# -ge 2 ] || usage
        kernel=$2
        shift 2
        ;;
    *) usage ;;
    esac
done
arch_table "$arch" "$kernel" || usage
[ "$(id -u)" = 0 ] || die "run as root (installs packages, makes /dev/console in the initramfs)"

# The kernel's compiler probes read /dev/null as an empty C file: if something has replaced it
# by a regular file that gets written to, the probes fail at random, the flags change between
# make runs and every run rebuilds the whole kernel. Run on a private /dev/null then.
if [ ! -c /dev/null ]; then
    note "/dev/null is not a character device here: running with a private one"
    null_dir=$(mktemp -d /tmp/kernel-e2e-null.XXXXXX)
    mknod -m 666 "$null_dir/null" c 1 3
    # shellcheck disable=SC2016 # expanded by that shell
    exec unshare --mount sh -c 'mount --bind "$1/null" /dev/null && rm -rf "$1" && shift &&
        exec "$0" "$@"' "$root/scripts/kernel-e2e.sh" "$null_dir" "$arch" ${pahole:+--pahole "$pahole"} \
        ${llvm:+--llvm} ${lto:+--lto} --kernel "$kernel"
fi

start=$SECONDS
declare -A took
phase_start=$SECONDS
phase_end() {
    took[$1]=$((SECONDS - phase_start))
    phase_start=$SECONDS
}

# --- host packages -------------------------------------------------------------------------
# A mirror in mid-sync fails the update for some index (often another architecture's); the lists
# at hand may still do, and what they cannot give fails by name where it is asked for.
update_package_lists() {
    apt-get update -qq || note "apt-get update failed: going on with the package lists at hand"
}
install_packages() {
    local missing=() p
    for p in "$@"; do
        [ "$(dpkg-query -W -f='${Status}' "$p" 2> /dev/null)" = "install ok installed" ] ||
            missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    note "installing ${missing[*]}"
    update_package_lists
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" \
        > /dev/null
}
# shellcheck disable=SC2086 # word lists
install_packages "linux-source-$kernel" $host_packages $cross_packages $qemu_package

# --- the encoder: btforge's `pahole` link, or the PAHOLE given ---------------------------------
mkdir -p "$cache"
if [ -n "$pahole" ]; then
    [ -x "$pahole" ] || die "$pahole is not an executable"
    encoder="pahole-$("$pahole" --version)"
else
    if [ -z "${BTFORGE:-}" ]; then
        build=${BTFORGE_BUILD:-$root/build/release}
        BTFORGE=$build/bin/btforge
        if [ ! -x "$BTFORGE" ]; then
            note "no btforge in $build: building it"
            "$root/scripts/install-deps.sh"
            "$root/scripts/build.sh" "$build"
        fi
    fi
    [ -x "$BTFORGE" ] || die "$BTFORGE is not an executable"
    mkdir -p "$cache/bin"
    ln -sfn "$(realpath "$BTFORGE")" "$cache/bin/pahole" # btforge is pahole under that name
    pahole=$cache/bin/pahole
    encoder=btforge
fi
note "encoder: $pahole ($("$pahole" --version))"

# --- the guest sysroot: busybox, libbpf, libelf, zlib for deb_arch ----------------------------
sysroot=$cache/sysroot-$deb_arch
debs=$cache/debs-$deb_arch
mkdir -p "$debs"
# A package of another suite than the host's: its file and checksum from the suite's index.
download_from_pool() {
    local suite=$1 p=$2 mirror=https://deb.debian.org/debian index file sum
    index=$debs/Packages-$suite
    if [ ! -f "$index" ]; then
        note "fetching $suite's $deb_arch package index"
        curl -sSfL "$mirror/dists/$suite/main/binary-$deb_arch/Packages.xz" | xz -dc > "$index.tmp" ||
            die "cannot fetch $suite's $deb_arch package index"
        mv "$index.tmp" "$index"
    fi
    read -r file sum < <(awk -v p="$p" '/^Package: / { hit = $2 == p } hit && /^Filename: / {
        f = $2 } hit && /^SHA256: / { print f, $2; exit }' "$index") ||
        die "no $p in $suite's $deb_arch index"
    curl -sSfL -o "$debs/partial.deb" "$mirror/$file" || die "cannot download $mirror/$file"
    echo "$sum  $debs/partial.deb" | sha256sum -c --quiet - || die "$file: wrong checksum"
    mv "$debs/partial.deb" "$debs/${file##*/}"
}
if [ -n "$pool_packages" ]; then
    install_packages curl
    for entry in $pool_packages; do
        compgen -G "$debs/${entry#*:}_*.deb" > /dev/null ||
            download_from_pool "${entry%%:*}" "${entry#*:}"
    done
    rm -f "$debs"/Packages-* # a later download reads the index of its day
else
    if [ "$deb_arch" != "$(dpkg --print-architecture)" ] &&
        ! grep -qx "$deb_arch" <<< "$(dpkg --print-foreign-architectures)"; then
        note "adding the $deb_arch architecture to dpkg"
        dpkg --add-architecture "$deb_arch"
        update_package_lists
    fi
    download() { (cd "$debs" && apt-get download -qq -o APT::Sandbox::User=root "$1"); }
    for p in $sysroot_packages; do
        if ! compgen -G "$debs/${p}_*_$deb_arch.deb" > /dev/null; then
            download "$p:$deb_arch" || { update_package_lists && download "$p:$deb_arch"; } ||
                die "cannot download $p:$deb_arch"
        fi
    done
fi
# gcc finds lld as `ld` here when a sysroot's link asks for it (-B, loader_link).
mkdir -p "$cache/lld"
ln -sfn "$(command -v ld.lld-19)" "$cache/lld/ld"
wanted=$(printf '%s\n' "$debs"/*.deb | sort)
if [ "$(cat "$sysroot.stamp" 2> /dev/null)" != "$wanted" ]; then
    note "unpacking the $deb_arch sysroot"
    rm -rf "$sysroot"
    mkdir -p "$sysroot"
    for deb in "$debs"/*.deb; do dpkg-deb -x "$deb" "$sysroot"; done
    echo "$wanted" > "$sysroot.stamp"
fi
busybox=$sysroot/bin/busybox
[ -x "$busybox" ] || busybox=$sysroot/usr/bin/busybox # trixie's, after the /usr merge
[ -x "$busybox" ] || die "no busybox in $sysroot"
phase_end setup

# --- the kernel source, unpacked once per Debian version ------------------------------------
version=$(dpkg-query -W -f='${Version}' "linux-source-$kernel")
src=$cache/linux-source-${kernel}_$version
if [ ! -f "$src/Makefile" ]; then
    note "unpacking linux-source-$kernel $version"
    rm -rf "$src" "$src.tmp"
    mkdir -p "$src.tmp"
    nice -n 10 tar -xf "/usr/src/linux-source-$kernel.tar.xz" -C "$src.tmp"
    mv "$src.tmp/linux-source-$kernel" "$src"
    rmdir "$src.tmp"
fi
phase_end source

work=$(mktemp -d /tmp/kernel-e2e.XXXXXX)
trap 'rm -rf "$work"' EXIT
# btforge's modules use its default base cache, as a user's build would; here in the work
# directory, not the user's.
unset BTFORGE_BASE_CACHE
export XDG_CACHE_HOME=$work/cache-home
mkdir -m 700 "$XDG_CACHE_HOME"
kernel_suffix=
[ "$kernel" = 6.1 ] || kernel_suffix=-$kernel # 6.1's builds keep their names
out=$cache/build-$arch-$encoder${llvm:+-llvm}${lto:+-lto}$kernel_suffix
mkdir -p "$out"
log=$out/build.log
: > "$log"
kmake() {
    nice -n 10 make -C "$src" O="$out" ARCH="$karch" CROSS_COMPILE="$cross" PAHOLE="$pahole" \
        ${llvm:+LLVM="$llvm"} -j "$(nproc)" "$@" >> "$log" 2>&1 || {
        tail -n 40 "$log" >&2
        die "make $* failed (whole log: $log)"
    }
}

# --- configuration: tinyconfig + the options above, made again only when they change ----------
# shellcheck disable=SC2086,SC2116 # one word per option, one space between
options=$(echo $common_config $arch_config $lto)
stamp="$version $pahole ${llvm:+llvm$llvm }$options"
if [ "$(cat "$out/config.stamp" 2> /dev/null)" != "$stamp" ] || [ ! -f "$out/.config" ]; then
    note "configuring $out"
    kmake tinyconfig
    for o in $options; do echo "$o=y"; done >> "$out/.config" # later lines override
    kmake olddefconfig
    echo "$stamp" > "$out/config.stamp"
fi
unmet=()
for o in $options; do grep -qx "$o=y" "$out/.config" || unmet+=("$o"); done
[ ${#unmet[@]} -eq 0 ] || die "Kconfig did not keep ${unmet[*]} (see $out/.config)"
phase_end configure

# --- build: vmlinux is linked again so that this run's encoder makes its BTF -----------------
note "building the kernel in $out (log: $log)"
rm -f "$out/vmlinux"
kmake
modules=$work/modules
mkdir -p "$modules"
cp "$root"/tests/kernel-e2e/Kbuild "$root"/tests/kernel-e2e/e2e_*.c "$modules/"
kmake M="$modules" modules
module_names=$(for ko in "$modules"/*.ko; do basename "$ko" .ko; done)
# What makes e2e_shape_scaled the case of a function pahole 1.31's rule left out: its unused
# parameter has no location (clang's DWARF; gcc's gives it the register it arrives in).
unused_location=$(llvm-dwarfdump-19 --name=e2e_shape_scaled -c "$modules/e2e_shapes.ko" |
    awk '/DW_AT_name.*"unused"/ { p = 1; next } p && /DW_TAG|NULL/ { exit } p && /DW_AT_location/ {
        print "yes"; exit }')
phase_end build

# resolve_btfids warns of every BTF_ID its lists name; a name this configuration does not build
# (6.12's net kfuncs without CONFIG_NET) is not in the DWARF either, and no encoder's to find.
unresolved=0 absent=()
while read -r name; do
    if llvm-dwarfdump-19 --name="$name" "$out/vmlinux" "$modules"/*.ko | matches 'DW_TAG'; then
        unresolved=$((unresolved + 1))
    else
        absent+=("$name")
    fi
done < <(sed -n 's/.*resolve_btfids: unresolved symbol \([A-Za-z0-9_]*\).*/\1/p' "$log" | sort -u)
# btforge's modules went through its default base cache: vmlinux prepared there once.
cached_bases=$(find "$XDG_CACHE_HOME" -path '*/btforge/base-*.img' | wc -l)

# --- the initramfs: busybox, /init, the expected BTF, modules, BPF objects and their loader ---
root_fs=$work/initramfs
mkdir -p "$root_fs"/{bin,dev,e2e}
cp "$busybox" "$root_fs/bin/busybox"
cp "$root/tests/kernel-e2e/init.sh" "$root_fs/init"
mknod -m 600 "$root_fs/dev/console" c 5 1
dump_btf() { "${cross}objcopy" --dump-section ".BTF=$2" "$1" "$work/objcopy.out"; }
dump_btf "$out/vmlinux" "$root_fs/e2e/vmlinux.btf"
# A module built out of tree since 6.12 has its types over a distilled base (.BTF.base, the
# feature distilled_base): the kernel relocates them onto its own BTF as it loads the module, so
# /sys/kernel/btf/<module> is that relocation, which libbpf master makes here (btf__relocate, code
# the kernel shares; tests/tools/btf-distill.c), in the module's byte order. Other modules' is
# their .BTF as it is.
for m in $module_names; do
    cp "$modules/$m.ko" "$root_fs/e2e/"
    if "${cross}objdump" -h "$modules/$m.ko" | matches ' \.BTF\.base '; then
        relocator=$work/btf-distill
        if [ ! -x "$relocator" ]; then
            libbpf=$root/../shared/tools/libbpf-master
            [ -f "$libbpf/lib/libbpf.a" ] ||
                die "$m.ko has a distilled base: relocating it needs libbpf master in $libbpf"
            gcc -O1 -I "$libbpf/include" -o "$relocator" "$root/tests/tools/btf-distill.c" \
                "$libbpf/lib/libbpf.a" -lelf -lz || die "cannot build btf-distill against $libbpf"
        fi
        "$relocator" --relocated "$modules/$m.ko" "$root_fs/e2e/vmlinux.btf" \
            "$root_fs/e2e/$m.btf" || die "libbpf cannot relocate $m.ko's BTF onto vmlinux's"
        echo "module-btf:$m module $m relocated" >> "$work/module-checks"
    else
        dump_btf "$modules/$m.ko" "$root_fs/e2e/$m.btf"
        echo "module-btf:$m module $m" >> "$work/module-checks"
    fi
done

bpftool btf dump file "$out/vmlinux" format c > "$work/vmlinux.h"
# fentry attaches to the openat syscall wrapper, or where the DWARF does not describe its code
# (s390x 6.1: an alias of __se_sys_openat; riscv64 6.1: sys_openat, only declared), to the
# function it is an alias of: no encoder (pahole master neither) has a FUNC for code the DWARF
# does not describe.
fentry_openat=${syscall_prefix}openat
llvm-dwarfdump-19 --name="$fentry_openat" "$out/vmlinux" | matches 'DW_AT_(low_pc|ranges)' ||
    fentry_openat=__se_sys_openat
for prog in fentry kprobe tp_btf; do
    clang-19 -target "$bpf_target" -g -O2 -Wall -D__TARGET_ARCH_"$bpf_arch" \
        -DE2E_SYS_OPENAT="${syscall_prefix}openat$kprobe_offset" \
        -DE2E_FENTRY_OPENAT="$fentry_openat" -I "$work" -I "$sysroot/usr/include" \
        -c "$root/tests/kernel-e2e/$prog.bpf.c" -o "$root_fs/e2e/$prog.bpf.o"
done
"${cross}gcc" -static -O2 -Wall -I "$sysroot/usr/include" -I "$sysroot/usr/include/$triplet" \
    "$root/tests/kernel-e2e/e2e-loader.c" -L "$sysroot/usr/lib/$triplet" -lbpf -lelf -lz \
    "${loader_link[@]}" -o "$root_fs/e2e/e2e-loader"

{
    echo "vmlinux-btf vmlinux-btf"
    cat "$work/module-checks"
    echo "fentry-${fentry_check#bpf-} $fentry_check fentry"
    echo "kprobe-core bpf-run kprobe"
    echo "tp-btf bpf-run tp_btf"
    echo "dmesg-no-bpf-errors dmesg"
} > "$root_fs/e2e/checks"
(cd "$root_fs" && find . | sort | cpio -o -H newc -R 0:0 --quiet > "$work/initramfs.cpio")
phase_end prepare

# --- boot -----------------------------------------------------------------------------------
console_log=$out/console.log
note "booting $out/$image in ${qemu[0]} (console: $console_log)"
set +e
timeout "$boot_timeout" "${qemu[@]}" -nographic -no-reboot -kernel "$out/$image" \
    -initrd "$work/initramfs.cpio" -append "console=$console panic=-1" < /dev/null \
    > "$console_log" 2>&1
qemu_status=$?
set -e
phase_end boot

# --- verdict --------------------------------------------------------------------------------
results=$(tr -d '\r' < "$console_log" | grep -E '^E2E (PASS|FAIL|DONE|BOOTED)' || true)
failed=0
report=()
while read -r name _; do
    if grep -q "^E2E PASS $name:" <<< "$results"; then
        report+=("PASS $name")
    else
        report+=("FAIL $name")
        failed=$((failed + 1))
    fi
done < "$root_fs/e2e/checks"
if [ "$unresolved" = 0 ]; then
    line="PASS host-resolve-btfids: no 'unresolved symbol' warnings in the build log"
    [ ${#absent[@]} -eq 0 ] || line+=" for a name the DWARF has (${#absent[@]} the configuration"
    [ ${#absent[@]} -eq 0 ] || line+=" does not build: ${absent[*]})"
    report+=("$line")
else
    line="$unresolved names the DWARF has are 'unresolved symbol' warnings (see $log)"
    report+=("FAIL host-resolve-btfids: $line")
    failed=$((failed + 1))
fi
if [ "$encoder" = btforge ]; then
    if [ "$cached_bases" = 1 ]; then
        report+=("PASS host-base-cache: the modules' runs prepared vmlinux in the default base cache")
    else
        report+=("FAIL host-base-cache: $cached_bases images in the default base cache, not 1")
        failed=$((failed + 1))
    fi
fi
if [ -z "$unused_location" ]; then
    report+=("PASS host-unused-parameter: e2e_shape_scaled's 'unused' has no location, which pahole 1.31's rule skips")
elif [ -n "$llvm" ]; then
    report+=("FAIL host-unused-parameter: e2e_shape_scaled's 'unused' has a location in clang's DWARF")
    failed=$((failed + 1))
fi
if ! grep -q '^E2E DONE' <<< "$results"; then
    report+=("FAIL guest-done: the guest did not finish (qemu exit $qemu_status; see $console_log)")
    failed=$((failed + 1))
fi

echo "== kernel-e2e $arch: linux-source-$kernel $version, encoder $encoder ($pahole)"
echo "$results" | sed 's/^/   /'
grep 'unresolved symbol' "$log" | sed 's/^/   host: /' || true
echo "== summary"
printf '   %s\n' "${report[@]}"
echo "== times (s): setup ${took[setup]}, source ${took[source]}, configure ${took[configure]}," \
    "build ${took[build]}, prepare ${took[prepare]}, boot ${took[boot]}, total $((SECONDS - start))"
if [ "$failed" = 0 ]; then
    echo "== kernel-e2e $arch: PASS"
else
    echo "== kernel-e2e $arch: FAIL ($failed failed; console: $console_log, build log: $log)"
    exit 1
fi
