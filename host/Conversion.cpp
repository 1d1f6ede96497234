#include "Conversion.h"

#include "Amending.h"
#include "ElfOutput.h"
#include "PluginChoice.h"
#include "SameFiles.h"
#include "StandardOutput.h"
#include "elf/ElfSectionWriter.h"
#include "support/OutputFile.h"

#include "btforge/btf/FuncAddrExtension.h"
#include "btforge/dwarf/LoaderOptions.h"
#include "btforge/elf/ElfSections.h"

#include <iostream>
#include <optional>
#include <sstream>

namespace btforge::host {
namespace {

using plugin::PluginKind;

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

void addLoaderOptionsFor(const PluginRegistry& registry, const ConversionRequest& request,
                         plugin::OptionValues& loaderOptions) {
    if (request.funcAddr != FuncAddrMode::Standard)
        loaderOptions[dwarf::kFuncPerAddressOption] = "true";
    const LoadedPlugin* emitter = registry.find(PluginKind::Emitter, request.emitter);
    // Such an emitter shows DWARF as pahole reads it: unit by unit, each unit's types as it has
    // them (a listing in the order of the units, -C names looked up from unit to unit).
    if (emitter && emitter->descriptor->has(plugin::Capability::ShowsDeclarations)) {
        loaderOptions[dwarf::kNestedArraysOption] = "true";
        loaderOptions[dwarf::kDeclarationTagsOption] = "true";
        loaderOptions[dwarf::kDedupOption] = "false";
    }
    if (emitter && emitter->descriptor->has(plugin::Capability::ShowsTypesOnly))
        loaderOptions[dwarf::kTypesOnlyOption] = "true";
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
    auto graph = amendGraph(std::move(*loaded), request, *input, *loader, session);
    if (!graph)
        return std::move(graph).error();
    // The extension's conversions, explicit so that a standard output never silently loses the
    // FUNCs a name has at several addresses.
    if (request.funcAddr == FuncAddrMode::Merge)
        *graph = btf::funcAddrToStandard(std::move(*graph));
    else if (request.funcAddr == FuncAddrMode::DeclTag)
        *graph = btf::funcAddrToDeclTags(std::move(*graph));

    auto emitter = (*emitterPlugin)->descriptor->makeEmitter();
    plugin::EmitRequest emit{request.output, (*emitterPlugin)->options, loader};
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

} // namespace btforge::host
