// What the layout emitter is asked to show, as pahole's options say it (the emitter's own
// options, set with --plugin-opt layout.KEY=VALUE or by pahole-compat from pahole's flags).
#pragma once

#include "btforge/plugin/Plugin.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace btforge::layout {

struct LayoutOptions {
    std::vector<std::string> classes; // -C: these names, in this order; empty: every one
    bool expand = false;              // -E: member types written out in full
    bool hex = false;                 // --hex: offsets and sizes in hexadecimal
    bool sizes = false;               // -s: one line per type: name, size, holes
    std::optional<uint32_t> minHoles; // -H N: only types with at least N holes
    bool structsOnly = false;         // --structs: no unions
    bool skipMissing = false;         // --skip_missing: a -C name not found is not an error
    bool dataMembers = false;         // -M: no types declared inside a struct, only members
    uint32_t cacheline = 64;          // -c: cacheline size in bytes
};

// The emitter's option keys, their defaults and help (btforge plugins lists them).
extern const plugin::OptionSpec kLayoutOptionSpecs[9];

Expected<LayoutOptions> parseLayoutOptions(const plugin::OptionValues& values);

} // namespace btforge::layout
