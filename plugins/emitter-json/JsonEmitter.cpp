// Emitter "json": the compact `bpftool btf dump file X -j` document.
#include "BpftoolDump.h"

#include "btforge/plugin/Plugin.h"

namespace btforge {
namespace {

class JsonEmitter final : public plugin::Emitter {
public:
    Expected<void> emit(const ir::TypeGraph& graph, const plugin::EmitRequest&, std::ostream& out,
                        plugin::Session&) override {
        bpftool::writeBpftoolJson(graph, out);
        return {};
    }
};

} // namespace
} // namespace btforge

BTFORGE_EMITTER_PLUGIN("json", "bpftool-compatible JSON dump (bpftool btf dump file X -j)",
                       btforge::JsonEmitter);
