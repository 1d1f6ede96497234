// Loader "dwarf": the DWARF of ELF files (executables, shared objects, relocatable objects
// such as kernel modules), read with elfutils libdw and converted by core.
#include "LibdwUnitReader.h"

#include "btforge/dwarf/DwarfConversion.h"
#include "btforge/dwarf/SkipReport.h"
#include "btforge/elf/ElfSections.h"
#include "btforge/plugin/Plugin.h"

namespace btforge {
namespace {

class DwarfLoader final : public plugin::Loader {
public:
    unsigned probe(const plugin::InputProbe& input) const override {
        if (!elf::looksLikeElf(std::as_bytes(input.head)))
            return 0;
        auto file = MappedFile::open(input.path);
        if (!file)
            return 0;
        // Above the btf loader's bid for ELF: DWARF is the richer source when both are there.
        auto image = file->bytes();
        return elf::hasSection(image, ".debug_info") || elf::hasSection(image, ".zdebug_info") ? 50
                                                                                               : 0;
    }

    Expected<ir::TypeGraph> load(const plugin::LoadRequest& request,
                                 plugin::Session& session) override {
        auto options = conversionOptions(session.options);
        if (!options)
            return std::move(options).error();
        auto file = MappedFile::open(request.path);
        if (!file)
            return std::move(file).error();
        auto symbols = elf::ElfSymbolTable::read(std::make_shared<MappedFile>(std::move(*file)));
        if (!symbols)
            return std::move(symbols).error();
        auto reader = dwarf::LibdwUnitReader::open(request.path);
        if (!reader)
            return std::move(reader).error();

        dwarf::DwarfConversionReport report;
        auto graph =
            dwarf::convertDwarf(**reader, **symbols, request.base, session, *options, report);
        if (!graph)
            return graph;
        dwarf::warnAbout(report, request.path, session.diagnostics);
        if (!session.options.reportSkippedPath.empty()) {
            if (auto written = dwarf::writeSkipReport(report, session.options.reportSkippedPath);
                !written)
                return std::move(written).error();
        }
        return graph;
    }

private:
    static Expected<dwarf::DwarfConversionOptions> conversionOptions(const plugin::Options& in) {
        dwarf::DwarfConversionOptions out;
        auto features = FeatureSet::parse(in.features);
        if (!features)
            return std::move(features).error();
        out.features = *features;
        auto languages = dwarf::parseLanguages(in.languageExclude);
        if (!languages)
            return std::move(languages).error();
        out.excludedLanguages = std::move(*languages);
        out.dedup = in.dedup;
        if (in.funcAddr != plugin::FuncAddrMode::Standard)
            out.functions = dwarf::FunctionGranularity::PerAddress;
        out.addressBase = in.funcAddrBase;
        return out;
    }
};

} // namespace
} // namespace btforge

BTFORGE_LOADER_PLUGIN("dwarf", "DWARF of ELF files, read with elfutils libdw",
                      btforge::DwarfLoader);
