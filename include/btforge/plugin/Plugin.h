// The contract between the btforge host and its plugins (shared libraries loaded at run time).
//
// Each plugin exports one PluginDescriptor under the symbol name kDescriptorSymbol. The host reads
// abiVersion before anything else and refuses a plugin whose version differs, so the rest of the
// descriptor and the interfaces below may change freely whenever kAbiVersion is bumped.
#pragma once

#include "btforge/Export.h"
#include "btforge/ir/TypeGraph.h"
#include "btforge/plugin/Session.h"
#include "btforge/support/Error.h"
#include "btforge/support/MappedFile.h"

#include <cstdint>
#include <exception>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <new>
#include <span>
#include <string>

namespace btforge::plugin {

inline constexpr uint32_t kAbiVersion = 10;
inline constexpr const char* kDescriptorSymbol = "btforge_plugin_descriptor";

enum class PluginKind : uint32_t { Loader = 1, Emitter = 2 };

// What the host must know of a plugin beyond its kind (it never goes by a plugin's name).
enum class Capability : uint32_t {
    None = 0,
    // Loader: reads BTF as it is stored (raw, an ELF file's .BTF); the host loads bases (-B) and
    // what an ELF file carries (dump, diff) with it.
    ReadsBtf = 1u << 0,
    // Loader: makes the VARs and DATASECs of global variables itself (global_var); for the other
    // loaders' graphs the host adds them from the input's ELF symbol table.
    MakesVariables = 1u << 1,
    // Emitter: writes FUNCs with their addresses (docs/func-addr-extension.md), so loaders keep
    // one FUNC per address (--func-addr keep is implied).
    NeedsFuncAddresses = 1u << 2,
    // Emitter: writes standard BTF, which --elf and --in-place put into an ELF file's .BTF.
    WritesBtf = 1u << 3,
    // Emitter: shows types as their source declares them (pahole's layouts), so the DWARF
    // loaders keep what BTF drops: multi-dimensional arrays nested, DW_AT_alignment as attribute
    // DECL_TAGs 'aligned(N)', and every unit's own types, not deduplicated, each unit's first
    // tagged (dwarf/LoaderOptions.h).
    ShowsDeclarations = 1u << 4,
    // Emitter: shows types only, never FUNCs, VARs or DATASECs, so the DWARF loaders decide no
    // functions and place no variables (and, without dedup, merge nothing).
    ShowsTypesOnly = 1u << 5,
};

constexpr Capability operator|(Capability a, Capability b) {
    return static_cast<Capability>(static_cast<uint32_t>(a) | static_cast<uint32_t>(b));
}

// An option of a plugin's own, given as --plugin-opt NAME.KEY=VALUE and listed by
// `btforge plugins`.
struct OptionSpec {
    const char* key;
    const char* defaultValue; // what the plugin gets when the option is not given
    const char* help;
};

// A plugin's options: every key it declares, with the value given or else its default.
using OptionValues = std::map<std::string, std::string, std::less<>>;

// An input, for loaders to recognise it without a -f option: the bytes the load reads too (the
// host opens every input once: a pipe cannot be read twice).
struct InputProbe {
    std::string path;
    std::span<const std::byte> bytes;
};

struct LoadRequest {
    std::string path;                 // for messages
    std::shared_ptr<MappedFile> file; // the input, opened by the host: loaders never reopen path
    // Split inputs continue this graph (from -B/--base); null for a standalone input.
    std::shared_ptr<const ir::TypeGraph> base;
    std::string basePath;
    OptionValues options; // this loader's own (--plugin-opt)
};

class Loader {
public:
    virtual ~Loader() = default;
    // How confidently this loader reads the input: 0 = not at all; the host picks the highest.
    virtual unsigned probe(const InputProbe& input) const = 0;
    virtual Expected<ir::TypeGraph> load(const LoadRequest& request, Session& session) = 0;
};

struct PluginDescriptor;

struct EmitRequest {
    std::string outputPath; // for messages; "-" is standard output
    OptionValues options;   // this emitter's own (--plugin-opt)
    // The loader that read the graph, for an emitter whose output depends on where the types
    // came from (layout: pahole infers alignment from BTF, reads it from DWARF); may be null.
    const PluginDescriptor* loader = nullptr;
};

class Emitter {
public:
    virtual ~Emitter() = default;
    virtual Expected<void> emit(const ir::TypeGraph& graph, const EmitRequest& request,
                                std::ostream& out, Session& session) = 0;
};

struct PluginDescriptor {
    uint32_t abiVersion; // must stay the first field
    PluginKind kind;
    const char* name;
    const char* description;
    std::unique_ptr<Loader> (*makeLoader)() = nullptr;   // set for loaders
    std::unique_ptr<Emitter> (*makeEmitter)() = nullptr; // set for emitters
    Capability capabilities = Capability::None;
    std::span<const OptionSpec> options = {};

