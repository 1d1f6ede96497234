// The pipeline of convert and dump: load (GraphLoading, which diff shares), amend (Amending), then
// pick an emitter and write (into an ELF file: ElfOutput).
#pragma once

#include "GraphLoading.h"
#include "PluginRegistry.h"

#include <optional>
#include <string>
#include <vector>

namespace btforge::host {

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

// What the emitter's capabilities imply for the request (--func-addr keep for an emitter that
// writes FUNC addresses) and the outputs they refuse (--elf without an emitter writing BTF).
Expected<void> applyEmitterCapabilities(const PluginRegistry& registry, ConversionRequest& request);
// The DWARF loaders' options the request and its emitter imply (dwarf/LoaderOptions.h): one FUNC
// per address for the FUNC-address modes; for an emitter that ShowsDeclarations, arrays nested
// and DW_AT_alignment kept. Added to `loaderOptions` (the shorthands), which --plugin-opt
// overrides.
void addLoaderOptionsFor(const PluginRegistry& registry, const ConversionRequest& request,
                         plugin::OptionValues& loaderOptions);

Expected<void> runConversion(const PluginRegistry& registry, const ConversionRequest& request,
                             plugin::Session& session);

} // namespace btforge::host
