#!/usr/bin/env bash
# bench/modules.sh [ROUNDS [SAMPLE]]: a kernel build's module step, as scripts/Makefile.modfinal
# runs it (one encoder run per module, split BTF over vmlinux), for btforge, upstream pahole
# master with the kernel's --btf_features (../shared/tools/pahole-master) and Debian's pahole,
# on every module of Debian's amd64 cloud kernel (scripts/fetch-debian-kernel.sh amd64
# --all-modules):
#   1. the whole set, two at a time (as make -j2): wall and CPU time (user + system) per tool;
#      btforge as a build runs it (its default cache, here a temporary one, empty at the start:
#      the first module's run prepares vmlinux, the others map it), and without a cache
#      (--no-base-cache: every run reads vmlinux); btforge's batch mode (one `convert -j2 -B
#      vmlinux *.ko --out-dir D`, the base read once: what a distribution re-encoding its modules
#      would run, not what a build runs); and `spawn`, xargs starting /bin/true per module, the
#      floor every tool's figure includes. xargs starts each tool directly: the shell a build's
#      recipe runs around the encoder is the same for every encoder, so none is counted here;
#   2. SAMPLE modules (default 100) spread over the set by size, one at a time, ROUNDS rounds
#      (default 5), tools interleaved: per module the median wall time (microseconds, from
#      bash's EPOCHREALTIME) and peak RSS, and over the sample the geometric mean, median and
#      worst of btforge's ratios to master, and how many modules are slower than master or above
#      its peak RSS;
#   3. every module once more, one at a time, btforge (with and without a cache) and master: how many take more
#      peak RSS with btforge, and which (the sample can miss the few that take a costly path).
# Each tool writes to a temporary directory, removed at the end. Needs a release build in
# build/release (or $BTFORGE), pahole (dwarves) and the kernel cache.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-5}
sample=${2:-100}
btforge=${BTFORGE:-$root/build/release/bin/btforge}
[ -x "$btforge" ] || { echo "bench: no $btforge; run scripts/build.sh first" >&2; exit 1; }
command -v pahole > /dev/null || { echo "bench: pahole is not installed (apt-get install dwarves)" >&2; exit 1; }
kernel=$("$root/scripts/fetch-debian-kernel.sh" amd64 --all-modules)
vmlinux=$kernel/vmlinux
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# shellcheck source=bench/pahole-master.sh
source "$root/bench/pahole-master.sh"
master=$(pahole_master "$root/../shared/tools/pahole-master" "$out")
[ -n "$master" ] || { echo "bench: no pahole master in $root/../shared/tools/pahole-master" >&2; exit 1; }
# The flags of a 6.12+ kernel build (scripts/Makefile.btf), and of Debian's 6.1 build for its own
# pahole 1.24 (scripts/pahole-flags.sh).
# shellcheck disable=SC2054 # the commas are --btf_features' own list, one word
master_flags=(-J --btf_features=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs --lang_exclude=rust)
debian_flags=(-J --btf_gen_floats --lang_exclude=rust)

# Each tool's command line, started directly (no shell or helper process per module):
# fixed_args TOOL sets `fixed` to its words before the module; module_args TOOL MODULE
# OUT sets `per` to the words for one module. btforge finds its default cache through
# XDG_CACHE_HOME, which the pahole runs ignore.
fixed_args() {
    case "$1" in
    btforge) fixed=("$btforge" --quiet convert -B "$vmlinux") ;;
    nocache) fixed=("$btforge" --quiet --no-base-cache convert -B "$vmlinux") ;;
    master) fixed=("$master" "${master_flags[@]}" --btf_base "$vmlinux") ;;
    debian) fixed=(pahole "${debian_flags[@]}" --btf_base "$vmlinux") ;;
    esac
}
module_args() {
    case "$1" in
    btforge | nocache) per=("$2" -o "$3") ;;
    *) per=("--btf_encode_detached=$3" "$2") ;;
    esac
}
# encode TOOL MODULE OUT RSSFILE: one module's split BTF over vmlinux; its peak RSS in RSSFILE.
encode() {
    fixed_args "$1"
    module_args "$1" "$2" "$3"
    /usr/bin/time -f "%M" -o "$4" "${fixed[@]}" "${per[@]}" > /dev/null 2> "$out/stderr" ||
        { cat "$out/stderr" >&2; exit 1; }
}
unset BTFORGE_BASE_CACHE
export XDG_CACHE_HOME=$out/cache-home # btforge's default cache: empty at the start of the set
mkdir -m 700 "$XDG_CACHE_HOME"

