// btforge: the command-line host. Parses options, finds plugins, runs the conversion or diff.
#include "BaseCacheChoice.h"
#include "BatchConversion.h"
#include "Cli.h"
#include "PluginRegistry.h"
#include "RunStats.h"
#include "StandardOutput.h"
#include "TerminalProgress.h"
#include "ThreadPoolRunner.h"
#include "support/OutputFile.h"

#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <malloc.h>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace btforge;
using namespace btforge::host;

// A module's run over vmlinux builds and drops many tables of a few hundred KB (the base's checks
// and indexes). glibc maps each above its threshold afresh and unmaps it when freed, so every one
// faults its pages in again; kept in the heap, and the heap not trimmed, they reuse pages (101
// modules: 6 % fewer page faults, 3 % less CPU). Not above 1 MB: blocks of 1-4 MB kept in the
// heap raised some modules' peak RSS by up to 9 MB. A vmlinux's arenas are mapped as before.
void keepSmallTablesInHeap() {
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
}

// Prints the error as one line and returns the exit status: `status`, or else the error's class.
int report(const Error& error, std::optional<int> status = std::nullopt) {
    std::fprintf(stderr, "btforge: error: %s\n", error.message().c_str());
    return status.value_or(error.kind() == ErrorKind::Usage ? 2 : 1);
}

// `status`, or 1 when what was written to standard output could not be.
int written(int status) {
    auto flushed = flushStandardOutput();
    return flushed ? status : report(flushed.error());
}

// As `btforge plugins` shows them: "reads-btf, makes-variables".
std::string capabilityNames(const plugin::PluginDescriptor& descriptor) {
    using plugin::Capability;
    std::string names;
    for (auto [capability, name] : {std::pair{Capability::ReadsBtf, "reads-btf"},
                                    {Capability::MakesVariables, "makes-variables"},
                                    {Capability::NeedsFuncAddresses, "needs-func-addresses"},
                                    {Capability::WritesBtf, "writes-btf"},
                                    {Capability::ShowsDeclarations, "shows-declarations"},
                                    {Capability::ShowsTypesOnly, "shows-types-only"}}) {
        if (descriptor.has(capability))
            names += (names.empty() ? "" : ", ") + std::string(name);
    }
    return names;
}

// Through std::cout, whose buffer keeps the reason of a failed write (stdio's would lose it
// once the listing outgrows its buffer).
int listPlugins(const PluginRegistry& registry) {
    for (const LoadedPlugin* plugin : registry.plugins()) {
        const LoadedPlugin& p = *plugin;
        const char* kind = p.descriptor->kind == plugin::PluginKind::Loader ? "loader" : "emitter";
        std::cout << std::left << std::setw(14) << p.descriptor->name << ' ' << std::setw(8) << kind
                  << " abi " << p.descriptor->abiVersion << "  " << p.descriptor->description
                  << '\n';
        if (std::string capabilities = capabilityNames(*p.descriptor); !capabilities.empty())
            std::cout << "    capabilities: " << capabilities << '\n';
        for (const plugin::OptionSpec& option : p.descriptor->options)
            std::cout << "    --plugin-opt " << p.descriptor->name << '.' << option.key << '='
                      << option.defaultValue << "  " << option.help << '\n';
    }
    for (const ShadowedPlugin& s : registry.shadowed())
        std::cout << "shadowed: " << s.name << " (" << s.path << ") by " << s.by << '\n';
    for (const PluginFailure& f : registry.failures())
        std::cout << "failed: " << f.path << ": " << f.reason << '\n';
    return 0;
}

// Gives the sources read over a base (-B: convert's, dump's, either side of diff's) the base
// cache. Only such a run looks for one: no other makes the default directory.
void attachBaseCache(Command& command, plugin::Diagnostics& diagnostics) {
    std::vector<GraphSource*> sources;
    if (auto* convert = std::get_if<ConvertCommand>(&command.action))
        sources = {&convert->request.source};
    else if (auto* diff = std::get_if<DiffCommand>(&command.action))
        sources = {&diff->request.a, &diff->request.b};
    bool chosen = false; // once: a directory that cannot serve is one warning
    std::shared_ptr<const BaseCache> cache;
    for (GraphSource* source : sources) {
        if (!source->base)
            continue;
        if (!chosen)
            cache = chooseBaseCache(command.global, diagnostics);
        chosen = true;
        source->baseCache = cache;
    }
}

