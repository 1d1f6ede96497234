// Emitter "btf": raw BTF, split BTF when the graph continues a base; the 2026 format (kind-layout
// section) with the `layout` feature.
#include "btforge/Features.h"
#include "btforge/btf/BtfWriter.h"
#include "btforge/plugin/Plugin.h"

#include <ostream>

namespace btforge {
namespace {

class BtfEmitter final : public plugin::Emitter {
public:
    Expected<void> emit(const ir::TypeGraph& graph, const plugin::EmitRequest&, std::ostream& out,
                        plugin::Session& session) override {
        return btf::writeBtf(out, graph, {.layout = layoutRequested(session.options.features)});
    }
};

} // namespace
} // namespace btforge

BTFORGE_EMITTER_PLUGIN("btf", "BTF, the BPF Type Format (split BTF over a base with -B)",
                       btforge::BtfEmitter, .capabilities = btforge::plugin::Capability::WritesBtf);
