#!/bin/busybox sh
# shellcheck shell=dash
# /init of the kernel-e2e guest (scripts/kernel-e2e.sh packs it into the initramfs). Runs the
# checks listed in /e2e/checks ("NAME KIND [ARG]" per line), prints "E2E PASS NAME: ..." or
# "E2E FAIL NAME: ..." for each, "E2E DONE" at the end, and reboots (qemu -no-reboot exits).
/bin/busybox mkdir -p /proc /sys /dev /tmp /sbin /usr/bin /usr/sbin
/bin/busybox mount -t proc proc /proc
/bin/busybox --install -s
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing
dmesg -n 1 # kernel messages would cut through the results on the console

pass() { echo "E2E PASS $1: $2"; }
fail() { echo "E2E FAIL $1: $2"; }
# Shows a command's output on the console, indented, and keeps its status.
run() {
    "$@" > /tmp/out 2>&1
    status=$?
    sed 's/^/    /' /tmp/out
    return $status
}

check_vmlinux_btf() {
    if [ ! -r /sys/kernel/btf/vmlinux ]; then
        fail "$1" "no /sys/kernel/btf/vmlinux"
    elif cmp /sys/kernel/btf/vmlinux /e2e/vmlinux.btf > /dev/null; then
        pass "$1" "/sys/kernel/btf/vmlinux equals the built .BTF ($(wc -c < /e2e/vmlinux.btf) bytes)"
    else
        fail "$1" "/sys/kernel/btf/vmlinux differs from the built .BTF"
    fi
}

# NAME MODULE [relocated]: relocated when the module's BTF is over a distilled base, which the
# kernel relocates onto its own; /e2e/MODULE.btf is then libbpf's relocation of it.
check_module() {
    expected="the module's .BTF"
    [ "${3:-}" = relocated ] && expected="the module's .BTF relocated onto vmlinux's by libbpf"
    if ! run insmod "/e2e/$2.ko"; then
        fail "$1" "insmod $2.ko failed"
    elif [ ! -r "/sys/kernel/btf/$2" ]; then
        fail "$1" "no /sys/kernel/btf/$2 (the kernel rejected the module's BTF?)"
    elif cmp "/sys/kernel/btf/$2" "/e2e/$2.btf" > /dev/null; then
        pass "$1" "split BTF accepted, /sys/kernel/btf/$2 equals $expected ($(wc -c < "/e2e/$2.btf") bytes)"
    else
        fail "$1" "/sys/kernel/btf/$2 ($(wc -c < "/sys/kernel/btf/$2") bytes) differs from $expected ($(wc -c < "/e2e/$2.btf") bytes)"
    fi
}

check_bpf() {
    if run /e2e/e2e-loader "$2" "/e2e/$3.bpf.o"; then
        sections=$(sed -n 's/^e2e-loader: loaded .* (\(.*\))$/\1/p' /tmp/out | tr '\n' ' ')
        counts=$(sed -n 's/^e2e-loader: \([a-z_0-9]* = [0-9]*\)$/\1/p' /tmp/out | tr '\n' ' ')
        pass "$1" "$2 $3.bpf.o: ${sections% }${counts:+; ${counts% }}"
    else
        fail "$1" "$3.bpf.o: $(tail -n 1 /tmp/out)"
    fi
}

check_dmesg() {
    if dmesg | grep 'BPF:' > /tmp/bpf-errors; then
        sed 's/^/    /' /tmp/bpf-errors
        fail "$1" "$(wc -l < /tmp/bpf-errors) 'BPF:' lines in dmesg"
    else
        pass "$1" "no 'BPF:' lines in dmesg"
    fi
}

echo "E2E BOOTED $(uname -r) $(uname -m)"
while read -r name kind arg how; do
    case "$kind" in
    vmlinux-btf) check_vmlinux_btf "$name" ;;
    module) check_module "$name" "$arg" "$how" ;;
    bpf-load) check_bpf "$name" load "$arg" ;;
    bpf-run) check_bpf "$name" run "$arg" ;;
    dmesg) check_dmesg "$name" ;;
    *) fail "$name" "unknown check kind '$kind'" ;;
    esac
done < /e2e/checks
echo "E2E DONE"
sync
reboot -f
