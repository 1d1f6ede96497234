// The pipeline of convert and dump, whose first half every command shares: pick a loader, load
// (over a base); then pick an emitter and write.
#pragma once

#include "PluginRegistry.h"

#include <optional>
#include <string>
#include <vector>

namespace btforge::host {

// Where a graph comes from: the input, the loader that reads it and the base it continues.
struct GraphSource {
    std::string input;
    std::optional<std::string> loader; // chosen by probing the input when absent
    std::optional<std::string> base;   // implicit for /sys/kernel/btf/<module>
};

struct ConversionRequest {
    GraphSource source;
    std::string output = "-"; // "-" is standard output
    std::string emitter = "btf";
    // --elf: the output is a copy of the input ELF file with the BTF as its .BTF section
    // (--in-place: output is the input).
    bool intoElf = false;
    // --keep / --drop: the names a minimised output is made for (core/amend/TypeSelection).
    std::vector<std::string> keep;
    std::vector<std::string> drop;
};

// Loads one graph as every command does: the loader named or the best bidder, over its base.
// `loaderName`, when given, receives the name of the loader that read it.
Expected<ir::TypeGraph> loadGraph(const PluginRegistry& registry, const GraphSource& source,
                                  plugin::Session& session, std::string* loaderName = nullptr);

Expected<void> runConversion(const PluginRegistry& registry, const ConversionRequest& request,
                             plugin::Session& session);

} // namespace btforge::host
