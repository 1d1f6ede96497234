#!/usr/bin/env bash
# bench/formats.sh [ROUNDS]: the json loader and the c emitter (issue 19), interleaved rounds
# (default 3), medians: JSON -> BTF for bpftool's JSON of /sys/kernel/btf/vmlinux, and the Debian
# amd64 vmlinux's DWARF -> BTF against DWARF -> C at -j1 and -j2. Prints every run, then medians
# of wall and CPU (user + system) time and peak RSS, and C's ratios to BTF.
# Needs: a release build in build/release, bpftool, scripts/fetch-debian-kernel.sh's amd64 cache.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-3}
btforge=${BTFORGE:-$root/build/release/bin/btforge}
[ -x "$btforge" ] || { echo "bench: no $btforge; run scripts/build.sh first" >&2; exit 1; }
vmlinux=$("$root/scripts/fetch-debian-kernel.sh" amd64)/vmlinux
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
bpftool btf dump file /sys/kernel/btf/vmlinux -j > "$out/vmlinux.json"

# name command... -> one line "name wall cpu maxrss_kb", also kept for the medians
measure() {
    local name=$1
    shift
    /usr/bin/time -f "%e %U %S %M" -o "$out/time" "$@" > /dev/null 2> "$out/stderr" ||
        { cat "$out/stderr" >&2; exit 1; }
    read -r wall user sys rss < "$out/time"
    echo "$name $wall $(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }') $rss" |
        tee -a "$out/results"
}

echo "$("$btforge" --version); $(nproc) CPUs; JSON input $(stat -c %s "$out/vmlinux.json") bytes"
echo "run wall_s cpu_s maxrss_kb"
for _ in $(seq "$rounds"); do
    measure json-to-btf "$btforge" --quiet convert "$out/vmlinux.json" -o "$out/json.btf"
    for jobs in 1 2; do
        for to in btf c; do
            measure "dwarf-to-$to-j$jobs" "$btforge" --quiet -j "$jobs" convert "$vmlinux" -t "$to" \
                -o "$out/out.$to"
        done
    done
done

median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
pick() { awk -v n="$1" -v f="$2" '$1 == n {print $f}' "$out/results" | median; }
echo
echo "median: run wall_s cpu_s maxrss_MB"
for name in json-to-btf dwarf-to-btf-j1 dwarf-to-c-j1 dwarf-to-btf-j2 dwarf-to-c-j2; do
    echo "$name $(pick "$name" 2) $(pick "$name" 3) $(($(pick "$name" 4) / 1024))"
done
for jobs in 1 2; do
    awk -v j="$jobs" -v bw="$(pick "dwarf-to-btf-j$jobs" 2)" -v cw="$(pick "dwarf-to-c-j$jobs" 2)" \
        -v bc="$(pick "dwarf-to-btf-j$jobs" 3)" -v cc="$(pick "dwarf-to-c-j$jobs" 3)" \
        'BEGIN { printf "-j%s: DWARF -> C / DWARF -> BTF: wall %.3f, CPU %.3f\n", j, cw / bw, cc / bc }'
done
