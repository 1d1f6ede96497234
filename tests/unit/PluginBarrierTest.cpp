// The descriptor macros put a plugin's class behind a barrier: what its code throws comes back as
// an Error naming the plugin (a probe: 0), never as an exception into the host.
#include "TestSession.h"

#include "btforge/plugin/Plugin.h"

#include <doctest/doctest.h>

#include <new>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace btforge;

namespace {

class ThrowingLoader final : public plugin::Loader {
public:
    unsigned probe(const plugin::InputProbe&) const override {
        throw std::runtime_error("probe failed"); // NOLINT: the test's point
    }
    Expected<ir::TypeGraph> load(const plugin::LoadRequest&, plugin::Session&) override {
        static_cast<void>(std::vector<int>().at(1)); // std::out_of_range
        return ir::TypeGraph();
    }
};

class ThrowingEmitter final : public plugin::Emitter {
public:
    Expected<void> emit(const ir::TypeGraph&, const plugin::EmitRequest&, std::ostream&,
                        plugin::Session&) override {
        throw std::bad_alloc(); // NOLINT: the test's point
    }
};

} // namespace

TEST_CASE("plugin barrier: exceptions become errors naming the plugin") {
    plugin::detail::LoaderBarrier<ThrowingLoader> loader("thrower");
    CHECK(loader.probe({"input", {}}) == 0);
    std::vector<std::string> warnings;
    test::Serial tasks;
    test::Silent progress;
    test::Collected diagnostics(warnings);
    const plugin::Options options{};
    plugin::Session session{tasks, progress, diagnostics, options};
    auto loaded = loader.load({}, session);
    REQUIRE_FALSE(loaded);
    CHECK(loaded.error().message().starts_with("thrower plugin failed: "));

    plugin::detail::EmitterBarrier<ThrowingEmitter> emitter("bad");
    std::ostringstream out;
    auto written = emitter.emit(ir::TypeGraph(), {}, out, session);
    REQUIRE_FALSE(written);
    CHECK(written.error().message() == "bad plugin failed: out of memory");
}
