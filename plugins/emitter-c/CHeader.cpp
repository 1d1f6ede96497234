// The c emitter's companion (CHeader.h): the C header `bpftool btf dump file X format c` prints
// (vmlinux.h), byte for byte. The graph goes to libbpf as BTF in memory (btforge's writer; split
// BTF with its base, as one) and libbpf's btf_dump prints every type, as bpftool does, between
// the include guard and the CO-RE pragma bpftool puts around them.
#include "CHeader.h"

#include "BpftoolOrder.h"
#include "DumpLimits.h"

#include "btforge/btf/BtfWriter.h"
#include "btforge/plugin/Companion.h"

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <memory>
#include <numeric>
#include <ostream>
#include <string>
#include <vector>

namespace btforge {
namespace {

// What bpftool 7.1 prints before and after the types. BPF_NO_PRESERVE_ACCESS_INDEX lets a user
// include the header without CO-RE relocations.
constexpr std::string_view kPreamble =
    "#ifndef __VMLINUX_H__\n"
    "#define __VMLINUX_H__\n"
    "\n"
    "#ifndef BPF_NO_PRESERVE_ACCESS_INDEX\n"
    "#pragma clang attribute push "
    "(__attribute__((preserve_access_index)), apply_to = record)\n"
    "#endif\n"
    "\n";
// bpftool 7.5 adds what its kfunc prototypes are declared with.
constexpr std::string_view kKfuncMacros = "#ifndef __ksym\n"
                                          "#define __ksym __attribute__((section(\".ksyms\")))\n"
                                          "#endif\n"
                                          "\n"
                                          "#ifndef __weak\n"
                                          "#define __weak __attribute__((weak))\n"
                                          "#endif\n"
                                          "\n";
constexpr std::string_view kEpilogue = "#ifndef BPF_NO_PRESERVE_ACCESS_INDEX\n"
                                       "#pragma clang attribute pop\n"
                                       "#endif\n"
                                       "\n"
                                       "#endif /* __VMLINUX_H__ */\n";

struct BtfFree {
    void operator()(::btf* b) const { btf__free(b); }
};
using LibbpfBtf = std::unique_ptr<::btf, BtfFree>;

struct BtfDumpFree {
    void operator()(::btf_dump* d) const { btf_dump__free(d); }
};

Error libbpfError(const std::string& what, int error) {
    return Error::badInput("libbpf " + what + ": " + std::strerror(error));
}

// Appends printf's output to `out`; returns where it starts.
size_t appendFormatted(std::string& out, const char* format, va_list args) {
    const size_t at = out.size();
    va_list again;
    va_copy(again, args);
    const int length = std::vsnprintf(nullptr, 0, format, args);
    if (length > 0) {
        out.resize(at + static_cast<size_t>(length) + 1);
        std::vsnprintf(out.data() + at, static_cast<size_t>(length) + 1, format, again);
        out.resize(at + static_cast<size_t>(length));
    }
    va_end(again);
    return at;
}

// What libbpf says while it reads and prints (a kind it cannot print where a type should be, in
// BTF no compiler makes) would go to its own stderr, --quiet or not: it is kept here, as lines,
// for the session's warnings. libbpf has one print function per process; the emitter sets it for
// the time of one run.
class LibbpfMessages {
public:
    LibbpfMessages() : previous_(libbpf_set_print(collect)) { sink_ = &text_; }
    ~LibbpfMessages() {
        libbpf_set_print(previous_);
        sink_ = nullptr;
    }
    LibbpfMessages(const LibbpfMessages&) = delete;
    LibbpfMessages& operator=(const LibbpfMessages&) = delete;

    // Each distinct message once, the first few, as warnings naming libbpf.
    void report(plugin::Diagnostics& diagnostics) const {
        constexpr size_t kMaxShown = 5;
        std::vector<std::string_view> seen;
        size_t more = 0;
        for (size_t at = 0, end; at < text_.size(); at = end + 1) {
            end = std::min(text_.find('\n', at), text_.size());
            const std::string_view line = std::string_view(text_).substr(at, end - at);
            if (line.empty() || std::find(seen.begin(), seen.end(), line) != seen.end())
                continue;
            if (seen.size() == kMaxShown) {
                ++more;
                continue;
            }
            seen.push_back(line);
            diagnostics.warning("-t c: " + std::string(line));
        }
        if (more)
            diagnostics.warning("-t c: and " + std::to_string(more) + " other messages of libbpf");
    }

private:
    static int collect(libbpf_print_level level, const char* format, va_list args) {
        if (level != LIBBPF_DEBUG && sink_)
            appendFormatted(*sink_, format, args);
        return 0;
    }

