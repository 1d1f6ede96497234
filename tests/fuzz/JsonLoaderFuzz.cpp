// libFuzzer target: readBpftoolJson must never crash, hang or allocate without bound on any input,
// read standalone or as split BTF over a small base, and every error must stay one line. Whatever
// it accepts the BTF writer must write (or refuse in one line, as for a value the classic format
// cannot hold) and the BTF reader read back.
#include "BpftoolJsonReader.h"
#include "FuzzBase.h"

#include "btforge/btf/BtfReader.h"
#include "btforge/btf/BtfWriter.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <span>
#include <string>

namespace {

using namespace btforge;

[[noreturn]] void die(const char* what, const std::string& detail) {
    std::fprintf(stderr, "json-loader-fuzz: %s: %s\n", what, detail.c_str());
    std::abort();
}

void oneLine(const Error& error) {
    if (error.message().find('\n') != std::string::npos)
        die("multi-line error", error.message());
}

void readBack(std::span<const std::byte> bytes, const std::shared_ptr<const ir::TypeGraph>& base) {
    auto graph = json::readBpftoolJson(bytes, {"fuzz", base, btf::kMaxWideVlen});
    if (!graph)
        return oneLine(graph.error());
    auto written = btf::writeBtf(*graph, {std::nullopt, true, true});
    if (!written)
        return oneLine(written.error());
    if (auto reread = btf::readBtf(*written, {"rewritten", base, true}); !reread)
        die("readBtf refused what the json loader accepted", reread.error().message());
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const std::shared_ptr<const ir::TypeGraph> base = fuzz::smallBase();
    const auto bytes = std::as_bytes(std::span(data, size));
    readBack(bytes, nullptr);
    readBack(bytes, base);
    return 0;
}