    bool has(Capability c) const {
        return (static_cast<uint32_t>(capabilities) & static_cast<uint32_t>(c)) != 0;
    }
};

namespace detail {

// The exception being handled, as an Error naming the plugin.
inline Error currentExceptionError(const char* plugin) {
    std::string what;
    try {
        std::rethrow_exception(std::current_exception()); // to tell what it is
    } catch (const std::bad_alloc&) {
        what = "out of memory";
    } catch (const std::exception& e) {
        what = e.what();
    } catch (...) {
        what = "an exception that is not a std::exception";
    }
    return Error::badInput(std::string(plugin) + " plugin failed: " + what);
}

// What the descriptor macros below make: the plugin's class behind a barrier that catches, in the
// plugin's own code, whatever it throws (out of memory, a library's std::out_of_range), so that
// no exception crosses into the host: a load or emit returns it as an Error, a probe says 0.
template <typename Impl> class LoaderBarrier final : public Loader {
public:
    explicit LoaderBarrier(const char* name) : name_(name) {}
    unsigned probe(const InputProbe& input) const override {
        try {
            return impl_.probe(input);
        } catch (...) {
            return 0;
        }
    }
    Expected<ir::TypeGraph> load(const LoadRequest& request, Session& session) override {
        try {
            return impl_.load(request, session);
        } catch (...) {
            return currentExceptionError(name_);
        }
    }

private:
    const char* name_;
    Impl impl_;
};

template <typename Impl> class EmitterBarrier final : public Emitter {
public:
    explicit EmitterBarrier(const char* name) : name_(name) {}
    Expected<void> emit(const ir::TypeGraph& graph, const EmitRequest& request, std::ostream& out,
                        Session& session) override {
        try {
            return impl_.emit(graph, request, out, session);
        } catch (...) {
            return currentExceptionError(name_);
        }
    }

private:
    const char* name_;
    Impl impl_;
};

} // namespace detail
} // namespace btforge::plugin

// Defines the exported descriptor of a loader or emitter plugin implemented by CLASS. What follows
// the class, if anything, are the descriptor's later fields, designated:
//   BTFORGE_EMITTER_PLUGIN("csv", "types by kind", CsvEmitter, .options = kCsvOptions);
#define BTFORGE_LOADER_PLUGIN(NAME, DESCRIPTION, CLASS, ...)                                       \
    BTFORGE_PLUGIN_EXPORT const ::btforge::plugin::PluginDescriptor btforge_plugin_descriptor {    \
        .abiVersion = ::btforge::plugin::kAbiVersion,                                              \
        .kind = ::btforge::plugin::PluginKind::Loader, .name = NAME, .description = DESCRIPTION,   \
        .makeLoader = []() -> std::unique_ptr<::btforge::plugin::Loader> {                         \
            return std::make_unique<::btforge::plugin::detail::LoaderBarrier<CLASS>>(NAME);        \
        } __VA_OPT__(, ) __VA_ARGS__                                                               \
    }

#define BTFORGE_EMITTER_PLUGIN(NAME, DESCRIPTION, CLASS, ...)                                      \
    BTFORGE_PLUGIN_EXPORT const ::btforge::plugin::PluginDescriptor btforge_plugin_descriptor {    \
        .abiVersion = ::btforge::plugin::kAbiVersion,                                              \
        .kind = ::btforge::plugin::PluginKind::Emitter, .name = NAME, .description = DESCRIPTION,  \
        .makeEmitter = []() -> std::unique_ptr<::btforge::plugin::Emitter> {                       \
            return std::make_unique<::btforge::plugin::detail::EmitterBarrier<CLASS>>(NAME);       \
        } __VA_OPT__(, ) __VA_ARGS__                                                               \
    }
