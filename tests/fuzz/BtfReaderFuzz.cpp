// libFuzzer target: readBtf must never crash on any input, read as standalone BTF or as split BTF
// over a small base, standard or with the address-carrying FUNC extension. Whatever it accepts the
// writer must write, the reader accept again, and the writer reproduce byte for byte (its output is
// canonical). Every error must stay one line.
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
    std::fprintf(stderr, "btf-reader-fuzz: %s: %s\n", what, detail.c_str());
    std::abort();
}

// The fuzz targets' small base, and a function for split inputs to refer to.
std::shared_ptr<const ir::TypeGraph> makeBase() {
    auto base = fuzz::smallBase();
    const ir::TypeId intId = 1, ptr = 2;
    const ir::Param params[] = {{base->intern("arg"), ptr}};
    ir::TypeId proto = base->add(ir::FuncProtoType{ir::kNoName, intId, params});
    base->add(ir::FuncType{base->intern("base_func"), proto, ir::FuncLinkage::Global});
    return base;
}

void roundTrip(std::span<const std::byte> bytes, const std::shared_ptr<const ir::TypeGraph>& base,
               bool funcAddresses) {
    auto graph = btf::readBtf(bytes, {"fuzz", base, funcAddresses});
    if (!graph) {
        if (graph.error().message().find('\n') != std::string::npos)
            die("multi-line error", graph.error().message());
        return;
    }
    // Both formats: the classic one refuses only a vlen the 2026 format (layout) can hold.
    for (bool layout : {false, true}) {
        const btf::WriteOptions writeOptions{std::nullopt, funcAddresses, layout};
        auto written = btf::writeBtf(*graph, writeOptions);
        if (!written && !layout &&
            written.error().message().find("with the layout feature") != std::string::npos)
            continue;
        if (!written)
            die("writeBtf refused what readBtf accepted", written.error().message());
        auto reread = btf::readBtf(*written, {"rewritten", base, funcAddresses});
        if (!reread)
            die("readBtf refused writeBtf's output", reread.error().message());
        auto rewritten = btf::writeBtf(*reread, writeOptions);
        if (!rewritten || *rewritten != *written)
            die("writeBtf output is not stable", "second write differs");
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const std::shared_ptr<const ir::TypeGraph> base = makeBase();
    const auto bytes = std::as_bytes(std::span(data, size));
    for (bool funcAddresses : {false, true}) {
        roundTrip(bytes, nullptr, funcAddresses);
        roundTrip(bytes, base, funcAddresses);
    }
    return 0;
}
