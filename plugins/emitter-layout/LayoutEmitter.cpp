// Emitter "layout": struct and union layouts as upstream pahole prints them (docs/layout.md).
#include "LayoutOptions.h"
#include "LayoutPrinter.h"

#include "btforge/dwarf/LoaderOptions.h"
#include "btforge/dwarf/UnitNameLookup.h"
#include "btforge/plugin/Plugin.h"

#include <algorithm>
#include <ostream>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace btforge {
namespace {

using layout::LayoutOptions;

bool isComposite(ir::Kind kind) {
    return kind == ir::Kind::Struct || kind == ir::Kind::Union;
}

// pahole shows a struct once when an earlier one of its name has the same size and members at
// the same offsets, of the same bitfield sizes and, where both are named, names: the member
// types are not compared (the same header in units that see different member types, or two
// versions of a union whose anonymous struct member differs: amdgpu's MESAPI_SET_HW_RESOURCES).
// It walks the later one's DWARF children, not only its members: a type clang declares after a
// member stands where the next member would, and never matches one.
bool sameLayout(layout::LayoutAnalyzer& analyzer, ir::TypeId earlier, ir::TypeId later,
                const ir::TypeGraph& graph) {
    const layout::ClassLayout& a = analyzer.of(earlier);
    const layout::ClassLayout& b = analyzer.of(later);
    if (a.size != b.size || a.members.size() != b.members.size())
        return false;
    for (uint32_t i = 0; i < a.members.size(); ++i) {
        if (i > 0 && analyzer.declaresNestedType(later, i - 1))
            return false;
        const ir::Member& x = a.members[i].member;
        const ir::Member& y = b.members[i].member;
        const std::string_view nameX = graph.str(x.name), nameY = graph.str(y.name);
        if ((!nameX.empty() && !nameY.empty() && nameX != nameY) || x.bitOffset != y.bitOffset ||
            x.bitfieldSize != y.bitfieldSize)
            return false;
    }
    return true;
}

class LayoutEmitter final : public plugin::Emitter {
public:
    Expected<void> emit(const ir::TypeGraph& graph, const plugin::EmitRequest& request,
                        std::ostream& out, plugin::Session& session) override {
        auto options = layout::parseLayoutOptions(request.options);
        if (!options)
            return std::move(options).error();
        // pahole infers alignment for BTF and reads it from DWARF: so does this emitter, by
        // the loader's kind.
        const bool declared = request.loader && !request.loader->has(plugin::Capability::ReadsBtf);
        layout::LayoutPrinter printer(graph, *options, declared);
        Listing listing{graph, printer, *options, out, {}};
        if (!options->classes.empty())
            return printClasses(listing, session);
        printAll(listing);
        return {};
    }

private:
    // Where the types go: each is written as a whole once printed (in one reused buffer).
    struct Listing {
        const ir::TypeGraph& graph;
        layout::LayoutPrinter& printer;
        const LayoutOptions& options;
        std::ostream& out;
        std::string text;
    };

