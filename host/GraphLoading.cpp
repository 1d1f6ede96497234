// Loading one graph as every command does: the input opened once, the loader chosen, the base
// loaded (-B, or implied for /sys/kernel/btf/<module>), then the load.
#include "GraphLoading.h"

#include "PluginChoice.h"
#include "SameFiles.h"

#include <optional>

namespace btforge::host {
namespace {

using plugin::PluginKind;

// Module BTF under /sys/kernel/btf is split over the running kernel's, as bpftool assumes too.
std::optional<std::string> implicitBase(const std::string& input) {
    constexpr std::string_view sysfs = "/sys/kernel/btf/";
    if (input.starts_with(sysfs) && input != "/sys/kernel/btf/vmlinux")
        return "/sys/kernel/btf/vmlinux";
    return std::nullopt;
}

} // namespace

Expected<std::shared_ptr<const ir::TypeGraph>> loadBase(const PluginRegistry& registry,
                                                        const std::string& path,
                                                        plugin::Session& session,
                                                        const BaseCache* cache) {
    plugin::PhaseTimer timer(session.stats, plugin::phase::kBase);
    // A base is always BTF (raw, or the .BTF of an ELF file), even when the file also has DWARF.
    auto loader = btfLoader(registry);
    if (!loader)
        return std::move(loader).error();
    auto file = openInput(path, session);
    if (!file)
        return std::move(file).error();
    // Keyed once for both looking up and storing; only a base with a key (a file of its own)
    // is cached.
    const std::optional<std::string> key =
        cache ? BaseCache::keyOf(**file, **loader) : std::nullopt;
    if (key) {
        if (auto prepared = cache->find(*key)) {
            if (session.stats)
                session.stats->addCount("bases from the cache", 1);
            return prepared;
        }
    }
    auto graph = (*loader)->descriptor->makeLoader()->load(
        {path, *file, nullptr, "", (*loader)->options}, session);
    if (!graph)
        return std::move(graph).error();
    std::shared_ptr<const ir::TypeGraph> base =
        std::make_shared<const ir::TypeGraph>(std::move(*graph));
    if (!key)
        return base;
    auto stored = cache->store(*key, base);
    if (!stored) {
        if (cache->reportsFailures())
            session.diagnostics.warning(stored.error().message());
        return base;
    }
    if (stored->prepared) // the same types, with their tables built
        base = std::move(stored->prepared);
    if (session.stats && (stored->written || stored->prepared))
        session.stats->addCount(stored->written ? "bases prepared" : "bases from the cache", 1);
    return base;
}

Expected<std::shared_ptr<MappedFile>> openInput(const std::string& path,
                                                const plugin::Session& session) {
    auto file = MappedFile::open(path, session.options.streamLimit);
    if (!file)
        return std::move(file).error();
    return std::make_shared<MappedFile>(std::move(*file));
}

Expected<ir::TypeGraph> loadGraph(const PluginRegistry& registry, const GraphSource& source,
                                  plugin::Session& session,
                                  const plugin::PluginDescriptor** loaderUsed,
                                  std::shared_ptr<MappedFile> input) {
    if (!input) {
        auto opened = openInput(source.input, session);
        if (!opened)
            return std::move(opened).error();
        input = std::move(*opened);
    }
    auto loaderPlugin = source.loader ? requirePlugin(registry, PluginKind::Loader, *source.loader)
                                      : chooseLoader(registry, *input, source.carried);
    if (!loaderPlugin)
        return std::move(loaderPlugin).error();
    if (loaderUsed)
        *loaderUsed = (*loaderPlugin)->descriptor;

    plugin::LoadRequest load{source.input, std::move(input), nullptr, "", (*loaderPlugin)->options};
    if (source.base && sameFile(source.input, *source.base))
        session.diagnostics.warning(source.input + ": INPUT is also its base (-B): its types are "
                                                   "the base's, so the split BTF has few or none");
    if (auto basePath = source.base ? source.base : implicitBase(source.input)) {
        if (!source.loadedBase) {
            auto base = loadBase(registry, *basePath, session, source.baseCache.get());
            if (!base)
                return std::move(base).error();
            load.base = std::move(*base);
        } else {
            load.base = source.loadedBase;
        }
        if (session.stats)
            session.stats->hold(plugin::holder::kBaseTypes, load.base->memoryUsage());
        load.basePath = *basePath;
    }
    plugin::PhaseTimer timer(session.stats, plugin::phase::kLoad);
    auto graph = (*loaderPlugin)->descriptor->makeLoader()->load(load, session);
    if (graph && session.stats)
        session.stats->hold(plugin::holder::kResult, graph->memoryUsage());
    return graph;
}

} // namespace btforge::host
