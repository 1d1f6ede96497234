#include "btforge/dwarf/DwarfLoader.h"

#include "dwarf/DwarfConversion.h"
#include "dwarf/SkipReport.h"

#include "btforge/dwarf/LoaderOptions.h"
#include "btforge/elf/ElfSections.h"
#include "btforge/support/MappedFile.h"

#include <libelf.h>

#include <optional>
#include <string>
#include <string_view>

namespace btforge::dwarf {
namespace {

// The value the request gives KEY, or the declared default (a caller other than the host, which
// gives every key, may give none).
std::string_view optionValue(const plugin::OptionValues& values, std::string_view key) {
    if (auto given = values.find(key); given != values.end())
        return given->second;
    for (const plugin::OptionSpec& spec : kLoaderOptions) {
        if (key == spec.key)
            return spec.defaultValue;
    }
    return {};
}

Expected<bool> flagValue(const plugin::OptionValues& values, std::string_view key) {
    std::string_view value = optionValue(values, key);
    if (value != "true" && value != "false")
        return Error::usage("DWARF loader option " + std::string(key) + ": '" + std::string(value) +
                            "' is not true or false");
    return value == "true";
}

Expected<DwarfConversionOptions> conversionOptions(const plugin::Options& in,
                                                   const plugin::OptionValues& own) {
    DwarfConversionOptions out;
    auto features = FeatureSet::parse(in.features);
    if (!features)
        return std::move(features).error();
    out.features = *features;
    auto languages = parseLanguages(optionValue(own, kLanguageExcludeOption));
    if (!languages)
        return std::move(languages).error();
    out.excludedLanguages = std::move(*languages);
    auto dedup = flagValue(own, kDedupOption);
    if (!dedup)
        return std::move(dedup).error();
    out.dedup = *dedup;
    auto nested = flagValue(own, kNestedArraysOption);
    if (!nested)
        return std::move(nested).error();
    out.arrays = *nested ? ArrayShape::Nested : ArrayShape::Flattened;
    auto declarationTags = flagValue(own, kDeclarationTagsOption);
    if (!declarationTags)
        return std::move(declarationTags).error();
    out.declarationTags = *declarationTags;
    auto typesOnly = flagValue(own, kTypesOnlyOption);
    if (!typesOnly)
        return std::move(typesOnly).error();
    out.typesOnly = *typesOnly;
    for (std::string_view name : commaSeparated(optionValue(own, kReadUntilOption)))
        out.readUntil.emplace_back(name);
    auto perAddress = flagValue(own, kFuncPerAddressOption);
    if (!perAddress)
        return std::move(perAddress).error();
    if (*perAddress)
        out.functions = FunctionGranularity::PerAddress;
    out.addressBase = optionValue(own, kFuncAddrBaseOption);
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
    auto options = conversionOptions(session.options, request.options);
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
            reader.emplace(
                openReader(mapped, std::string(optionValue(request.options, kDwarfAltOption))));
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
    if (std::ostream* out = session.report(kSkippedFunctionsReport))
        writeSkipReport(report, *out);
    if (std::ostream* out = session.report(kSkippedFunctionLines))
        writeSkipLines(report, *out);
    return graph;
}

} // namespace btforge::dwarf
