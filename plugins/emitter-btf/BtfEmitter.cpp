// Emitter "btf": raw BTF, split BTF when the graph continues a base.
#include "btforge/btf/BtfWriter.h"
#include "btforge/plugin/Plugin.h"

#include <ostream>

namespace btforge {
namespace {

class BtfEmitter final : public plugin::Emitter {
public:
    Expected<void> emit(const ir::TypeGraph& graph, const plugin::EmitRequest&, std::ostream& out,
                        plugin::Session&) override {
        return btf::writeBtf(out, graph);
    }
};

} // namespace
} // namespace btforge

BTFORGE_EMITTER_PLUGIN("btf", "BTF, the BPF Type Format (split BTF over a base with -B)",
                       btforge::BtfEmitter);