// An object made once and never destroyed (reachable, so no leak to LeakSanitizer): the plugins
// and the worker threads live until the process ends. Unloading a dozen shared objects (each
// unmapping, which interrupts the other CPUs) and joining the threads is work an ending process
// need not do, and a kernel build runs btforge once per module.
template <typename T, typename... Args> T& untilExit(Args&&... args) {
    static T* const object = new T(std::forward<Args>(args)...);
    return *object;
}

int run(int argc, char** argv) {
    RunStats stats; // times from here
    auto command = parseCommandLine(argc, argv);
    if (!command)
        return report(command.error());
    if (auto* info = std::get_if<InfoCommand>(&command->action)) {
        std::cout << info->text;
        return written(0);
    }

    auto& registry = untilExit<PluginRegistry>();
    registry.discover(pluginSearchPath(command->global.pluginDirs));
    if (std::holds_alternative<PluginsCommand>(command->action))
        return written(listPlugins(registry));
    auto* convert = std::get_if<ConvertCommand>(&command->action);
    if (convert) {
        if (auto applied = applyEmitterCapabilities(registry, convert->request); !applied)
            return report(applied.error());
        addLoaderOptionsFor(registry, convert->request, convert->loaderOptions);
        registry.configureLoaders(convert->loaderOptions);
        if (auto applied =
                registry.configureEmitter(convert->request.emitter, convert->emitterOptions);
            !applied)
            return report(applied.error());
    }
    if (auto configured = registry.configure(command->global.pluginOptions); !configured)
        return report(configured.error());

    // A plugin that failed to load matters only if nothing else can do the job; say so once.
    StderrDiagnostics diagnostics(command->global.quiet);
    for (const PluginFailure& f : registry.failures())
        diagnostics.warning("plugin " + f.path + " not loaded: " + f.reason);

    const unsigned jobs = ThreadPoolRunner::threadsFor(command->global.jobs);
    auto& tasks = untilExit<ThreadPoolRunner>(jobs);
    TerminalProgress progress(!command->global.quiet);
    plugin::Options loadDefaults; // diff loads with the defaults convert has
    plugin::Options& options = convert ? convert->options : loadDefaults;
    options.jobs = jobs;
    if (command->global.streamLimit)
        options.streamLimit = *command->global.streamLimit;
    plugin::Session session{tasks, progress, diagnostics, options};
    attachBaseCache(*command, diagnostics);
    if (command->global.stats) {
        session.stats = &stats;
        stats.startUpDone();
    }

    if (convert) {
        const bool batch = convert->isBatch();
        auto done =
            batch ? runBatch(registry, *convert, session, [](const Error& error) { report(error); })
                  : runConversion(registry, convert->request, session);
        if (!done)
            return report(done.error());
        if (command->global.stats)
            stats.print(std::cerr, batch ? std::to_string(convert->inputs.size()) + " inputs"
                                         : convert->request.source.input);
        return 0;
    }
    auto& diff = std::get<DiffCommand>(command->action);
    auto equal = runDiff(registry, diff.request, session, std::cout);
    if (!equal)
        return report(equal.error(), kDiffFailed);
    return *equal ? kDiffEqual : kDiffDifferent;
}

} // namespace

// Errors travel as Expected; what still escapes (out of memory) is one line and exit 1 here,
// after unwinding has removed the temporary outputs.
int main(int argc, char** argv) {
    OutputFile::recordInheritedDescriptors(); // before btforge opens any descriptor
    keepStandardOutputErrors();
    keepSmallTablesInHeap();
    try {
        return run(argc, argv);
    } catch (const std::bad_alloc&) {
        return report(Error::badInput("out of memory"));
    } catch (const std::exception& e) {
        return report(Error::badInput(e.what()));
    }
}
