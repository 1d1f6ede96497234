// Emitter "text": the plain `bpftool btf dump file X` listing.
#include "BpftoolDump.h"

#include "btforge/plugin/Plugin.h"

namespace btforge {
namespace {

class TextEmitter final : public plugin::Emitter {
public:
    Expected<void> emit(const ir::TypeGraph& graph, const plugin::EmitRequest&, std::ostream& out,
                        plugin::Session&) override {
        bpftool::writeBpftoolText(graph, out);
        return {};
    }
};

} // namespace
} // namespace btforge

BTFORGE_EMITTER_PLUGIN("text", "bpftool-compatible text dump (bpftool btf dump file X)",
                       btforge::TextEmitter);
