// libFuzzer target: what DumpLimits lets through, libbpf's btf_dump must print without crashing,
// hanging (-timeout) or printing more than the limit it promises, in id order or (odd-sized
// inputs) bpftool 7.5's, with its kfunc prototypes, which the emitter cuts at that limit. JSON is
// the way in: the json loader builds the graph, as for `btforge convert x.json -t c`. libbpf is the
// system's, uninstrumented: a crash inside it still stops the fuzzer.
#include "BpftoolJsonReader.h"
#include "BpftoolOrder.h"
#include "DumpLimits.h"

#include "btforge/btf/BtfWriter.h"

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include <algorithm>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <numeric>
#include <span>

namespace {

using namespace btforge;

int quiet(libbpf_print_level, const char*, va_list) {
    return 0;
}

// Counts what btf_dump prints, and stops the run past the limit DumpLimits checked.
struct Printed {
    uint64_t bytes = 0;
    uint64_t limit = 0;
};

void count(void* ctx, const char* format, va_list args) {
    auto* printed = static_cast<Printed*>(ctx);
    printed->bytes += static_cast<uint64_t>(std::max(0, std::vsnprintf(nullptr, 0, format, args)));
    if (printed->bytes > printed->limit) {
        std::fprintf(stderr,
                     "c-emitter-fuzz: %llu bytes printed, over the %llu DumpLimits allows\n",
                     static_cast<unsigned long long>(printed->bytes),
                     static_cast<unsigned long long>(printed->limit));
        std::abort();
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const bool silenced = (libbpf_set_print(quiet), true);
    (void)silenced;
    auto graph = json::readBpftoolJson(std::as_bytes(std::span(data, size)), {"fuzz"});
    if (!graph)
        return 0;
    auto blob =
        btforge::btf::writeBtf(*graph, {.byteOrder = ir::nativeByteOrder(), .withBase = true});
    if (!blob || !cheader::checkDumpLimits(*graph, blob->size()))
        return 0;
    std::unique_ptr<::btf, void (*)(::btf*)> types(
        btf__new(blob->data(), static_cast<uint32_t>(blob->size())), btf__free);
    if (!types)
        return 0;
    Printed printed{0, cheader::maxHeaderBytes(blob->size())};
    std::unique_ptr<::btf_dump, void (*)(::btf_dump*)> dump(
        btf_dump__new(types.get(), count, &printed, nullptr), btf_dump__free);
    if (!dump)
        return 0;
    std::vector<uint32_t> order(btf__type_cnt(types.get()) - 1);
    if (size % 2)
        order = cheader::bpftoolSortedOrder(*types);
    else
        std::iota(order.begin(), order.end(), 1u);
    for (uint32_t id : order)
        btf_dump__dump_type(dump.get(), id);
    const uint64_t limit = printed.limit;
    printed.limit = UINT64_MAX;
    for (uint32_t func : cheader::taggedKfuncs(*types)) {
        if (printed.bytes > limit)
            break;
        btf_dump_emit_type_decl_opts declaration{};
        declaration.sz = sizeof(declaration);
        declaration.field_name = "f";
        btf_dump__emit_type_decl(dump.get(), btf__type_by_id(types.get(), func)->type,
                                 &declaration);
    }
    return 0;
}
