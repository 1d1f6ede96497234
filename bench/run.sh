#!/usr/bin/env bash
# bench/run.sh [ROUNDS]: btforge (with its libdw loader, and with llvm-dwarf, its LLVM one)
# against Debian's pahole on the Debian cloud kernel's vmlinux, at -j1 and -j2, interleaved so
# all see the same machine state, ROUNDS rounds (default 3). Prints one line per run and then
# medians and ratios (tool / pahole) per -j.
# Needs: scripts/fetch-debian-kernel.sh's cache, a release build in build/release, pahole.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-3}
btforge=${BTFORGE:-$root/build/release/bin/btforge}
vmlinux=$("$root/scripts/fetch-debian-kernel.sh")/vmlinux
command -v pahole > /dev/null || { echo "bench: pahole is not installed (apt-get install dwarves)" >&2; exit 1; }
[ -x "$btforge" ] || { echo "bench: no $btforge; run scripts/build.sh first" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# tool jobs -> "wall user sys maxrss_kb" on stdout
measure() {
    local tool=$1 jobs=$2 cmd
    case "$tool" in
    btforge) cmd=("$btforge" --quiet -j "$jobs" convert "$vmlinux" -o "$out/btforge.btf") ;;
    llvm-dwarf) cmd=("$btforge" --quiet -j "$jobs" convert -f llvm-dwarf "$vmlinux"
                     -o "$out/llvm-dwarf.btf") ;;
    pahole) cmd=(pahole -J -j"$jobs" --btf_gen_floats --lang_exclude=rust
                 --btf_encode_detached="$out/pahole.btf" "$vmlinux") ;;
    esac
    /usr/bin/time -f "%e %U %S %M" -o "$out/time" "${cmd[@]}" > /dev/null 2> "$out/stderr" ||
        { cat "$out/stderr" >&2; exit 1; }
    cat "$out/time"
}

echo "machine: $(nproc) CPUs, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo); $(pahole --version | sed 's/^/pahole /'); $("$btforge" --version)"
echo "input: $vmlinux ($(stat -c %s "$vmlinux") bytes)"
printf '%-10s %-3s %-5s %8s %8s %8s %10s\n' tool j round wall_s user_s sys_s maxrss_MB
for round in $(seq "$rounds"); do
    for jobs in 1 2; do
        for tool in btforge llvm-dwarf pahole; do
            read -r wall user sys rss < <(measure "$tool" "$jobs")
            printf '%-10s %-3s %-5s %8s %8s %8s %10d\n' "$tool" "$jobs" "$round" "$wall" "$user" "$sys" $((rss / 1024))
            echo "$tool $jobs $wall $rss" >> "$out/results"
        done
    done
done

cmp -s "$out/btforge.btf" "$out/llvm-dwarf.btf" ||
    { echo "bench: the libdw and LLVM loaders wrote different BTF" >&2; exit 1; }

median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
echo
printf '%-3s %-10s %10s %10s %14s %10s\n' j tool wall_s ratio maxrss_MB ratio
for jobs in 1 2; do
    pw=$(awk -v j="$jobs" '$1 == "pahole" && $2 == j {print $3}' "$out/results" | median)
    pr=$(awk -v j="$jobs" '$1 == "pahole" && $2 == j {print $4}' "$out/results" | median)
    for tool in btforge llvm-dwarf pahole; do
        w=$(awk -v t="$tool" -v j="$jobs" '$1 == t && $2 == j {print $3}' "$out/results" | median)
        r=$(awk -v t="$tool" -v j="$jobs" '$1 == t && $2 == j {print $4}' "$out/results" | median)
        awk -v j="$jobs" -v t="$tool" -v w="$w" -v pw="$pw" -v r="$r" -v pr="$pr" 'BEGIN {
            printf "%-3s %-10s %10s %10.2f %14d %10.2f\n", j, t, w, w / pw, r / 1024, r / pr
        }'
    done
done
