#include "Conversion.h"

#include "SameFiles.h"
#include "StandardOutput.h"
#include "amend/FeatureDowngrade.h"
#include "amend/GlobalVariables.h"
#include "amend/TypeSelection.h"
#include "elf/ElfSectionWriter.h"
#include "btforge/elf/ElfSymbolTable.h"
#include "support/OutputFile.h"

#include "btforge/Features.h"
#include "btforge/btf/DistilledBase.h"
#include "btforge/btf/FuncAddrExtension.h"
#include "btforge/dwarf/LoaderOptions.h"
#include "btforge/elf/ElfSections.h"
#include "btforge/support/MappedFile.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <optional>
#include <set>
#include <sstream>
#include <sys/stat.h>
#include <vector>

namespace btforge::host {
namespace {

using plugin::PluginKind;

std::string namesOf(const PluginRegistry& registry, PluginKind kind) {
    std::string names;
    for (const LoadedPlugin* p : registry.ofKind(kind))
        names += (names.empty() ? "" : ", ") + std::string(p->descriptor->name);
    return names.empty() ? "none found; see 'btforge plugins'" : names;
}

// A plugin found earlier in the search path silently replaces one of the same name otherwise (an
// old plugin directory in BTFORGE_PLUGIN_PATH, a test's): each run that uses it says so, --quiet
// or not, as its output may differ from the plugin's it shadows (docs/security.md).
const LoadedPlugin* announced(const PluginRegistry& registry, const LoadedPlugin* p) {
    static std::set<const LoadedPlugin*> told;
    if (!told.insert(p).second)
        return p;
    const char* kind = p->descriptor->kind == PluginKind::Loader ? "loader" : "emitter";
    for (const std::string& shadowed : registry.shadowedBy(*p))
        std::fprintf(stderr, "btforge: note: %s '%s' is %s, which shadows %s\n", kind,
                     p->descriptor->name, p->path.c_str(), shadowed.c_str());
    return p;
}

Expected<const LoadedPlugin*> requirePlugin(const PluginRegistry& registry, PluginKind kind,
                                            const std::string& name) {
    if (const LoadedPlugin* p = registry.find(kind, name))
        return announced(registry, p);
    const char* what = kind == PluginKind::Loader ? "loader" : "emitter";
    return Error::usage("unknown " + std::string(what) + " '" + name +
                        "' (available: " + namesOf(registry, kind) + ")");
}

// The loader that reads BTF as stored, for bases and what ELF files carry.
Expected<const LoadedPlugin*> btfLoader(const PluginRegistry& registry) {
    for (const LoadedPlugin* p : registry.ofKind(PluginKind::Loader)) {
        if (p->descriptor->has(plugin::Capability::ReadsBtf))
            return announced(registry, p);
    }
    return Error::usage("no loader reads BTF (loaders: " + namesOf(registry, PluginKind::Loader) +
                        ")");
}

Expected<const LoadedPlugin*> chooseLoader(const PluginRegistry& registry, const MappedFile& input,
                                           bool carried) {
    const std::string& path = input.path();
    if (carried && elf::looksLikeElf(input.bytes()) && elf::hasSection(input.bytes(), ".BTF"))
        return btfLoader(registry);
    plugin::InputProbe probe{path, input.bytes()};

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
    return announced(registry, best);
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
    auto loader = btfLoader(registry);
    if (!loader)
        return std::move(loader).error();
    auto file = openInput(path, session);
    if (!file)
        return std::move(file).error();
    auto graph = (*loader)->descriptor->makeLoader()->load(
        {path, std::move(*file), nullptr, "", (*loader)->options}, session);
    if (!graph)
        return std::move(graph).error();
    return std::make_shared<const ir::TypeGraph>(std::move(*graph));
}

// global_var on BTF input: the variables of the input's ELF symbol table (BTF read from an ELF
// file's .BTF); raw BTF has none to add.
Expected<void> addGlobalVariables(ir::TypeGraph& graph, const std::shared_ptr<MappedFile>& file,
                                  plugin::Session& session) {
    const std::string& input = file->path();
    std::shared_ptr<const elf::ElfSymbolTable> symbols;
    if (elf::looksLikeElf(file->bytes())) {
        auto read = elf::ElfSymbolTable::read(file);
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
                              const std::shared_ptr<MappedFile>& input,
                              const plugin::PluginDescriptor& loader, plugin::Session& session) {
    auto features = FeatureSet::parse(session.options.features);
    if (!features)
        return std::move(features).error();
    for (size_t i = 0; i < static_cast<size_t>(Feature::Count); ++i) {
        const auto f = static_cast<Feature>(i);
        if (features->has(f) && !FeatureSet::implemented(f))
            session.diagnostics.warning("feature '" + std::string(FeatureSet::name(f)) +
                                        "' is not implemented by btforge: ignored");
    }
    if (auto downgraded = amend::downgrade(graph, *features))
        graph = std::move(*downgraded);
    if (features->has(Feature::GlobalVar) && !loader.has(plugin::Capability::MakesVariables)) {
        auto added = addGlobalVariables(graph, input, session);
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

// The outputs of a conversion, opened before the work so that one that cannot be written fails
// at once; they replace their targets only once everything succeeded.
struct Outputs {
    std::optional<OutputFile> main;   // none for standard output
    std::optional<OutputFile> report; // --report-skipped
    std::ostringstream reportText;
};

Expected<void> openOutputs(const ConversionRequest& request, Outputs& outputs) {
    if (request.output != "-") {
        auto file =
            OutputFile::create(request.output, request.inPlace ? OutputFile::Target::RegularFile
                                                               : OutputFile::Target::Any);
        if (!file)
            return std::move(file).error();
        outputs.main.emplace(std::move(*file));
    }
    if (!request.reportSkipped.empty()) {
        auto file = OutputFile::create(request.reportSkipped);
        if (!file)
            return std::move(file).error();
        outputs.report.emplace(std::move(*file));
    }
    return {};
}

// A section --elf / --in-place writes.
struct SectionContents {
    std::string name;
    std::string bytes;
};

// --elf / --in-place: a copy of the input ELF file with `sections` added or replaced, every other
// section as it was, with the input's permissions.
Expected<void> writeIntoElf(const MappedFile& input, const std::vector<SectionContents>& sections,
                            OutputFile& output) {
    struct stat st {};
    if (::fstat(input.descriptor(), &st) != 0)
        return Error::io(input.path() + ": cannot stat: " + std::strerror(errno));
    // One section at a time, each over the copy the previous one made.
    std::string image;
    std::span<const std::byte> current = input.bytes();
    for (size_t i = 0; i < sections.size(); ++i) {
        const bool last = i + 1 == sections.size();
        std::ostringstream step;
        if (auto written = elf::writeWithSection(current, input.path(), sections[i].name,
                                                 std::as_bytes(std::span(sections[i].bytes)),
                                                 last ? output.stream() : step);
            !written)
            return written;
        if (!last) {
            image = std::move(step).str();
            current = std::as_bytes(std::span(image));
        }
    }
    // A stream's bytes are in a memfd, whose permissions say nothing: the umask's default then.
    return output.commit(S_ISREG(st.st_mode) && st.st_nlink > 0
                             ? std::optional<unsigned>(st.st_mode & 07777)
                             : std::nullopt);
}

bool distilledBaseRequested(const plugin::Session& session) {
    auto features = FeatureSet::parse(session.options.features);
    return features && features->has(Feature::DistilledBase);
}

// distilled_base as pahole -J does it: split BTF written into an ELF file goes over its distilled
// base, which goes to .BTF.base. Raw output stays split over the whole base, as pahole's
// --btf_encode_detached writes it.
bool distillsBase(const ir::TypeGraph& graph, const ConversionRequest& request,
                  plugin::Session& session) {
    if (!distilledBaseRequested(session))
        return false;
    if (!graph.base()) {
        session.diagnostics.warning("feature 'distilled_base' is for split BTF (a module over "
                                    "its base, -B): ignored");
        return false;
    }
    if (!request.intoElf) {
        session.diagnostics.warning(
            "feature 'distilled_base' writes .BTF.base into ELF output only (--elf, --in-place): "
            "raw BTF is written split over the whole base, as pahole writes it");
        return false;
    }
    return true;
}

// What --elf / --in-place write: .BTF; with a distilled base, .BTF over it and .BTF.base.
Expected<std::vector<SectionContents>>
elfSections(const ir::TypeGraph& graph, bool distill, plugin::Emitter& emitter,
            const plugin::EmitRequest& emit, const std::string& input, plugin::Session& session) {
    auto emitted = [&](const ir::TypeGraph& g) -> Expected<std::string> {
        std::ostringstream out;
        if (auto written = emitter.emit(g, emit, out, session); !written)
            return std::move(written).error();
        return std::move(out).str();
    };
    std::vector<SectionContents> sections;
    if (!distill) {
        auto btf = emitted(graph);
        if (!btf)
            return std::move(btf).error();
        sections.push_back({".BTF", std::move(*btf)});
        return sections;
    }
    auto distilled = btf::distillBase(graph, input);
    if (!distilled)
        return std::move(distilled).error();
    auto btf = emitted(distilled->split);
    if (!btf)
        return std::move(btf).error();
    auto base = emitted(*distilled->base);
    if (!base)
        return std::move(base).error();
    sections.push_back({".BTF", std::move(*btf)});
    sections.push_back({".BTF.base", std::move(*base)});
    return sections;
}

// What an emitter cannot write (a vlen over BTF's limit) is a property of the types, so of the
// input they came from: the message names it when it does not already.
Error aboutInput(Error error, const std::string& input) {
    if (error.kind() != ErrorKind::BadInput || error.message().starts_with(input + ": "))
        return error;
    return Error::badInput(input + ": " + error.message());
}

} // namespace

Expected<void> applyEmitterCapabilities(const PluginRegistry& registry,
                                        ConversionRequest& request) {
    const LoadedPlugin* emitter = registry.find(PluginKind::Emitter, request.emitter);
    if (!emitter)
        return {}; // runConversion says so
    if (request.intoElf && !emitter->descriptor->has(plugin::Capability::WritesBtf))
        return Error::usage("convert: --elf and --in-place write BTF into an ELF file: -t " +
                            request.emitter + " does not write BTF");
    if (emitter->descriptor->has(plugin::Capability::NeedsFuncAddresses)) {
        if (request.funcAddr == FuncAddrMode::Standard)
            request.funcAddr = FuncAddrMode::Keep;
        else if (request.funcAddr != FuncAddrMode::Keep)
            return Error::usage("-t " + request.emitter +
                                " writes FUNC addresses: --func-addr must be keep");
    }
    return {};
}

Expected<void> runConversion(const PluginRegistry& registry, const ConversionRequest& request,
                             plugin::Session& session) {
    auto emitterPlugin = requirePlugin(registry, PluginKind::Emitter, request.emitter);
    if (!emitterPlugin)
        return std::move(emitterPlugin).error();
    if (auto distinct = refuseOutputsOverInputs(request, registry); !distinct)
        return distinct;
    // --in-place: INPUT is checked as an output before it is read (a FIFO would be read, then
    // opened to be written, and block).
    Outputs outputs;
    if (request.inPlace) {
        if (auto opened = openOutputs(request, outputs); !opened)
            return opened;
    }
    auto input = openInput(request.source.input, session);
    if (!input)
        return std::move(input).error();
    if (request.intoElf) { // refuse before the work of converting
        if (!elf::looksLikeElf((*input)->bytes()))
            return Error::badInput(request.source.input + ": not an ELF file (--elf, --in-place)");
        for (const char* section : {".BTF", ".BTF.base"}) {
            if (auto writable =
                    elf::checkSectionWritable((*input)->bytes(), request.source.input, section);
                !writable)
                return writable;
        }
    }
    if (!request.inPlace) {
        if (auto opened = openOutputs(request, outputs); !opened)
            return opened;
    }
    if (outputs.report)
        session.reports[std::string(dwarf::kSkippedFunctionsReport)] = &outputs.reportText;
    std::ostringstream skipLines;
    if (request.listSkipped)
        session.reports[std::string(dwarf::kSkippedFunctionLines)] = &skipLines;

    const plugin::PluginDescriptor* loader = nullptr;
    auto loaded = loadGraph(registry, request.source, session, &loader, *input);
    if (!loaded)
        return std::move(loaded).error();
    auto graph = amend(std::move(*loaded), request, *input, *loader, session);
    if (!graph)
        return std::move(graph).error();
    // The extension's conversions, explicit so that a standard output never silently loses the
    // FUNCs a name has at several addresses.
    if (request.funcAddr == FuncAddrMode::Merge)
        *graph = btf::funcAddrToStandard(std::move(*graph));
    else if (request.funcAddr == FuncAddrMode::DeclTag)
        *graph = btf::funcAddrToDeclTags(std::move(*graph));

    auto emitter = (*emitterPlugin)->descriptor->makeEmitter();
    plugin::EmitRequest emit{request.output, (*emitterPlugin)->options};
    Expected<void> written;
    const bool distill = distillsBase(*graph, request, session);
    plugin::PhaseTimer writing(session.stats, plugin::phase::kWrite);
    if (request.intoElf) {
        if (!distill && elf::hasSection((*input)->bytes(), ".BTF.base"))
            session.diagnostics.warning(request.source.input +
                                        ": its .BTF.base is kept but does not describe the base "
                                        "of the .BTF written (feature distilled_base is off)");
        auto sections = elfSections(*graph, distill, *emitter, emit, request.source.input, session);
        written = sections ? writeIntoElf(**input, *sections, *outputs.main)
                           : Expected<void>(std::move(sections).error());
    } else if (!outputs.main) {
        written = emitter->emit(*graph, emit, std::cout, session);
        if (auto flushed = flushStandardOutput(); written && !flushed)
            return flushed;
    } else {
        written = emitter->emit(*graph, emit, outputs.main->stream(), session);
        if (written)
            written = outputs.main->commit();
    }
    if (written && request.listSkipped) {
        std::cout << skipLines.str();
        if (auto flushed = flushStandardOutput(); !flushed)
            return flushed;
    }
    if (!written)
        return aboutInput(std::move(written).error(), request.source.input);
    if (!outputs.report)
        return written;
    // Input a loader makes no report for (BTF) leaves the file as it was.
    if (outputs.reportText.str().empty())
        return {};
    outputs.report->stream() << outputs.reportText.str();
    return outputs.report->commit();
}

Expected<std::shared_ptr<MappedFile>> openInput(const std::string& path,
                                                const plugin::Session& session) {
    auto file = MappedFile::open(path, session.options.streamLimit);
    if (!file)
        return std::move(file).error();
    return std::make_shared<MappedFile>(std::move(*file));
}

Expected<ir::TypeGraph> loadGraph(const PluginRegistry& registry, const GraphSource& source,
                                  plugin::Session& session,
                                  const plugin::PluginDescriptor** loaderUsed,
                                  std::shared_ptr<MappedFile> input) {
    if (!input) {
        auto opened = openInput(source.input, session);
        if (!opened)
            return std::move(opened).error();
        input = std::move(*opened);
    }
    auto loaderPlugin = source.loader ? requirePlugin(registry, PluginKind::Loader, *source.loader)
                                      : chooseLoader(registry, *input, source.carried);
    if (!loaderPlugin)
        return std::move(loaderPlugin).error();
    if (loaderUsed)
        *loaderUsed = (*loaderPlugin)->descriptor;

    plugin::LoadRequest load{source.input, std::move(input), nullptr, "", (*loaderPlugin)->options};
    if (source.base && sameFile(source.input, *source.base))
        session.diagnostics.warning(source.input + ": INPUT is also its base (-B): its types are "
                                                   "the base's, so the split BTF has few or none");
    if (auto basePath = source.base ? source.base : implicitBase(source.input)) {
        std::optional<plugin::PhaseTimer> timer(std::in_place, session.stats, plugin::phase::kBase);
        auto base = loadBase(registry, *basePath, session);
        timer.reset();
        if (!base)
            return std::move(base).error();
        if (session.stats)
            session.stats->hold(plugin::holder::kBaseTypes, (*base)->memoryUsage());
        load.base = std::move(*base);
        load.basePath = *basePath;
    }
    plugin::PhaseTimer timer(session.stats, plugin::phase::kLoad);
    auto graph = (*loaderPlugin)->descriptor->makeLoader()->load(load, session);
    if (graph && session.stats)
        session.stats->hold(plugin::holder::kResult, graph->memoryUsage());
    return graph;
}

} // namespace btforge::host
