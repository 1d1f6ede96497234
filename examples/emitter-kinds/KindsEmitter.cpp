// An emitter built out of btforge's tree against the installed SDK (see docs/plugins.md): how
// many types of each BTF kind a graph holds, as CSV ("kind,count", kinds in BTF's order, only
// those present). Its option `separator` replaces the comma:
//   btforge --plugin-opt kinds.separator=';' convert prog -t kinds -o -
#include "btforge/plugin/Plugin.h"

#include <array>
#include <ostream>

namespace {

using namespace btforge;

class KindsEmitter : public plugin::Emitter {
public:
    Expected<void> emit(const ir::TypeGraph& graph, const plugin::EmitRequest& request,
                        std::ostream& out, plugin::Session&) override {
        const std::string& separator = request.options.at("separator");
        if (separator.empty())
            return Error::usage("kinds: the separator must not be empty");
        std::array<uint64_t, ir::kMaxKind + 1> counts{};
        // A split graph's own types only: ids continue its base's.
        for (ir::TypeId id = graph.firstId(); id < graph.endId(); ++id)
            ++counts[static_cast<size_t>(graph.kind(id))];
        out << "kind" << separator << "count\n";
        for (unsigned kind = 1; kind <= ir::kMaxKind; ++kind) {
            if (counts[kind])
                out << ir::kindName(static_cast<ir::Kind>(kind)) << separator << counts[kind]
                    << '\n';
        }
        if (!out)
            return Error::io(request.outputPath + ": write failed");
        return {};
    }
};

constexpr plugin::OptionSpec kOptions[] = {
    {"separator", ",", "what separates the two columns"},
};

} // namespace

BTFORGE_EMITTER_PLUGIN("kinds", "CSV: how many types of each BTF kind (an example plugin)",
                       KindsEmitter, .options = kOptions);
