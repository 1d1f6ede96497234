# shellcheck shell=bash
# Sourced by the bench scripts. machine: what a benchmark ran on (CPUs, their model, memory), for
# the figures' record.
machine() {
    echo "$(nproc) CPUs ($(lscpu | sed -n 's/^Model name: *//p')), $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)"
}

# pahole_master TOOLS OUT: a runnable copy of upstream pahole as
# shared/tools has it (TOOLS) under OUT/pahole-master, its library links restored (the shared
# tree may store them as files naming their target); prints the path of its pahole, or nothing
# when TOOLS has none.
pahole_master() {
    local tools=$1 out=$2 link target
    [ -x "$tools/bin/pahole" ] || return 0
    cp -r "$tools" "$out/pahole-master"
    chmod -R u+w "$out/pahole-master"
    for link in "$out"/pahole-master/lib/*.so.1; do
        # A library itself, or a few bytes naming the file it stands for.
        [ -L "$link" ] || [ "$(stat -c %s "$link")" -ge 4096 ] ||
            { target=$(cat "$link") && ln -sf "$target" "$link"; }
    done
    echo "$out/pahole-master/pahole"
}
