// The pipeline of convert and dump, whose first half every command shares: pick a loader, load
// (over a base); then pick an emitter and write.
#pragma once

#include "PluginRegistry.h"

#include <optional>
#include <string>
#include <vector>

namespace btforge::host {

// Where a graph comes from: the input, the loader that reads it and the base it continues.
struct GraphSource {
    std::string input;
    std::optional<std::string> loader; // chosen by probing the input when absent
    std::optional<std::string> base;   // implicit for /sys/kernel/btf/<module>
    // What the input carries (dump, diff): an ELF file's .BTF when it has one, as bpftool reads
    // it, rather than the DWARF convert makes BTF from.
    bool carried = false;
};

// What to do with functions that exist at several addresses (--func-addr,
// docs/func-addr-extension.md).
enum class FuncAddrMode : uint8_t {
    Standard, // one FUNC per name, none for a name at several addresses (standard BTF)
    Keep,     // one FUNC per address, carrying it (the extension; -t btf-func-addr implies it)
    Merge,    // per address, then converted to standard BTF (addresses dropped)
    DeclTag,  // per address, then converted to the RFC's "address=0x..." DECL_TAG form
};

struct ConversionRequest {
    GraphSource source;
    std::string output = "-"; // "-" is standard output
    std::string emitter = "btf";
    // --elf: the output is a copy of the input ELF file with the BTF as its .BTF section
    // (--in-place: output is the input, the one output allowed to name an input).
    bool intoElf = false;
    bool inPlace = false;
    // --report-skipped: the file the skipped functions go to, as JSON; empty: none.
    std::string reportSkipped;
    // --list-skipped: the skipped functions on standard output too, as pahole --verbose.
    bool listSkipped = false;
    // --keep / --drop: the names a minimised output is made for (core/amend/TypeSelection).
    std::vector<std::string> keep;
    std::vector<std::string> drop;
    // Not Standard: the DWARF loaders make one FUNC per address (their func-per-address option).
    FuncAddrMode funcAddr = FuncAddrMode::Standard;
};

// Opens an input once, as every command does (MappedFile's rules, --stream-limit): the loader
// probes and reads these bytes, never the path again.
Expected<std::shared_ptr<MappedFile>> openInput(const std::string& path,
                                                const plugin::Session& session);

// Loads one graph as every command does: the loader named or the best bidder, over its base.
// `loaderUsed`, when given, receives the descriptor of the loader that read it; `input`, when
// given, is source.input already opened.
Expected<ir::TypeGraph> loadGraph(const PluginRegistry& registry, const GraphSource& source,
                                  plugin::Session& session,
                                  const plugin::PluginDescriptor** loaderUsed = nullptr,
                                  std::shared_ptr<MappedFile> input = nullptr);

// What the emitter's capabilities imply for the request (--func-addr keep for an emitter that
// writes FUNC addresses) and the outputs they refuse (--elf without an emitter writing BTF).
Expected<void> applyEmitterCapabilities(const PluginRegistry& registry, ConversionRequest& request);

Expected<void> runConversion(const PluginRegistry& registry, const ConversionRequest& request,
                             plugin::Session& session);

} // namespace btforge::host
