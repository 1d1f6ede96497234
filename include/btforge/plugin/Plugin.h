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
#include <iosfwd>
#include <memory>
#include <span>
#include <string>

namespace btforge::plugin {

inline constexpr uint32_t kAbiVersion = 4;
inline constexpr const char* kDescriptorSymbol = "btforge_plugin_descriptor";

enum class PluginKind : uint32_t { Loader = 1, Emitter = 2 };

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
};

class Loader {
public:
    virtual ~Loader() = default;
    // How confidently this loader reads the input: 0 = not at all; the host picks the highest.
    virtual unsigned probe(const InputProbe& input) const = 0;
    virtual Expected<ir::TypeGraph> load(const LoadRequest& request, Session& session) = 0;
};

struct EmitRequest {
    std::string outputPath; // for messages; "-" is standard output
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
    std::unique_ptr<Loader> (*makeLoader)();   // set for loaders
    std::unique_ptr<Emitter> (*makeEmitter)(); // set for emitters
};

} // namespace btforge::plugin

// Defines the exported descriptor of a loader plugin implemented by class LOADER_CLASS.
#define BTFORGE_LOADER_PLUGIN(NAME, DESCRIPTION, LOADER_CLASS)                                     \
    BTFORGE_PLUGIN_EXPORT const ::btforge::plugin::PluginDescriptor btforge_plugin_descriptor {    \
        ::btforge::plugin::kAbiVersion, ::btforge::plugin::PluginKind::Loader, NAME, DESCRIPTION,  \
            []() -> std::unique_ptr<::btforge::plugin::Loader> {                                   \
                return std::make_unique<LOADER_CLASS>();                                           \
            },                                                                                     \
            nullptr                                                                                \
    }

#define BTFORGE_EMITTER_PLUGIN(NAME, DESCRIPTION, EMITTER_CLASS)                                   \
    BTFORGE_PLUGIN_EXPORT const ::btforge::plugin::PluginDescriptor btforge_plugin_descriptor {    \
        ::btforge::plugin::kAbiVersion, ::btforge::plugin::PluginKind::Emitter, NAME, DESCRIPTION, \
            nullptr, []() -> std::unique_ptr<::btforge::plugin::Emitter> {                         \
                return std::make_unique<EMITTER_CLASS>();                                          \
            }                                                                                      \
    }
