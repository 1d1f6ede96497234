#include "btforge/dwarf/DwarfLoader.h"

#include "dwarf/DwarfConversion.h"
#include "dwarf/SkipReport.h"

#include "btforge/elf/ElfSections.h"
#include "btforge/support/MappedFile.h"

#include <libelf.h>

#include <optional>

namespace btforge::dwarf {
namespace {

Expected<DwarfConversionOptions> conversionOptions(const plugin::Options& in) {
    DwarfConversionOptions out;
    auto features = FeatureSet::parse(in.features);
    if (!features)
        return std::move(features).error();
    out.features = *features;
    auto languages = parseLanguages(in.languageExclude);
    if (!languages)
        return std::move(languages).error();
    out.excludedLanguages = std::move(*languages);
    out.dedup = in.dedup;
    out.arrays = in.nestedArrays ? ArrayShape::Nested : ArrayShape::Flattened;
    if (in.funcAddr != plugin::FuncAddrMode::Standard)
        out.functions = FunctionGranularity::PerAddress;
    out.addressBase = in.funcAddrBase;
    return out;
}

} // namespace

unsigned DwarfLoader::probe(const plugin::InputProbe& input) const {
    auto image = input.bytes;
    if (!elf::looksLikeElf(image))
        return 0;
    return elf::hasSection(image, ".debug_info") || elf::hasSection(image, ".zdebug_info")
               ? confidence_
               : 0;
}

Expected<ir::TypeGraph> DwarfLoader::load(const plugin::LoadRequest& request,
                                          plugin::Session& session) {
    auto options = conversionOptions(session.options);
    if (!options)
        return std::move(options).error();
    const std::shared_ptr<MappedFile>& mapped = request.file;
    // Both read the input's headers and tables, each through its own ELF handle: side by side,
    // after libelf's one process-wide setting is made here, once.
    elf_version(EV_CURRENT);
    std::optional<Expected<std::shared_ptr<const elf::ElfSymbolTable>>> symbols;
    std::optional<Expected<std::unique_ptr<UnitReader>>> reader;
    session.tasks.parallelFor(2, [&](size_t i) {
        if (i == 0)
            symbols.emplace(elf::ElfSymbolTable::read(mapped));
        else
            reader.emplace(openReader(mapped, session.options));
    });
    if (!*symbols)
        return std::move(*symbols).error();
    if (!*reader)
        return std::move(*reader).error();

    DwarfConversionReport report;
    auto graph = convertDwarf(***reader, ***symbols, request.base, session, *options, report);
    if (!graph)
        return graph;
    warnAbout(report, request.path, session.diagnostics);
    if (session.skipReport)
        writeSkipReport(report, *session.skipReport);
    if (session.skipLines)
        writeSkipLines(report, *session.skipLines);
    return graph;
}

} // namespace btforge::dwarf
