#include "btforge/dwarf/FunctionMerger.h"

#include "btforge/support/Hex.h"

#include <algorithm>
#include <numeric>
#include <sstream>
#include <tuple>

namespace btforge::dwarf {
namespace {

// A qualifier on the parameter itself (char *const p) is not part of the function's type: what
// a caller passes is the same.
ir::TypeId unqualified(const ir::TypeGraph& graph, ir::TypeId id) {
    while (graph.kind(id) == ir::Kind::Const || graph.kind(id) == ir::Kind::Volatile ||
           graph.kind(id) == ir::Kind::Restrict)
        id = graph.target(id);
    return id;
}

// How two definitions' prototypes differ, or empty when they agree.
std::string prototypeDifference(const ir::TypeGraph& graph, const UnitObservations& obs,
                                const FunctionObservation& a, const FunctionObservation& b) {
    std::string where = " (DIE " + hex(a.die) + " vs DIE " + hex(b.die) + ")";
    if (unqualified(graph, a.returnType) != unqualified(graph, b.returnType))
        return "return type differs" + where;
    if (a.paramCount != b.paramCount)
        return std::to_string(a.paramCount) + " vs " + std::to_string(b.paramCount) +
               " parameters" + where;
    if ((a.facts & kFunctionVarargs) != (b.facts & kFunctionVarargs))
        return "varargs in one only" + where;
    // Types are final ids, so equal ids mean structurally equal types. Parameter names may
    // differ between definitions without changing what a caller passes.
    auto pa = obs.paramsOf(a);
    auto pb = obs.paramsOf(b);
    for (size_t i = 0; i < pa.size(); ++i) {
        if (unqualified(graph, pa[i].type) != unqualified(graph, pb[i].type))
            return "type of parameter " + std::to_string(i) + " '" + std::string(pa[i].name) +
                   "' differs" + where;
    }
    return {};
}

bool isSignatureChangingClone(const elf::ElfFunction& symbol) {
    std::string_view suffix = symbol.symbolName.substr(symbol.name.size());
    return suffix.find(".isra") != std::string_view::npos ||
           suffix.find(".constprop") != std::string_view::npos;
}

// Where the symbols of one name are, in section terms, and which of them are clones whose
// signature the compiler may have changed.
struct SymbolPlaces {
    std::vector<SectionOffset> all;
    std::vector<SectionOffset> clones;

    void collect(std::span<const elf::ElfFunction> symbols, const elf::ElfSymbolTable& elf) {
        all.clear();
        clones.clear();
        for (const elf::ElfFunction& s : symbols) {
            SectionOffset place{s.section, elf.offsetInSection(s.address, s.section)};
            all.push_back(place);
            if (isSignatureChangingClone(s))
                clones.push_back(place);
        }
        for (auto* v : {&all, &clones}) {
            std::sort(v->begin(), v->end());
            v->erase(std::unique(v->begin(), v->end()), v->end());
        }
    }
    static bool contains(const std::vector<SectionOffset>& v,
                         const std::optional<SectionOffset>& p) {
        return p && std::binary_search(v.begin(), v.end(), *p);
    }
};

} // namespace

std::vector<FunctionDecision> decideFunctions(const ir::TypeGraph& graph,
                                              const UnitObservations& obs,
                                              const elf::ElfSymbolTable& elf,
                                              const UnitReader& reader,
                                              const FeatureSet& features) {
    const auto& functions = obs.functions;
    std::vector<uint32_t> order(functions.size());
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        const auto& x = functions[a];
        const auto& y = functions[b];
        return std::tie(x.name, x.unit, x.die) < std::tie(y.name, y.unit, y.die);
    });

    std::vector<FunctionDecision> decisions;
    SymbolPlaces places;
    std::vector<std::optional<SectionOffset>> where;
    for (size_t begin = 0; begin < order.size();) {
        std::string_view name = functions[order[begin]].name;
        size_t end = begin;
        while (end < order.size() && functions[order[end]].name == name)
            ++end;
        auto group = std::span(order).subspan(begin, end - begin);
        begin = end;

        // Only a name the symbol table has can be attached to.
        auto symbols = elf.functionsNamed(name);
        if (symbols.empty())
            continue;
        places.collect(symbols, elf);

        where.clear();
        for (uint32_t i : group) {
            const FunctionObservation& f = functions[i];
            where.push_back(f.hasLowPc ? reader.locate(f.lowPc) : std::nullopt);
        }
        // The prototype comes from an instance whose code is at one of the symbols, preferring
        // one the compiler did not re-signature; abstract instances only when nothing better.
        auto signatureChanged = [&](size_t k) {
            const FunctionObservation& f = functions[group[k]];
            return (f.facts & kFunctionOptimizedParams) &&
                   ((f.facts & kFunctionNoCall) || SymbolPlaces::contains(places.clones, where[k]));
        };
        size_t canonical = group.size();
        for (size_t k = 0; k < group.size() && canonical == group.size(); ++k) {
            if (SymbolPlaces::contains(places.all, where[k]) && !signatureChanged(k))
                canonical = k;
        }
        for (size_t k = 0; k < group.size() && canonical == group.size(); ++k) {
            if (SymbolPlaces::contains(places.all, where[k]))
                canonical = k;
        }
        if (canonical == group.size())
            canonical = 0;

        const FunctionObservation& chosen = functions[group[canonical]];
        uint16_t facts = 0;
        std::string difference;
        for (uint32_t i : group) {
            facts |= functions[i].facts;
            if (difference.empty())
                difference = prototypeDifference(graph, obs, chosen, functions[i]);
        }
        bool consistent = difference.empty();

        FunctionDecision d;
        d.name = name;
        d.instances = group.size();
        d.addresses = places.all.size();
        // pahole's precedence, so skip lists compare: the most fundamental reason wins.
        if (places.all.size() > 1)
            d.skipReason = "ambiguous address";
        else if (signatureChanged(canonical) && !features.has(Feature::TrueSignature))
            d.skipReason = "optimized parameters";
        else if (facts & kFunctionReorderedParams)
            d.skipReason = "reordered parameters";
        else if (!consistent && features.has(Feature::ConsistentFunc)) {
            d.skipReason = "inconsistent prototype";
            d.detail = std::move(difference);
        } else if (facts & kFunctionUnexpectedRegister)
            d.skipReason = "unexpected register usage for parameter";
        else
            d.chosen = &chosen;
        decisions.push_back(d);
    }
    return decisions;
}

} // namespace btforge::dwarf