    // The types -C names, found as pahole finds them, unit by unit (dwarf::UnitNameLookup; BTF
    // is one unit, a graph of units' own types marks where each begins, dwarf::kUnitTag).
    // Without --skip_missing, what precedes a name not found is printed, then the error. With
    // it, every name comes from the first unit that has it, printed in the order of their units
    // (of one unit, in the order given); one found nowhere is a warning.
    static Expected<void> printClasses(Listing& listing, plugin::Session& session) {
        const ir::TypeGraph& graph = listing.graph;
        std::vector<ir::TypeId> unitStarts{1};
        for (ir::TypeId id = 1; id < graph.endId(); ++id) {
            if (graph.kind(id) != ir::Kind::DeclTag)
                continue;
            auto tag = graph.getAs<ir::DeclTagType>(id);
            if (!tag.kindFlag && graph.str(tag.name) == dwarf::kUnitTag && tag.type > 1)
                unitStarts.push_back(tag.type);
        }
        std::sort(unitStarts.begin(), unitStarts.end());
        const std::vector<std::string>& names = listing.options.classes;
        if (!listing.options.skipMissing) {
            dwarf::UnitNameLookup lookup(names);
            for (size_t u = 0; u < unitStarts.size() && !lookup.complete(); ++u)
                lookup.addUnit(graph, unitStarts[u],
                               u + 1 < unitStarts.size() ? unitStarts[u + 1] : graph.endId());
            for (ir::TypeId id : lookup.found())
                printOne(listing, id, "\n");
            if (!lookup.complete())
                return Error::badInput("type '" + names[lookup.found().size()] + "' not found");
            return {};
        }
        std::unordered_map<std::string_view, ir::TypeId> first; // of each name, void: none
        for (const std::string& name : names)
            first.emplace(name, ir::kVoidType);
        for (ir::TypeId id = 1; id < graph.endId(); ++id) {
            if (!dwarf::UnitNameLookup::findsKind(graph.kind(id)))
                continue;
            auto named = first.find(graph.name(id));
            if (named != first.end() && named->second == ir::kVoidType)
                named->second = id;
        }
        std::vector<std::tuple<ptrdiff_t, size_t, ir::TypeId>> found; // unit, place in -C, type
        for (size_t i = 0; i < names.size(); ++i) {
            const ir::TypeId id = first.at(names[i]);
            if (id == ir::kVoidType) {
                session.diagnostics.warning("type '" + names[i] + "' not found");
                continue;
            }
            found.emplace_back(std::upper_bound(unitStarts.begin(), unitStarts.end(), id) -
                                   unitStarts.begin(),
                               i, id);
        }
        std::sort(found.begin(), found.end());
        for (const auto& [unit, place, id] : found)
            printOne(listing, id, "\n");
        return {};
    }

    // One type (with -s, its line), then `after`.
    static void printOne(Listing& listing, ir::TypeId id, std::string_view after = {}) {
        std::string& text = listing.text;
        text.clear();
        if (listing.options.sizes) {
            const auto& layout = listing.printer.analyzer().of(id);
            text += listing.graph.name(id);
            text += '\t' + std::to_string(layout.size) + '\t' + std::to_string(layout.holes) + '\n';
        } else {
            listing.printer.printDefinition(id, text);
            text += ";\n";
        }
        text += after;
        listing.out.write(text.data(), static_cast<std::streamsize>(text.size()));
    }

    static void printAll(Listing& listing) {
        const ir::TypeGraph& graph = listing.graph;
        const LayoutOptions& options = listing.options;
        layout::LayoutPrinter& printer = listing.printer;
        std::unordered_map<std::string_view, std::vector<ir::TypeId>> shown;
        for (ir::TypeId id = 1; id < graph.endId(); ++id) {
            ir::Kind kind = graph.kind(id);
            // pahole lists named types, not those declared inside a function.
            if (!isComposite(kind) || graph.name(id).empty() ||
                printer.analyzer().declaredInFunction(id))
                continue;
            if (options.structsOnly && kind != ir::Kind::Struct)
                continue;
            const auto& layout = printer.analyzer().of(id);
            if (options.minHoles && layout.holes < *options.minHoles)
                continue;
            auto& same = shown[graph.name(id)];
            bool repeated = false;
            for (ir::TypeId earlier : same)
                repeated = repeated || sameLayout(printer.analyzer(), earlier, id, graph);
            if (repeated)
                continue;
            same.push_back(id);
            printOne(listing, id);
        }
    }
};

} // namespace
} // namespace btforge

BTFORGE_EMITTER_PLUGIN("layout", "struct and union layouts, as pahole prints them",
                       btforge::LayoutEmitter,
                       .capabilities = btforge::plugin::Capability::ShowsDeclarations |
                                       btforge::plugin::Capability::ShowsTypesOnly,
                       .options = btforge::layout::kLayoutOptionSpecs);
