// The one pipeline every command runs: pick a loader, load (over a base), pick an emitter, write.
#pragma once

#include "PluginRegistry.h"

#include <optional>
#include <string>

namespace btforge::host {

struct ConversionRequest {
    std::string input;
    std::string output = "-"; // "-" is standard output
    std::optional<std::string> loader; // chosen by probing the input when absent
    std::string emitter = "btf";
    std::optional<std::string> base;
};

Expected<void> runConversion(const PluginRegistry& registry, const ConversionRequest& request,
                             plugin::Session& session);

} // namespace btforge::host
