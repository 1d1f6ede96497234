// The amendments a conversion applies to whatever its loader made, BTF included: features that
// are off, global_var from the ELF symbol table, --keep and --drop.
#include "Amending.h"

#include "amend/FeatureDowngrade.h"
#include "amend/GlobalVariables.h"
#include "amend/TypeSelection.h"

#include "btforge/Features.h"
#include "btforge/elf/ElfSections.h"
#include "btforge/elf/ElfSymbolTable.h"

namespace btforge::host {
namespace {

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
} // namespace

Expected<ir::TypeGraph> amendGraph(ir::TypeGraph graph, const ConversionRequest& request,
                                   const std::shared_ptr<MappedFile>& input,
                                   const plugin::PluginDescriptor& loader,
                                   plugin::Session& session) {
    auto features = FeatureSet::parse(session.options.features);
    if (!features)
        return std::move(features).error();
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

} // namespace btforge::host