find "$kernel/all-modules" -name '*.ko' | sort > "$out/modules"
count=$(wc -l < "$out/modules")
echo "machine: $(machine)"
echo "tools: $("$btforge" --version); pahole master $("$master" --version); Debian pahole $(pahole --version)"
echo "input: $kernel ($count modules)"

# --- 1. the whole set, two at a time --------------------------------------------------------
echo
echo "all $count modules, two at a time (as make -j2)"
printf '%-8s %10s %10s %8s %8s\n' tool wall_s cpu_s wall/m cpu/m
# `spawn` is the floor every tool pays: xargs starting /bin/true once per module.
for tool in spawn master debian btforge nocache batch; do
    mkdir -p "$out/$tool"
    start=$EPOCHREALTIME
    if [ "$tool" = batch ]; then
        mapfile -t modules < "$out/modules"
        /usr/bin/time -f "%U %S %M" -o "$out/time" "$btforge" --quiet -j 2 convert \
            -B "$vmlinux" "${modules[@]}" --out-dir "$out/$tool" 2> "$out/stderr" ||
            { cat "$out/stderr" >&2; exit 1; }
    else
        if [ "$tool" = spawn ]; then fixed=(/bin/true); else fixed_args "$tool"; fi
        while read -r module; do # one line of words per module (paths without blanks)
            name=${module##*/}
            module_args "$tool" "$module" "$out/$tool/${name%.ko}.btf"
            echo "${per[*]}"
        done < "$out/modules" > "$out/jobs"
        /usr/bin/time -f "%U %S" -o "$out/time" xargs -P 2 -L 1 "${fixed[@]}" < "$out/jobs" \
            > /dev/null 2> "$out/stderr" || { cat "$out/stderr" >&2; exit 1; }
    fi
    end=$EPOCHREALTIME
    [ "$tool" != batch ] || batch_rss=$(awk '{ printf "%.1f", $3 / 1024 }' "$out/time")
    read -r user sys _ < "$out/time"
    wall=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')
    cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
    echo "$tool $wall $cpu" >> "$out/whole"
    rm -rf "${out:?}/$tool"
done
mw=$(awk '$1 == "master" { print $2 }' "$out/whole")
mc=$(awk '$1 == "master" { print $3 }' "$out/whole")
while read -r tool wall cpu; do
    awk -v t="$tool" -v w="$wall" -v c="$cpu" -v mw="$mw" -v mc="$mc" \
        'BEGIN { printf "%-8s %10s %10s %8.2f %8.2f\n", t, w, c, w / mw, c / mc }'
done < "$out/whole"
echo "(batch: one process, peak RSS $batch_rss MB)"

# --- 2. a sample, one at a time ---------------------------------------------------------------
# Every (count / sample)-th module by size, so small and large are both in.
xargs stat -c '%s %n' < "$out/modules" | sort -n | awk -v n="$sample" -v c="$count" \
    'NR % int(c / n > 1 ? c / n : 1) == 0 { print $2 }' | head -n "$sample" > "$out/sample"
echo
echo "$(wc -l < "$out/sample") modules one at a time, $rounds rounds, medians (wall in ms, peak RSS in MB)"
for _ in $(seq "$rounds"); do
    while read -r module; do
        for tool in master debian btforge nocache; do
            start=$EPOCHREALTIME
            encode "$tool" "$module" "$out/one.btf" "$out/rss"
            end=$EPOCHREALTIME
            name=${module##*/}
            echo "${name%.ko} $tool $(awk -v a="$start" -v b="$end" \
                'BEGIN { printf "%.3f", (b - a) * 1000 }') $(cat "$out/rss")" >> "$out/runs"
        done
    done < "$out/sample"
done
awk -v summary="$out/summary" '
    { key = $1 " " $2; n[key]++; wall[key, n[key]] = $3; rss[key, n[key]] = $4; mods[$1] = 1 }
    function sorted(v, k, i, j, t) {
        for (i = 2; i <= k; i++) { t = v[i]; for (j = i - 1; j >= 1 && v[j] > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
    }
    function median(a, key, k, i, v) {
        k = n[key]; for (i = 1; i <= k; i++) v[i] = a[key, i]
        sorted(v, k)
        return v[int((k + 1) / 2)]
    }
    END {
        for (mod in mods) {
            wm = median(wall, mod " master"); wd = median(wall, mod " debian")
            rm = median(rss, mod " master"); rd = median(rss, mod " debian")
            row = sprintf("%-28s %9.1f %9.1f", mod, wm, wd); rrow = sprintf(" %7.1f %7.1f", rm / 1024, rd / 1024)
            for (t = 1; t <= 2; t++) {
                tool = t == 1 ? "btforge" : "nocache"
                wb = median(wall, mod " " tool); rb = median(rss, mod " " tool)
                r = wb / wm; ratios[tool, ++m[tool]] = r; logsum[tool] += log(r)
                if (r > 1) slower[tool]++
                if (rb > rm) bigger[tool]++
                if (r > worst[tool]) { worst[tool] = r; worstmod[tool] = mod }
                row = row sprintf(" %9.1f", wb); rrow = rrow sprintf(" %7.1f", rb / 1024); ratio[t] = r
            }
            printf "%s%s %6.2f %6.2f\n", row, rrow, ratio[1], ratio[2]
        }
        for (t = 1; t <= 2; t++) {
            tool = t == 1 ? "btforge" : "nocache"
            k = m[tool]; for (i = 1; i <= k; i++) v[i] = ratios[tool, i]
            sorted(v, k)
            printf "%s / master over %d modules: geometric mean %.2f, median %.2f, worst %.2f (%s); slower than master: %d; above its peak RSS: %d\n", \
                tool, k, exp(logsum[tool] / k), v[int((k + 1) / 2)], worst[tool], worstmod[tool], slower[tool] + 0, bigger[tool] + 0 > summary
        }
    }' "$out/runs" | sort > "$out/table"
printf '%-28s %9s %9s %9s %9s %7s %7s %7s %7s %6s %6s\n' module master debian btforge nocache \
    rss_m rss_d rss_b rss_n ratio_b ratio_n
cat "$out/table" "$out/summary"

# --- 3. every module's peak RSS ---------------------------------------------------------------
echo
echo "peak RSS of all $count modules, one run each: modules above master's (MB)"
while read -r module; do
    for tool in master btforge nocache; do
        encode "$tool" "$module" "$out/one.btf" "$out/rss"
        name=${module##*/}
        echo "${name%.ko} $tool $(cat "$out/rss")" >> "$out/rss-all"
    done
done < "$out/modules"
awk '
    { rss[$1, $2] = $3; mods[$1] = 1 }
    END {
        for (mod in mods) {
            b = rss[mod, "btforge"] > rss[mod, "master"]; c = rss[mod, "nocache"] > rss[mod, "master"]
            if (b || c)
                printf "  %-28s master %6.1f  btforge %6.1f  nocache %6.1f\n", mod, rss[mod, "master"] / 1024, rss[mod, "btforge"] / 1024, rss[mod, "nocache"] / 1024
            above += b; abovec += c; n++
        }
        printf "above master'"'"'s peak RSS: btforge %d, nocache %d, of %d modules\n", above + 0, abovec + 0, n
    }' "$out/rss-all" | sort
