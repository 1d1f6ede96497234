#!/usr/bin/env bash
# fuzz.sh [SECONDS]: builds the libFuzzer targets (clang-19) and runs each for SECONDS (default
# 60; the documented long run in docs/security.md is 600): the BTF reader on a corpus of real
# BTF, the json loader on bpftool's JSON of small BPF objects, libbpf's btf_dump on what the c
# emitter's DumpLimits lets through (from the same JSON), the two DWARF loaders (libdw and
# LLVM) on small ELF files with DWARF, also mutated structurally. A finding fails the run with the fuzzer's last lines. Needs the packages
# scripts/install-deps.sh installs.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
build=$root/build
fuzzers="btf-reader-fuzz json-loader-fuzz c-emitter-fuzz dwarf-loader-fuzz llvm-dwarf-loader-fuzz"
# Only the fuzzers: they compile the parsers into themselves (tests/fuzz/CMakeLists.txt).
BTFORGE_TARGETS=$fuzzers "$root/scripts/build.sh" "$build/fuzz" -DCMAKE_C_COMPILER=clang-19 \
    -DCMAKE_CXX_COMPILER=clang++-19 -DBTFORGE_FUZZ=ON > "$build/fuzz.log" 2>&1 ||
    { tail -n 60 "$build/fuzz.log"; exit 1; }

corpus=$build/fuzz/corpus
rm -rf "$corpus" && mkdir -p "$corpus"
"$root/tests/fuzz/make-seed-corpus.sh" "$corpus" > /dev/null
json_corpus=$build/fuzz/json-corpus
rm -rf "$json_corpus" && mkdir -p "$json_corpus"
"$root/tests/fuzz/make-json-seed-corpus.sh" "$json_corpus" > /dev/null
c_corpus=$build/fuzz/c-emitter-corpus
rm -rf "$c_corpus" && cp -r "$json_corpus" "$c_corpus"
dwarf_corpus=$build/fuzz/dwarf-corpus
rm -rf "$dwarf_corpus" && mkdir -p "$dwarf_corpus"
"$root/tests/fuzz/make-dwarf-seed-corpus.sh" "$dwarf_corpus" > /dev/null
# Both DWARF loaders from the same seeds (each run adds what it finds to its own copy).
llvm_corpus=$build/fuzz/llvm-dwarf-corpus
rm -rf "$llvm_corpus" && cp -r "$dwarf_corpus" "$llvm_corpus"

for target in btf-reader-fuzz:$corpus json-loader-fuzz:$json_corpus c-emitter-fuzz:$c_corpus \
    dwarf-loader-fuzz:$dwarf_corpus llvm-dwarf-loader-fuzz:$llvm_corpus; do
    name=${target%%:*}
    log=$build/fuzz-$name-run.log
    echo "$name: $seconds s"
    # btf_dump on hostile BTF hangs rather than crashes: an input may take 10 s at most
    limits=()
    [ "$name" = c-emitter-fuzz ] && limits=(-timeout=10)
    # A finding's input goes to the build tree, not the working directory.
    "$build/fuzz/bin/$name" -max_total_time="$seconds" -print_final_stats=1 "${limits[@]}" \
        -artifact_prefix="$build/fuzz-$name-" "${target#*:}" > "$log" 2>&1 ||
        { tail -n 80 "$log"; exit 1; }
    grep -E 'stat::number_of_executed_units|Done' "$log" | head -n 2
done
