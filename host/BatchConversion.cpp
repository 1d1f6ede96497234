#include "BatchConversion.h"

#include "SameFiles.h"
#include "SerialRunner.h"
#include "TerminalProgress.h"

#include <filesystem>
#include <new>
#include <optional>
#include <stdexcept>
#include <system_error>
#include <vector>

namespace btforge::host {
namespace {

// Outputs under --out-dir are named by the input's file name: the ELF file itself with --elf,
// else with the suffix of what the emitter writes.
std::string outputSuffix(const PluginRegistry& registry, const ConversionRequest& request) {
    if (request.intoElf)
        return "";
    const LoadedPlugin* emitter = registry.find(plugin::PluginKind::Emitter, request.emitter);
    if (emitter && emitter->descriptor->has(plugin::Capability::WritesBtf))
        return ".btf";
    if (request.emitter == "json")
        return ".json";
    if (request.emitter == "c")
        return ".h";
    return ".txt";
}

// Each input's output path: the input itself (--in-place), or DIR/ its file name and suffix.
Expected<std::vector<std::string>> outputPaths(const PluginRegistry& registry,
                                               const ConvertCommand& command) {
    if (!command.outDir)
        return command.inputs;
    // Said once, not once per input.
    std::error_code error;
    if (!std::filesystem::is_directory(*command.outDir, error))
        return Error::io(*command.outDir + ": --out-dir: not a directory" +
                         (error ? " (" + error.message() + ")" : std::string()));
    std::vector<std::string> outputs;
    const std::string suffix = outputSuffix(registry, command.request);
    for (const std::string& input : command.inputs) {
        const std::string name = std::filesystem::path(input).filename().string();
        if (name.empty() || name == "." || name == "..")
            return Error::usage("convert: INPUT '" + input +
                                "' has no file name to name its output in --out-dir");
        outputs.push_back((std::filesystem::path(*command.outDir) / (name + suffix)).string());
    }
    return outputs;
}

} // namespace

Expected<void> runBatch(const PluginRegistry& registry, const ConvertCommand& command,
                        plugin::Session& session, const std::function<void(const Error&)>& failed) {
    auto outputs = outputPaths(registry, command);
    if (!outputs)
        return std::move(outputs).error();
    if (auto apart = refuseBatchOverlaps(command.inputs, *outputs, command.request.inPlace); !apart)
        return apart;
    ConversionRequest common = command.request;
    if (common.source.base) {
        auto base = loadBase(registry, *common.source.base, session, common.source.baseCache.get());
        if (!base)
            return std::move(base).error();
        common.source.loadedBase = std::move(*base);
    }
    const size_t count = command.inputs.size();
    // Inputs are converted side by side, each on one worker (most modules are small: their own
    // work does not divide), unless there is only one. Each has its own progress, which stays
    // silent: the batch shows its own, by input.
    const bool acrossInputs = count > 1 && session.tasks.concurrency() > 1;
    plugin::Options oneWorker = session.options;
    oneWorker.jobs = 1;
    std::vector<std::optional<Error>> errors(count);
    auto convert = [&](size_t i) {
        SerialRunner onThisWorker;
        TerminalProgress silent(false);
        plugin::Session each{acrossInputs ? onThisWorker : session.tasks, silent,
                             session.diagnostics, acrossInputs ? oneWorker : session.options};
        each.stats = session.stats;
        ConversionRequest request = common;
        request.source.input = command.inputs[i];
        request.output = (*outputs)[i];
        try {
            if (auto done = runConversion(registry, request, each); !done)
                errors[i] = std::move(done).error();
        } catch (const std::bad_alloc&) { // a worker must not throw (TaskRunner)
            errors[i] = Error::badInput(request.source.input + ": out of memory");
        } catch (const std::exception& e) {
            errors[i] = Error::badInput(request.source.input + ": " + e.what());
        }
        session.progress.advance(1);
    };
    session.progress.begin("converting", count);
    SerialRunner inTurn;
    plugin::TaskRunner& inputs = acrossInputs ? session.tasks : inTurn;
    inputs.parallelFor(count, convert);
    session.progress.end();
    // Reported in the order of the inputs, whichever finished first.
    size_t failures = 0;
    for (const std::optional<Error>& error : errors) {
        if (error) {
            failed(*error);
            ++failures;
        }
    }
    if (failures)
        return Error::badInput("convert: " + std::to_string(failures) + " of " +
                               std::to_string(count) + " INPUTs failed");
    return {};
}

} // namespace btforge::host
