// Emitter "c": the C header `bpftool btf dump file X format c` prints (vmlinux.h), byte for byte,
// written by its companion (CHeader.h), loaded on first use. Which bpftool: Debian bookworm's 7.1
// by default (types in id order); bpftool=7.5 prints as bpftool 7.5.0 does (bookworm-backports':
// types sorted, kfunc prototypes, enums' mode attributes), bpftool=7.5-unsorted as its `format c
// unsorted`.
#include "CHeader.h"

#include "btforge/plugin/Companion.h"

namespace btforge {
namespace {

class CEmitter final : public plugin::Emitter {
public:
    Expected<void> emit(const ir::TypeGraph& graph, const plugin::EmitRequest& request,
                        std::ostream& out, plugin::Session& session) override {
        auto emitC = plugin::loadCompanion<cheader::EmitC>(&kCompanionAnchor,
                                                           cheader::kCompanionFile, "c emitter");
        if (!emitC)
            return std::move(emitC).error();
        return (*emitC)(graph, request, out, session);
    }

private:
    static constexpr char kCompanionAnchor = 0; // an address in this plugin
};

const plugin::OptionSpec kCOptions[] = {
    {"bpftool", "7.1",
     "whose header: 7.1 (Debian bookworm's bpftool), 7.5 (bpftool 7.5.0's, sorted, with kfunc "
     "prototypes) or 7.5-unsorted (its 'format c unsorted')"},
};

} // namespace
} // namespace btforge

BTFORGE_EMITTER_PLUGIN("c", "C header, as bpftool btf dump file X format c prints it (vmlinux.h)",
                       btforge::CEmitter, .options = btforge::kCOptions);
