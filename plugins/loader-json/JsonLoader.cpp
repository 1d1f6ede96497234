// Loader "json": the JSON bpftool and btforge dump BTF as (bpftool btf dump file X -j, btforge
// dump --json), split over a base with -B; chosen by its content. docs/json-rewriting.md.
#include "BpftoolJsonReader.h"

#include "btforge/Features.h"
#include "btforge/plugin/Plugin.h"

namespace btforge {
namespace {

class JsonLoader final : public plugin::Loader {
public:
    unsigned probe(const plugin::InputProbe& input) const override {
        return json::looksLikeBpftoolJson(input.bytes) ? 100 : 0;
    }

    Expected<ir::TypeGraph> load(const plugin::LoadRequest& request,
                                 plugin::Session& session) override {
        // 24-bit vlen comes with the layout section: without it, BTF counts to 65535.
        const uint32_t maxVlen =
            layoutRequested(session.options.features) ? btf::kMaxWideVlen : btf::kMaxVlen;
        return json::readBpftoolJson(request.file->bytes(), {request.path, request.base, maxVlen});
    }
};

} // namespace
} // namespace btforge

BTFORGE_LOADER_PLUGIN("json",
                      "bpftool's JSON (bpftool btf dump file X -j, btforge dump --json), split "
                      "over a base with -B",
                      btforge::JsonLoader);
