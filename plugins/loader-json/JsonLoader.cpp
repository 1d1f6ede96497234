// Loader "json": the JSON bpftool and btforge dump BTF as (bpftool btf dump file X -j, btforge
// dump --json), split over a base with -B; chosen by its content. docs/json-rewriting.md. The
// reading is its companion's (BpftoolJsonReader.h), loaded when it reads an input.
#include "BpftoolJsonReader.h"

#include "btforge/Features.h"
#include "btforge/plugin/Companion.h"

#include <algorithm>
#include <string_view>

namespace btforge {
namespace {

// True when the bytes start as bpftool's document does: an object whose first key is "types".
bool looksLikeBpftoolJson(std::span<const std::byte> head) {
    const std::string_view text(reinterpret_cast<const char*>(head.data()),
                                std::min<size_t>(head.size(), 4096));
    auto skipSpace = [&](size_t at) { return text.find_first_not_of(" \t\r\n", at); };
    size_t at = skipSpace(0);
    if (at == std::string_view::npos || text[at] != '{')
        return false;
    at = skipSpace(at + 1);
    return at != std::string_view::npos && text.substr(at).starts_with("\"types\"");
}

class JsonLoader final : public plugin::Loader {
public:
    unsigned probe(const plugin::InputProbe& input) const override {
        return looksLikeBpftoolJson(input.bytes) ? 100 : 0;
    }

    Expected<ir::TypeGraph> load(const plugin::LoadRequest& request,
                                 plugin::Session& session) override {
        auto read = plugin::loadCompanion<json::ReadBpftoolJson>(
            &kCompanionAnchor, json::kReaderCompanionFile, request.path + ": json");
        if (!read)
            return std::move(read).error();
        // 24-bit vlen comes with the layout section: without it, BTF counts to 65535.
        const uint32_t maxVlen =
            layoutRequested(session.options.features) ? btf::kMaxWideVlen : btf::kMaxVlen;
        return (*read)(request.file->bytes(), {request.path, request.base, maxVlen});
    }

private:
    static constexpr char kCompanionAnchor = 0; // an address in this plugin
};

} // namespace
} // namespace btforge

BTFORGE_LOADER_PLUGIN("json",
                      "bpftool's JSON (bpftool btf dump file X -j, btforge dump --json), split "
                      "over a base with -B",
                      btforge::JsonLoader);
