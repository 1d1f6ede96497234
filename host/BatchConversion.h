// convert with several INPUTs (or --out-dir): each converted as convert converts one, over a base
// read once, so that what depends only on the base (its graph, and the indexes the core derives
// from it, support/PerBase.h) is built once for all of them, as a distribution re-encoding its
// kernel's modules wants.
#pragma once

#include "Cli.h"
#include "PluginRegistry.h"

#include <functional>

namespace btforge::host {

// Converts every input of `command` in the order given, each output written (or, --in-place,
// replaced) only when its conversion succeeded; a failing input is reported through `failed`
// and the others go on. Fails when the base cannot be read, when two inputs would write the same
// output, or, at the end, when any input failed.
Expected<void> runBatch(const PluginRegistry& registry, const ConvertCommand& command,
                        plugin::Session& session, const std::function<void(const Error&)>& failed);

} // namespace btforge::host
