// Emitter "btf-func-addr": BTF with the address-carrying FUNC extension
// (docs/func-addr-extension.md). The host has the loader make one FUNC per function address. With
// the `layout` feature an addressed FUNC is a kind the layout section describes.
#include "btforge/Features.h"
#include "btforge/btf/BtfWriter.h"
#include "btforge/btf/FuncAddrExtension.h"
#include "btforge/plugin/Plugin.h"

#include <ostream>

namespace btforge {
namespace {

class FuncAddrEmitter final : public plugin::Emitter {
public:
    Expected<void> emit(const ir::TypeGraph& graph, const plugin::EmitRequest& request,
                        std::ostream& out, plugin::Session& session) override {
        if (btf::firstAddressedFunc(graph) == ir::kVoidType)
            session.diagnostics.warning(request.outputPath +
                                        ": no FUNC carries an address: the output is standard BTF");
        return btf::writeBtf(
            out, graph,
            {.funcAddresses = true, .layout = layoutRequested(session.options.features)});
    }
};

} // namespace
} // namespace btforge

BTFORGE_EMITTER_PLUGIN(
    "btf-func-addr", "BTF with the address-carrying FUNC extension: one FUNC per function address",
    btforge::FuncAddrEmitter, .capabilities = btforge::plugin::Capability::NeedsFuncAddresses);
