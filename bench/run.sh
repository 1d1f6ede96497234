#!/usr/bin/env bash
# bench/run.sh [ROUNDS]: btforge (with its libdw loader, and on amd64 also with llvm-dwarf, its
# LLVM one) against Debian's pahole 1.24 and upstream pahole master (shared/tools), on Debian's
# amd64 and arm64 cloud kernels' vmlinux, at -j1 and -j2, interleaved so all see the same
# machine state, ROUNDS rounds (default 3). Prints one line per run and then medians and ratios
# (tool / Debian's pahole) per input and -j.
# Needs: scripts/fetch-debian-kernel.sh's caches (amd64, arm64), a release build in
# build/release, pahole (dwarves).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-3}
btforge=${BTFORGE:-$root/build/release/bin/btforge}
command -v pahole > /dev/null || { echo "bench: pahole is not installed (apt-get install dwarves)" >&2; exit 1; }
[ -x "$btforge" ] || { echo "bench: no $btforge; run scripts/build.sh first" >&2; exit 1; }
declare -A vmlinux=(
    [amd64]=$("$root/scripts/fetch-debian-kernel.sh" amd64)/vmlinux
    [arm64]=$("$root/scripts/fetch-debian-kernel.sh" arm64)/vmlinux
)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# shellcheck source=bench/pahole-master.sh
source "$root/bench/pahole-master.sh"
master=$(pahole_master "$root/../shared/tools/pahole-master" "$out")

# tool jobs arch -> "wall user sys maxrss_kb" on stdout
measure() {
    local tool=$1 jobs=$2 arch=$3 cmd input=${vmlinux[$3]}
    case "$tool" in
    btforge) cmd=("$btforge" --quiet -j "$jobs" convert "$input" -o "$out/btforge-$arch.btf") ;;
    llvm-dwarf) cmd=("$btforge" --quiet -j "$jobs" convert -f llvm-dwarf "$input"
                     -o "$out/llvm-dwarf-$arch.btf") ;;
    pahole) cmd=(pahole -J -j"$jobs" --btf_gen_floats --lang_exclude=rust
                 --btf_encode_detached="$out/pahole.btf" "$input") ;;
    pahole-master) cmd=("$master" -J -j"$jobs" --btf_features=default --lang_exclude=rust
                        --btf_encode_detached="$out/pahole-master.btf" "$input") ;;
    esac
    /usr/bin/time -f "%e %U %S %M" -o "$out/time" "${cmd[@]}" > /dev/null 2> "$out/stderr" ||
        { cat "$out/stderr" >&2; exit 1; }
    cat "$out/time"
}

tools_of() { # arch -> the tools measured on it
    local list=(btforge)
    [ "$1" != amd64 ] || list+=(llvm-dwarf)
    list+=(pahole)
    [ -z "$master" ] || list+=(pahole-master)
    echo "${list[@]}"
}

echo "machine: $(machine); $(pahole --version | sed 's/^/pahole /'); ${master:+pahole master $("$master" --version); }$("$btforge" --version)"
for arch in amd64 arm64; do echo "input $arch: ${vmlinux[$arch]} ($(stat -c %s "${vmlinux[$arch]}") bytes)"; done
printf '%-6s %-13s %-3s %-5s %8s %8s %8s %10s\n' input tool j round wall_s user_s sys_s maxrss_MB
for round in $(seq "$rounds"); do
    for arch in amd64 arm64; do
        for jobs in 1 2; do
            for tool in $(tools_of "$arch"); do
                read -r wall user sys rss < <(measure "$tool" "$jobs" "$arch")
                printf '%-6s %-13s %-3s %-5s %8s %8s %8s %10d\n' "$arch" "$tool" "$jobs" "$round" \
                    "$wall" "$user" "$sys" $((rss / 1024))
                echo "$arch $tool $jobs $wall $rss" >> "$out/results"
            done
        done
    done
done

cmp -s "$out/btforge-amd64.btf" "$out/llvm-dwarf-amd64.btf" ||
    { echo "bench: the libdw and LLVM loaders wrote different BTF" >&2; exit 1; }

median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
pick() { awk -v a="$1" -v t="$2" -v j="$3" -v f="$4" '$1 == a && $2 == t && $3 == j {print $f}' "$out/results" | median; }
echo
printf '%-6s %-3s %-13s %10s %10s %14s %10s\n' input j tool wall_s ratio maxrss_MB ratio
for arch in amd64 arm64; do
    for jobs in 1 2; do
        pw=$(pick "$arch" pahole "$jobs" 4)
        pr=$(pick "$arch" pahole "$jobs" 5)
        for tool in $(tools_of "$arch"); do
            w=$(pick "$arch" "$tool" "$jobs" 4)
            r=$(pick "$arch" "$tool" "$jobs" 5)
            awk -v a="$arch" -v j="$jobs" -v t="$tool" -v w="$w" -v pw="$pw" -v r="$r" -v pr="$pr" 'BEGIN {
                printf "%-6s %-3s %-13s %10s %10.2f %14d %10.2f\n", a, j, t, w, w / pw, r / 1024, r / pr
            }'
        done
    done
done
