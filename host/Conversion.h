// The pipeline of convert and dump, whose first half every command shares: pick a loader, load
// (over a base); then pick an emitter and write.
#pragma once

#include "PluginRegistry.h"

#include <optional>
#include <string>

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
};

// Loads one graph as every command does: the loader named or the best bidder, over its base.
Expected<ir::TypeGraph> loadGraph(const PluginRegistry& registry, const GraphSource& source,
                                  plugin::Session& session);

Expected<void> runConversion(const PluginRegistry& registry, const ConversionRequest& request,
                             plugin::Session& session);

} // namespace btforge::host
