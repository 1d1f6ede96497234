#include "Conversion.h"

#include "btforge/Features.h"
#include "btforge/amend/FeatureDowngrade.h"
#include "btforge/amend/GlobalVariables.h"
#include "btforge/amend/TypeSelection.h"
#include "btforge/btf/FuncAddrExtension.h"
#include "btforge/elf/ElfSectionWriter.h"
#include "btforge/elf/ElfSections.h"
#include "btforge/elf/ElfSymbolTable.h"
#include "btforge/support/AtomicFile.h"
#include "btforge/support/MappedFile.h"

#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <sys/stat.h>

namespace btforge::host {
namespace {

using plugin::PluginKind;

std::string namesOf(const PluginRegistry& registry, PluginKind kind) {
    std::string names;
    for (const LoadedPlugin* p : registry.ofKind(kind))
        names += (names.empty() ? "" : ", ") + std::string(p->descriptor->name);
    return names.empty() ? "none found; see 'btforge plugins'" : names;
}

Expected<const LoadedPlugin*> requirePlugin(const PluginRegistry& registry, PluginKind kind,
                                            const std::string& name) {
    if (const LoadedPlugin* p = registry.find(kind, name))
        return p;
    const char* what = kind == PluginKind::Loader ? "loader" : "emitter";
    return Error::usage("unknown " + std::string(what) + " '" + name +
                        "' (available: " + namesOf(registry, kind) + ")");
}

Expected<const LoadedPlugin*> chooseLoader(const PluginRegistry& registry,
                                           const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return Error::io(path + ": cannot open: " + std::strerror(errno));
    std::array<unsigned char, 64> head{};
    in.read(reinterpret_cast<char*>(head.data()), head.size());
    plugin::InputProbe probe{path, std::span(head.data(), static_cast<size_t>(in.gcount()))};

    const LoadedPlugin* best = nullptr;
    unsigned bestScore = 0;
    for (const LoadedPlugin* p : registry.ofKind(PluginKind::Loader)) {
        unsigned score = p->descriptor->makeLoader()->probe(probe);
        if (score > bestScore) {
            best = p;
            bestScore = score;
        }
    }
    if (!best)
        return Error::badInput(path + ": no loader recognises this input (loaders: " +
                               namesOf(registry, PluginKind::Loader) + ")");
    return best;
}

// Module BTF under /sys/kernel/btf is split over the running kernel's, as bpftool assumes too.
std::optional<std::string> implicitBase(const std::string& input) {
    constexpr std::string_view sysfs = "/sys/kernel/btf/";
    if (input.starts_with(sysfs) && input != "/sys/kernel/btf/vmlinux")
        return "/sys/kernel/btf/vmlinux";
    return std::nullopt;
}

Expected<std::shared_ptr<const ir::TypeGraph>>
loadBase(const PluginRegistry& registry, const std::string& path, plugin::Session& session) {
    // A base is always BTF (raw, or the .BTF of an ELF file), even when the file also has DWARF.
    auto btfLoader = requirePlugin(registry, PluginKind::Loader, "btf");
    if (!btfLoader)
        return std::move(btfLoader).error();
    auto graph = (*btfLoader)->descriptor->makeLoader()->load({path, nullptr, ""}, session);
    if (!graph)
        return std::move(graph).error();
    return std::make_shared<const ir::TypeGraph>(std::move(*graph));
}

// After a failed run no output from an earlier run may pass for this run's: remove it, unless
// the "output" is in fact one of the inputs.
void removeStaleOutput(const ConversionRequest& request) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (request.output == "-" || !fs::is_regular_file(request.output, ec))
        return;
    const GraphSource& source = request.source;
    for (const std::string* input : {&source.input, source.base ? &*source.base : nullptr}) {
        if (input && fs::equivalent(*input, request.output, ec))
            return;
    }
    fs::remove(request.output, ec);
}

// global_var on BTF input: the variables of the input's ELF symbol table (BTF read from an ELF
// file's .BTF); raw BTF has none to add.
Expected<void> addGlobalVariables(ir::TypeGraph& graph, const std::string& input,
                                  plugin::Session& session) {
    auto file = MappedFile::open(input);
    if (!file)
        return std::move(file).error();
    std::shared_ptr<const elf::ElfSymbolTable> symbols;
    if (elf::looksLikeElf(file->bytes())) {
        auto read = elf::ElfSymbolTable::read(std::make_shared<MappedFile>(std::move(*file)));
        if (!read)
            return std::move(read).error();
        symbols = std::move(*read);
    }
    if (!symbols || !symbols->hasSymbols()) {
        session.diagnostics.warning(input + ": global_var adds nothing: the input has no ELF "
                                            "symbol table to find variables in");
        return {};
    }
    amend::addGlobalVariables(graph, *symbols);
    return {};
}

// Features that are off and --keep/--drop, applied to whatever the loader made, BTF included.
Expected<ir::TypeGraph> amend(ir::TypeGraph graph, const ConversionRequest& request,
                              const std::string& loader, plugin::Session& session) {
    auto features = FeatureSet::parse(session.options.features);
    if (!features)
        return std::move(features).error();
    if (auto downgraded = amend::downgrade(graph, *features))
        graph = std::move(*downgraded);
    if (features->has(Feature::GlobalVar) && loader == "btf") {
        auto added = addGlobalVariables(graph, request.source.input, session);
        if (!added)
            return std::move(added).error();
    }
    for (auto [selection, names] : {std::pair{amend::Selection::Keep, &request.keep},
                                    {amend::Selection::Drop, &request.drop}}) {
        if (names->empty())
            continue;
        auto selected = amend::select(graph, selection, *names);
        if (!selected)
            return std::move(selected).error();
        graph = std::move(*selected);
    }
    return graph;
}

// --elf / --in-place: a copy of the input ELF file with `btf` as its .BTF section, every other
// section as it was, with the input's permissions.
Expected<void> writeIntoElf(const ConversionRequest& request, const std::string& btf) {
    const std::string& inputPath = request.source.input;
    auto input = MappedFile::open(inputPath);
    if (!input)
        return std::move(input).error();
    // Through a symbolic link, the file it names is replaced, not the link (a dangling link is
    // replaced itself).
    std::error_code ec;
    std::string output = request.output;
    if (std::filesystem::is_symlink(output, ec)) {
        auto target = std::filesystem::canonical(output, ec);
        if (!ec)
            output = target.string();
    }
    struct stat st {};
    if (::stat(inputPath.c_str(), &st) != 0)
        return Error::io(inputPath + ": cannot stat: " + std::strerror(errno));
    auto file = AtomicFile::create(output);
    if (!file)
        return std::move(file).error();
    if (auto written = elf::writeWithSection(input->bytes(), inputPath, ".BTF",
                                             std::as_bytes(std::span(btf)), file->stream());
        !written)
        return written;
    return file->commit(st.st_mode & 07777);
}

Expected<void> convert(const PluginRegistry& registry, const ConversionRequest& request,
                       plugin::Session& session) {
    auto emitterPlugin = requirePlugin(registry, PluginKind::Emitter, request.emitter);
    if (!emitterPlugin)
        return std::move(emitterPlugin).error();
    if (request.intoElf) { // refuse before the work of converting
        auto input = MappedFile::open(request.source.input);
        if (!input)
            return std::move(input).error();
        if (!elf::looksLikeElf(input->bytes()))
            return Error::badInput(request.source.input + ": not an ELF file (--elf, --in-place)");
        if (auto writable = elf::checkSectionWritable(input->bytes(), request.source.input, ".BTF");
            !writable)
            return writable;
    }
    std::string loader;
    auto loaded = loadGraph(registry, request.source, session, &loader);
    if (!loaded)
        return std::move(loaded).error();
    auto graph = amend(std::move(*loaded), request, loader, session);
    if (!graph)
        return std::move(graph).error();
    // The extension's conversions, explicit so that a standard output never silently loses the
    // FUNCs a name has at several addresses.
    if (session.options.funcAddr == plugin::FuncAddrMode::Merge)
        *graph = btf::funcAddrToStandard(std::move(*graph));
    else if (session.options.funcAddr == plugin::FuncAddrMode::DeclTag)
        *graph = btf::funcAddrToDeclTags(std::move(*graph));

    auto emitter = (*emitterPlugin)->descriptor->makeEmitter();
    plugin::EmitRequest emit{request.output};
    if (request.intoElf) {
        std::ostringstream btf;
        if (auto written = emitter->emit(*graph, emit, btf, session); !written)
            return written;
        return writeIntoElf(request, btf.str());
    }
    if (request.output == "-") {
        auto written = emitter->emit(*graph, emit, std::cout, session);
        std::cout.flush();
        if (written && !std::cout)
            return Error::io("standard output: write failed");
        return written;
    }
    auto file = AtomicFile::create(request.output);
    if (!file)
        return std::move(file).error();
    if (auto written = emitter->emit(*graph, emit, file->stream(), session); !written)
        return written; // the temporary file goes away with `file`
    return file->commit();
}

} // namespace

Expected<ir::TypeGraph> loadGraph(const PluginRegistry& registry, const GraphSource& source,
                                  plugin::Session& session, std::string* loaderName) {
    auto loaderPlugin = source.loader ? requirePlugin(registry, PluginKind::Loader, *source.loader)
                                      : chooseLoader(registry, source.input);
    if (!loaderPlugin)
        return std::move(loaderPlugin).error();
    if (loaderName)
        *loaderName = (*loaderPlugin)->descriptor->name;

    plugin::LoadRequest load{source.input, nullptr, ""};
    if (auto basePath = source.base ? source.base : implicitBase(source.input)) {
        auto base = loadBase(registry, *basePath, session);
        if (!base)
            return std::move(base).error();
        load.base = std::move(*base);
        load.basePath = *basePath;
    }
    return (*loaderPlugin)->descriptor->makeLoader()->load(load, session);
}

Expected<void> runConversion(const PluginRegistry& registry, const ConversionRequest& request,
                             plugin::Session& session) {
    auto done = convert(registry, request, session);
    if (!done)
        removeStaleOutput(request);
    return done;
}

} // namespace btforge::host