    static inline std::string* sink_ = nullptr;
    std::string text_;
    libbpf_print_fn_t previous_;
};

// `graph` as BTF for libbpf, a split graph's base included (bpftool prints the base's types
// too), in this machine's byte order, which libbpf prints from. Refused when libbpf's btf_dump
// could not print it safely (DumpLimits.h).
Expected<std::vector<std::byte>> libbpfInput(const ir::TypeGraph& graph) {
    auto bytes = btf::writeBtf(graph, {.byteOrder = ir::nativeByteOrder(), .withBase = true});
    if (!bytes)
        return std::move(bytes).error();
    if (Expected<void> bounded = cheader::checkDumpLimits(graph, bytes->size()); !bounded)
        return std::move(bounded).error();
    return bytes;
}

// Which bpftool's header to print (the option bpftool=).
enum class Bpftool { V7_1, V7_5, V7_5Unsorted };

Expected<Bpftool> bpftoolOption(const plugin::OptionValues& options) {
    auto found = options.find("bpftool");
    const std::string_view value = found == options.end() ? "7.1" : std::string_view(found->second);
    if (value == "7.1")
        return Bpftool::V7_1;
    if (value == "7.5")
        return Bpftool::V7_5;
    if (value == "7.5-unsorted")
        return Bpftool::V7_5Unsorted;
    return Error::usage("c option bpftool: '" + std::string(value) +
                        "' is not 7.1, 7.5 or 7.5-unsorted");
}

// btf_dump's output, gathered in one string, as bpftool prints it. The libbpf bpftool is built
// with and Debian's libbpf 1.1 differ in two things, which are turned into bpftool's: libbpf 1.1
// writes an empty parameter list as "()", bpftool "(void)"; libbpf 1.1 follows an enum of 1 or
// 8 bytes with " __attribute__((mode(byte)))" or "(mode(word))", which bpftool 7.1 does not
// (7.5 does). Both come as fragments of their own, so they are recognised without parsing C.
class HeaderText {
public:
    HeaderText(std::string_view preamble, bool modeAttributes)
        : text_(preamble), modeAttributes_(modeAttributes) {}

    static void print(void* ctx, const char* format, va_list args) {
        static_cast<HeaderText*>(ctx)->append(format, args);
    }
    std::string& text() { return text_; }

private:
    void append(const char* format, va_list args) {
        if (!modeAttributes_ && std::string_view(format).starts_with(" __attribute__((mode("))
            return;
        const size_t at = appendFormatted(text_, format, args);
        const std::string_view fragment = std::string_view(text_).substr(at);
        if (fragment.empty())
            return;
        if (fragment == ")" && lastWasOpening_)
            text_.insert(at, "void");
        lastWasOpening_ = fragment == "(";
    }

    std::string text_;
    bool modeAttributes_;
    bool lastWasOpening_ = false;
};

Error typeError(uint32_t id, int err) {
    return libbpfError("cannot print type [" + std::to_string(id) + "]", -err);
}

// bpftool 7.5's section of kfunc prototypes, after the types; refused past the header size
// DumpLimits promises (a prototype may print anonymous types inline, once per kfunc tag).
Expected<void> emitKfuncs(::btf_dump& dump, const ::btf& types, HeaderText& header,
                          uint64_t limit) {
    std::string& text = header.text();
    text += "\n/* BPF kfuncs */\n#ifndef BPF_NO_KFUNC_PROTOTYPES\n";
    for (uint32_t func : cheader::taggedKfuncs(types)) {
        text += "extern ";
        const btf_type* t = btf__type_by_id(&types, func);
        btf_dump_emit_type_decl_opts declaration{};
        declaration.sz = sizeof(declaration);
        declaration.field_name = btf__name_by_offset(&types, t->name_off);
        if (int err = btf_dump__emit_type_decl(&dump, t->type, &declaration); err < 0)
            return typeError(func, err);
        text += " __weak __ksym;\n";
        if (text.size() > limit)
            return Error::badInput("the kfunc prototypes would pass " + std::to_string(limit) +
                                   " bytes of header");
    }
    text += "#endif\n\n";
    return {};
}

Expected<void> emitHeader(const ir::TypeGraph& graph, Bpftool bpftool, std::ostream& out) {
    auto bytes = libbpfInput(graph);
    if (!bytes)
        return std::move(bytes).error();
    LibbpfBtf types(btf__new(bytes->data(), static_cast<uint32_t>(bytes->size())));
    if (!types)
        return libbpfError("refused the BTF", errno);
    const bool v75 = bpftool != Bpftool::V7_1;
    HeaderText header(
        v75 ? std::string(kPreamble) + std::string(kKfuncMacros) : std::string(kPreamble), v75);
    std::unique_ptr<::btf_dump, BtfDumpFree> dump(
        btf_dump__new(types.get(), HeaderText::print, &header, nullptr));
    if (!dump)
        return libbpfError("cannot print the types", errno);
    // Every type, the base's too, each bringing what it needs before it: in id order, or in
    // bpftool 7.5's.
    std::vector<uint32_t> order;
    if (bpftool == Bpftool::V7_5) {
        order = cheader::bpftoolSortedOrder(*types);
    } else {
        order.resize(btf__type_cnt(types.get()) - 1);
        std::iota(order.begin(), order.end(), 1u);
    }
    for (uint32_t id : order) {
        if (int err = btf_dump__dump_type(dump.get(), id); err < 0)
            return typeError(id, err);
    }
    if (v75) {
        Expected<void> kfuncs =
            emitKfuncs(*dump, *types, header, cheader::maxHeaderBytes(bytes->size()));
        if (!kfuncs)
            return kfuncs;
    }
    std::string& text = header.text();
    text += kEpilogue;
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    return {};
}

Expected<void> emitC(const ir::TypeGraph& graph, const plugin::EmitRequest& request,
                     std::ostream& out, plugin::Session& session) {
    auto bpftool = bpftoolOption(request.options);
    if (!bpftool)
        return std::move(bpftool).error();
    LibbpfMessages messages;
    Expected<void> written = emitHeader(graph, *bpftool, out);
    messages.report(session.diagnostics);
    return written;
}

} // namespace
} // namespace btforge

BTFORGE_COMPANION(btforge::cheader::EmitC, &btforge::emitC);
