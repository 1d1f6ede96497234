#include "PluginRegistry.h"

#include <boost/dll/runtime_symbol_info.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>

namespace btforge::host {
namespace fs = std::filesystem;

std::vector<std::string> pluginSearchPath(const std::vector<std::string>& pluginDirs) {
    std::vector<std::string> path(pluginDirs);
    if (const char* env = std::getenv("BTFORGE_PLUGIN_PATH")) {
        std::string_view rest(env);
        while (!rest.empty()) {
            auto colon = rest.find(':');
            if (auto dir = rest.substr(0, colon); !dir.empty())
                path.emplace_back(dir);
            rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
        }
    }
    std::error_code ec;
    fs::path exeDir = boost::dll::program_location(ec).parent_path();
    if (!ec) {
        path.push_back((exeDir / "plugins").string());
        path.push_back((exeDir.parent_path() / "lib" / "btforge" / "plugins").string());
    }
    path.emplace_back(BTFORGE_INSTALLED_PLUGIN_DIR);
    return path;
}

namespace {

// The emitter a library's file name says it holds (libbtforge-emitter-NAME.so), or empty.
std::string_view emitterNamed(std::string_view file) {
    constexpr std::string_view kPrefix = "libbtforge-emitter-", kSuffix = ".so";
    if (!file.starts_with(kPrefix) || !file.ends_with(kSuffix) ||
        file.size() == kPrefix.size() + kSuffix.size())
        return {};
    return file.substr(kPrefix.size(), file.size() - kPrefix.size() - kSuffix.size());
}

} // namespace

void PluginRegistry::discover(const std::vector<std::string>& directories) {
    size_t order = 0;
    std::set<fs::path> seenDirs;
    for (const std::string& dir : directories) {
        std::error_code ec;
        fs::path canonical = fs::weakly_canonical(dir, ec);
        if (ec || !fs::is_directory(canonical, ec) || !seenDirs.insert(canonical).second)
            continue;
        // Sorted, so which of two same-named plugins wins never depends on directory order.
        std::vector<std::string> libraries;
        for (const auto& entry : fs::directory_iterator(canonical, ec)) {
            std::string name = entry.path().filename().string();
            if (name.starts_with("libbtforge-") && name.ends_with(".so"))
                libraries.push_back(entry.path().string());
        }
        std::sort(libraries.begin(), libraries.end());
        for (const std::string& library : libraries) {
            const std::string file = fs::path(library).filename().string();
            const std::string_view emitter = emitterNamed(file);
            if (emitter.empty())
                loadLibrary(library, order);
            else
                deferred_.push_back({library, std::string(emitter), order});
            ++order;
        }
    }
}

void PluginRegistry::loadDeferred(std::string_view emitter) const {
    for (Deferred& d : deferred_) {
        if (d.loaded || (!emitter.empty() && d.emitter != emitter))
            continue;
        d.loaded = true;
        loadLibrary(d.path, d.order, d.emitter);
    }
}

void PluginRegistry::loadLibrary(const std::string& path, size_t order,
                                 std::string_view expectedEmitter) const {
    boost::dll::shared_library library;
    std::error_code ec;
    library.load(path, boost::dll::load_mode::rtld_lazy | boost::dll::load_mode::rtld_local, ec);
    if (ec) {
        failures_.push_back({path, "cannot load: " + ec.message()});
        return;
    }
    if (!library.has(plugin::kDescriptorSymbol)) {
        failures_.push_back({path, std::string("not a btforge plugin (no ") +
                                       plugin::kDescriptorSymbol + " symbol)"});
        return;
    }
    const auto& descriptor = library.get<const plugin::PluginDescriptor>(plugin::kDescriptorSymbol);
    if (descriptor.abiVersion != plugin::kAbiVersion) {
        failures_.push_back({path, "plugin ABI version " + std::to_string(descriptor.abiVersion) +
                                       ", this btforge needs " +
                                       std::to_string(plugin::kAbiVersion)});
        return;
    }
    bool isLoader = descriptor.kind == plugin::PluginKind::Loader && descriptor.makeLoader;
    bool isEmitter = descriptor.kind == plugin::PluginKind::Emitter && descriptor.makeEmitter;
    if (!descriptor.name || !descriptor.description || (!isLoader && !isEmitter)) {
        failures_.push_back({path, "malformed plugin descriptor"});
        return;
    }
    if (!expectedEmitter.empty() && (!isEmitter || expectedEmitter != descriptor.name)) {
        failures_.push_back({path, "its name says emitter '" + std::string(expectedEmitter) +
                                       "', it holds " + (isEmitter ? "emitter" : "loader") + " '" +
                                       descriptor.name + "'"});
        return;
    }
    plugin::OptionValues options;
    for (const plugin::OptionSpec& option : descriptor.options) {
        if (!option.key || !option.defaultValue || !option.help ||
            !options.emplace(option.key, option.defaultValue).second) {
            failures_.push_back({path, "malformed plugin option"});
            return;
        }
    }
    LoadedPlugin loaded{std::move(library), &descriptor, path, std::move(options), order};
    for (LoadedPlugin& other : plugins_) {
        if (other.descriptor->kind != descriptor.kind ||
            std::string_view(other.descriptor->name) != descriptor.name)
            continue;
        // Loaded out of search order (deferred), it may come before the one in its place.
        if (order < other.order) {
            std::swap(loaded, other);
            for (ShadowedPlugin& s : shadowed_) {
                if (s.by == loaded.path)
                    s.by = other.path;
            }
        }
        shadowed_.push_back(
            {loaded.descriptor->name, loaded.descriptor->kind, loaded.path, other.path});
        return;
    }
    plugins_.push_back(std::move(loaded));
}

template <typename Keep>
std::vector<const LoadedPlugin*> PluginRegistry::inOrder(Keep&& keep) const {
    std::vector<const LoadedPlugin*> result;
    for (const LoadedPlugin& p : plugins_) {
        if (keep(p))
            result.push_back(&p);
    }
    std::sort(result.begin(), result.end(),
              [](const LoadedPlugin* a, const LoadedPlugin* b) { return a->order < b->order; });
    return result;
}

std::vector<const LoadedPlugin*> PluginRegistry::plugins() const {
    std::lock_guard lock(loading_);
    loadDeferred({});
    return inOrder([](const LoadedPlugin&) { return true; });
}

Expected<void> PluginRegistry::configure(const std::vector<std::string>& settings) {
    for (const std::string& setting : settings) {
        auto dot = setting.find('.');
        auto equals = setting.find('=');
        if (dot == std::string::npos || equals == std::string::npos || dot > equals)
            return Error::usage("--plugin-opt: '" + setting + "' is not NAME.KEY=VALUE");
        std::string_view name = std::string_view(setting).substr(0, dot);
        std::string_view key = std::string_view(setting).substr(dot + 1, equals - dot - 1);
        bool applied = false;
        std::lock_guard lock(loading_);
        loadDeferred(name);
        for (LoadedPlugin& p : plugins_) {
            if (name != p.descriptor->name)
                continue;
            if (auto option = p.options.find(key); option != p.options.end()) {
                option->second = setting.substr(equals + 1);
                applied = true;
            }
        }
        if (!applied)
            return Error::usage("--plugin-opt: no plugin '" + std::string(name) +
                                "' with an option '" + std::string(key) +
                                "' (see 'btforge plugins')");
    }
    return {};
}

void PluginRegistry::configureLoaders(const plugin::OptionValues& settings) {
    for (LoadedPlugin& p : plugins_) {
        if (p.descriptor->kind != plugin::PluginKind::Loader)
            continue;
        for (const auto& [key, value] : settings) {
            if (auto option = p.options.find(key); option != p.options.end())
                option->second = value;
        }
    }
}

Expected<void> PluginRegistry::configureEmitter(std::string_view name,
                                                const std::vector<EmitterSetting>& settings) {
    std::lock_guard lock(loading_);
    loadDeferred(name);
    for (LoadedPlugin& p : plugins_) {
        if (p.descriptor->kind != plugin::PluginKind::Emitter || name != p.descriptor->name)
            continue;
        for (const EmitterSetting& s : settings) {
            auto option = p.options.find(s.key);
            if (option == p.options.end())
                return Error::usage(s.flag + ": emitter '" + std::string(name) +
                                    "' has no option '" + s.key + "' (see 'btforge plugins')");
            option->second = s.value;
        }
    }
    return {};
}

std::vector<std::string> PluginRegistry::loaderValues(std::string_view key) const {
    std::vector<std::string> values;
    for (const LoadedPlugin* p : ofKind(plugin::PluginKind::Loader)) {
        if (auto option = p->options.find(key);
            option != p->options.end() && !option->second.empty())
            values.push_back(option->second);
    }
    return values;
}

std::vector<std::string> PluginRegistry::shadowedBy(const LoadedPlugin& p) const {
    std::lock_guard lock(loading_);
    std::vector<std::string> paths;
    for (const ShadowedPlugin& s : shadowed_) {
        if (s.by == p.path)
            paths.push_back(s.path);
    }
    return paths;
}

const LoadedPlugin* PluginRegistry::find(plugin::PluginKind kind, std::string_view name) const {
    std::lock_guard lock(loading_);
    if (kind == plugin::PluginKind::Emitter)
        loadDeferred(name);
    for (const LoadedPlugin& p : plugins_) {
        if (p.descriptor->kind == kind && name == p.descriptor->name)
            return &p;
    }
    return nullptr;
}

std::vector<const LoadedPlugin*> PluginRegistry::ofKind(plugin::PluginKind kind) const {
    std::lock_guard lock(loading_);
    if (kind == plugin::PluginKind::Emitter)
        loadDeferred({});
    return inOrder([kind](const LoadedPlugin& p) { return p.descriptor->kind == kind; });
}

} // namespace btforge::host
