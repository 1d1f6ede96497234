// Command-line parsing (Boost.Program_options) into one Command value.
#pragma once

#include "Conversion.h"
#include "Diff.h"

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace btforge::host {

struct GlobalOptions {
    std::vector<std::string> pluginDirs;
    std::vector<std::string> pluginOptions; // --plugin-opt NAME.KEY=VALUE, as given
    unsigned jobs = 0;                      // 0: one per CPU
    std::optional<uint64_t> streamLimit;
    std::optional<std::string> baseCache; // --base-cache DIR (BaseCacheChoice.h)
    bool noBaseCache = false;             // --no-base-cache
    bool quiet = false;
    bool stats = false; // --stats
};

struct ConvertCommand {
    ConversionRequest request; // for the first of `inputs`
    // Every INPUT given: more than one, or --out-dir, is a batch (BatchConversion.h).
    std::vector<std::string> inputs;
    std::optional<std::string> outDir;
    bool isBatch() const { return inputs.size() > 1 || outDir; }
    plugin::Options options; // jobs is filled in from the global options
    // What the shorthands of loader options (--lang-exclude, --no-dedup, ...) set, by key, on the
    // loader that reads INPUT; --plugin-opt settings override them.
    plugin::OptionValues loaderOptions;
    // The same for the emitter's options (-C sets layout's 'class'), applied before --plugin-opt;
    // an emitter that lacks the key is a usage error.
    std::vector<EmitterSetting> emitterOptions;
};
struct DiffCommand {
    DiffRequest request;
};
struct PluginsCommand {};
// --help and --version: the text to print on standard output, then exit 0.
struct InfoCommand {
    std::string text;
};

struct Command {
    GlobalOptions global;
    std::variant<InfoCommand, ConvertCommand, DiffCommand, PluginsCommand> action;
};

// The most worker threads -j takes: more than any machine btforge runs on has CPUs for.
inline constexpr unsigned kMaxJobs = 1024;

// Usage errors come back as Error (kind Usage), naming the bad option.
Expected<Command> parseCommandLine(int argc, const char* const* argv);

} // namespace btforge::host
