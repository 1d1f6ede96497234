#include "FixtureLoading.h"

#include "TestSession.h"

#include "btforge/dwarf/LoaderOptions.h"
#include "btforge/plugin/Plugin.h"

#include <doctest/doctest.h>

#include <dlfcn.h>
#include <map>
#include <memory>
#include <sstream>
#include <sys/mman.h>
#include <unistd.h>

namespace btforge::test {
namespace {

// The descriptor of a plugin of the build tree, loaded once and kept for the process.
const plugin::PluginDescriptor& descriptorOf(const std::string& loader) {
    static std::map<std::string, const plugin::PluginDescriptor*> loaded;
    auto& descriptor = loaded[loader];
    if (!descriptor) {
        std::string file = BTFORGE_TEST_PLUGIN_DIR "/libbtforge-loader-" + loader + ".so";
        void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
        INFO("dlopen " << file << ": " << (handle ? "" : dlerror()));
        REQUIRE(handle);
        descriptor =
            static_cast<const plugin::PluginDescriptor*>(dlsym(handle, plugin::kDescriptorSymbol));
        REQUIRE(descriptor);
        REQUIRE(descriptor->abiVersion == plugin::kAbiVersion);
    }
    return *descriptor;
}

} // namespace

std::shared_ptr<MappedFile> fixtureFile(const Fixture& fixture) {
    const std::vector<std::byte> image = writeElf(fixture);
    int fd = memfd_create("dwarf-fixture", MFD_CLOEXEC);
    REQUIRE(fd >= 0);
    REQUIRE(write(fd, image.data(), image.size()) == static_cast<ssize_t>(image.size()));
    auto file = MappedFile::open("/proc/self/fd/" + std::to_string(fd));
    close(fd); // the mapping keeps the bytes
    REQUIRE(file);
    return std::make_shared<MappedFile>(std::move(*file));
}

std::vector<std::string> dwarfLoaders() {
#ifdef BTFORGE_TEST_HAVE_LLVM_DWARF
    return {"dwarf", "llvm-dwarf"};
#else
    return {"dwarf"};
#endif
}

Loaded loadFixture(const std::string& loader, const Fixture& fixture,
                   const plugin::Options& options, const plugin::OptionValues& own) {
    auto file = fixtureFile(fixture);
    const plugin::PluginDescriptor& descriptor = descriptorOf(loader);
    plugin::OptionValues values = own;
    for (const plugin::OptionSpec& option : descriptor.options)
        values.emplace(option.key, option.defaultValue);
    auto instance = descriptor.makeLoader();
    REQUIRE(instance->probe({file->path(), file->bytes()}) > 0);
    std::vector<std::string> warnings;
    Serial tasks;
    Silent progress;
    Collected diagnostics(warnings);
    std::ostringstream skipped;
    plugin::Session session{tasks, progress, diagnostics, options};
    session.reports.emplace(dwarf::kSkippedFunctionLines, &skipped);
    auto graph = instance->load({file->path(), file, nullptr, {}, std::move(values)}, session);
    return {std::move(graph), std::move(warnings), skipped.str()};
}

bool hasType(const ir::TypeGraph& graph, ir::Kind kind, std::string_view name) {
    for (ir::TypeId id = graph.firstId(); id < graph.endId(); ++id) {
        if (graph.kind(id) == kind && graph.name(id) == name)
            return true;
    }
    return false;
}

ir::TypeId findType(const ir::TypeGraph& graph, ir::Kind kind, std::string_view name) {
    ir::TypeId found = ir::kVoidType;
    size_t count = 0;
    for (ir::TypeId id = graph.firstId(); id < graph.endId(); ++id) {
        if (graph.kind(id) == kind && graph.name(id) == name) {
            found = id;
            ++count;
        }
    }
    INFO("types named '" << name << "' of kind " << static_cast<int>(kind));
    REQUIRE(count == 1);
    return found;
}

} // namespace btforge::test
