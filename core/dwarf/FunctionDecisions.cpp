#include "dwarf/FunctionDecisions.h"

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
    // Built only for a difference: most definitions agree.
    auto where = [&] { return " (DIE " + hex(a.die) + " vs DIE " + hex(b.die) + ")"; };
    if (unqualified(graph, a.returnType) != unqualified(graph, b.returnType))
        return "return type differs" + where();
    if (a.paramCount != b.paramCount)
        return std::to_string(a.paramCount) + " vs " + std::to_string(b.paramCount) +
               " parameters" + where();
    if ((a.facts & kFunctionVarargs) != (b.facts & kFunctionVarargs))
        return "varargs in one only" + where();
    // Types are final ids, so equal ids mean structurally equal types. Parameter names may
    // differ between definitions without changing what a caller passes.
    auto pa = obs.paramsOf(a);
    auto pb = obs.paramsOf(b);
    for (size_t i = 0; i < pa.size(); ++i) {
        if (unqualified(graph, pa[i].type) != unqualified(graph, pb[i].type))
            return "type of parameter " + std::to_string(i) + " '" + std::string(pa[i].name) +
                   "' differs" + where();
    }
    return {};
}

bool isSignatureChangingClone(const elf::ElfFunction& symbol) {
    std::string_view suffix = symbol.symbolName.substr(symbol.name.size());
    return suffix.find(".isra") != std::string_view::npos ||
           suffix.find(".constprop") != std::string_view::npos;
}

// Where the symbols of one name are, in section terms (with the first symbol's value for each
// place), and which of them are clones whose signature the compiler may have changed.
struct SymbolPlaces {
    std::vector<std::pair<SectionOffset, uint64_t>> all; // sorted, one per place
    std::vector<SectionOffset> clones;
    std::vector<SectionOffset> plain;                                 // the name itself is there
    std::vector<std::pair<SectionOffset, std::string_view>> suffixed; // foo.isra.0 is there
    std::vector<std::pair<SectionOffset, uint64_t>> extents;          // every symbol's, its size

    void collect(std::span<const elf::ElfFunction> symbols, const elf::ElfSymbolTable& elf) {
        all.clear();
        clones.clear();
        plain.clear();
        suffixed.clear();
        extents.clear();
        for (const elf::ElfFunction& s : symbols) {
            SectionOffset place{s.section, elf.offsetInSection(s.address, s.section)};
            all.emplace_back(place, s.address);
            extents.emplace_back(place, s.size);
            if (isSignatureChangingClone(s))
                clones.push_back(place);
            if (s.symbolName == s.name)
                plain.push_back(place);
            else
                suffixed.emplace_back(place, s.symbolName);
        }
        std::sort(all.begin(), all.end());
        all.erase(std::unique(all.begin(), all.end(),
                              [](const auto& a, const auto& b) { return a.first == b.first; }),
                  all.end());
        std::sort(clones.begin(), clones.end());
        clones.erase(std::unique(clones.begin(), clones.end()), clones.end());
    }
    bool has(const std::optional<SectionOffset>& p) const {
        return p &&
               std::binary_search(all.begin(), all.end(), std::pair(*p, uint64_t{0}),
                                  [](const auto& a, const auto& b) { return a.first < b.first; });
    }
    // The place of the symbol whose code starts at `p`: `p` when a symbol starts there, else
    // one of this name whose code holds `p`. arm64 and riscv64 kernels' functions begin with
    // the NOPs ftrace patches, inside the symbol and before the DWARF's entry (DW_AT_low_pc).
    std::optional<SectionOffset> symbolPlaceOf(const std::optional<SectionOffset>& p) const {
        if (!p || has(p))
            return p;
        for (const auto& [place, size] : extents) {
            if (place.section == p->section && place.offset < p->offset &&
                p->offset - place.offset < size)
                return place;
        }
        return p;
    }
    bool isClone(const std::optional<SectionOffset>& p) const {
        return p && std::binary_search(clones.begin(), clones.end(), *p);
    }
    // The name the code at `p` really has: its suffixed symbol's when no symbol of the plain
    // name is there too (the first in the symbol table), else empty.
    std::string_view symbolNameAt(const std::optional<SectionOffset>& p) const {
        if (!p || std::find(plain.begin(), plain.end(), *p) != plain.end())
            return {};
        for (const auto& [place, name] : suffixed) {
            if (place == *p)
                return name;
        }
        return {};
    }
};

// One decision over the instances a FUNC would describe: `members` are positions in `group`.
class InstanceDecider {
public:
    InstanceDecider(const ir::TypeGraph& graph, const UnitObservations& obs,
                    const SymbolPlaces& places, const FeatureSet& features)
        : graph_(graph), obs_(obs), places_(places), features_(features) {}

    FunctionDecision decide(std::span<const uint32_t> group,
                            std::span<const std::optional<SectionOffset>> where,
                            std::span<const size_t> members, bool ambiguous) const {
        const auto& functions = obs_.functions;
        auto resignatured = [&](size_t k) {
            return (functions[group[k]].facts & kFunctionNoCall) || places_.isClone(where[k]);
        };
        auto signatureChanged = [&](size_t k) {
            return (functions[group[k]].facts & kFunctionOptimizedParams) && resignatured(k);
        };
        // With true_signature, code the compiler re-signatured is described as it is: the
        // parameters that still arrive, when the DWARF shows each where the convention puts it.
        auto trueSignature = [&](size_t k) {
            const uint16_t facts = functions[group[k]].facts;
            return features_.has(Feature::TrueSignature) && resignatured(k) &&
                   (facts & (kFunctionOptimizedParams | kFunctionReorderedParams)) &&
                   (facts & kFunctionTrueSignatureKnown);
        };
        // The prototype comes from an instance whose code is at one of the symbols, preferring
        // one the compiler did not re-signature; abstract instances only when nothing better.
        size_t canonical = members.size();
        for (size_t m = 0; m < members.size() && canonical == members.size(); ++m) {
            if (places_.has(where[members[m]]) && !signatureChanged(members[m]))
                canonical = m;
        }
        for (size_t m = 0; m < members.size() && canonical == members.size(); ++m) {
            if (places_.has(where[members[m]]))
                canonical = m;
        }
        if (canonical == members.size())
            canonical = 0;
        const size_t chosenAt = members[canonical];
        const FunctionObservation& chosen = functions[group[chosenAt]];

        uint16_t facts = 0;
        std::string difference;
        for (size_t k : members) {
            facts |= functions[group[k]].facts;
            if (difference.empty())
                difference = prototypeDifference(graph_, obs_, chosen, functions[group[k]]);
        }

        FunctionDecision d;
        d.name = chosen.name;
        d.instances = members.size();
        d.addresses = places_.all.size();
        // pahole's precedence, so skip lists compare: the most fundamental reason wins.
        if (ambiguous)
            d.skipReason = "ambiguous address";
        else if (trueSignature(chosenAt))
            d.trueSignature = true;
        else if (signatureChanged(chosenAt)) {
            d.skipReason = "optimized parameters";
            d.detail = missingParameters(chosen, places_.symbolNameAt(where[chosenAt]));
        } else if (facts & kFunctionReorderedParams)
            d.skipReason = "reordered parameters";
        else if (!difference.empty() && features_.has(Feature::ConsistentFunc)) {
            d.skipReason = "inconsistent prototype";
            d.detail = std::move(difference);
        } else if (facts & kFunctionUnexpectedRegister) {
            d.skipReason = "unexpected register usage for parameter";
            for (size_t k : members) {
                if (d.detail.empty())
                    d.detail = unexpectedRegisterDetail(functions[group[k]]);
            }
        }
        if (d.skipReason.empty()) {
            d.chosen = &chosen;
            // The symbol's own name, so the FUNC names what the symbol table (kallsyms) has.
            std::string_view symbol = places_.symbolNameAt(where[chosenAt]);
            if (features_.has(Feature::TrueSignature) && !symbol.empty())
                d.name = symbol;
        }
        return d;
    }

private:
    // Which parameters re-signatured code does without, and what says it was re-signatured.
    std::string missingParameters(const FunctionObservation& f, std::string_view symbol) const {
        std::string missing;
        size_t count = 0;
        auto params = obs_.paramsOf(f);
        for (size_t i = 0; i < params.size(); ++i) {
            if (params[i].facts & kParamOptimizedOut)
                missing += (count++ ? ", " : "") + std::to_string(i) + " '" +
                           std::string(params[i].name) + "'";
        }
        return (count > 1 ? "parameters " : "parameter ") + missing +
               " in no register at entry of " +
               (symbol.empty() ? "code marked DW_CC_nocall" : std::string(symbol)) + " (DIE " +
               hex(f.die) + ")";
    }

    // The parameter that moves the ones after it, or else a floating-point one in a register
    // BPF does not read arguments from, if any.
    std::string unexpectedRegisterDetail(const FunctionObservation& f) const {
        auto params = obs_.paramsOf(f);
        auto named = [&](size_t i) {
            return "parameter " + std::to_string(i) + " '" + std::string(params[i].name) + "' is ";
        };
        for (size_t i = 0; i < params.size(); ++i) {
            if (params[i].facts & kParamShiftsLaterOnes)
                return named(i) +
                       ((params[i].facts & kParamFloatingPoint)
                            ? "a floating-point value, in no general-purpose register"
                            : "an aggregate passed in memory") +
                       ": BPF's model, a register for each argument in turn, reads the ones "
                       "after it from other registers than they arrive in (DIE " +
                       hex(f.die) + ")";
        }
        for (size_t i = 0; i < params.size(); ++i) {
            constexpr uint8_t kFloatElsewhere = kParamFloatingPoint | kParamUnexpectedRegister;
            if ((params[i].facts & kFloatElsewhere) == kFloatElsewhere)
                return named(i) +
                       "a floating-point value, which arrives in a register of its own: BPF's "
                       "model reads it from a general-purpose register (DIE " +
                       hex(f.die) + ")";
        }
        return {};
    }

    const ir::TypeGraph& graph_;
    const UnitObservations& obs_;
    const SymbolPlaces& places_;
    const FeatureSet& features_;
};

// Positions of `functions` ordered by (name, unit, DIE). Sorted as keys side by side, the first
// eight bytes of each name as a number: most comparisons then read no name.
std::vector<uint32_t> byNameUnitDie(const std::vector<FunctionObservation>& functions) {
    struct Key {
        uint64_t prefix; // the name's first bytes, big-endian, zero-padded: orders as the text
        const FunctionObservation* f;
        uint32_t index;
    };
    std::vector<Key> keys;
    keys.reserve(functions.size());
    for (uint32_t i = 0; i < functions.size(); ++i) {
        uint64_t prefix = 0;
        const std::string_view name = functions[i].name;
        for (size_t b = 0; b < 8; ++b)
            prefix = prefix << 8 | (b < name.size() ? static_cast<uint8_t>(name[b]) : 0);
        keys.push_back({prefix, &functions[i], i});
    }
    std::sort(keys.begin(), keys.end(), [](const Key& a, const Key& b) {
        if (a.prefix != b.prefix)
            return a.prefix < b.prefix;
        return std::tie(a.f->name, a.f->unit, a.f->die) < std::tie(b.f->name, b.f->unit, b.f->die);
    });
    std::vector<uint32_t> order;
    order.reserve(keys.size());
    for (const Key& k : keys)
        order.push_back(k.index);
    return order;
}

} // namespace

std::vector<FunctionDecision> decideFunctions(const ir::TypeGraph& graph,
                                              const UnitObservations& obs,
                                              const elf::ElfSymbolTable& elf,
                                              const UnitReader& reader, const FeatureSet& features,
                                              FunctionGranularity granularity) {
    const auto& functions = obs.functions;
    const std::vector<uint32_t> order = byNameUnitDie(functions);

    std::vector<FunctionDecision> decisions;
    SymbolPlaces places;
    InstanceDecider decider(graph, obs, places, features);
    std::vector<std::optional<SectionOffset>> where;
    std::vector<size_t> members;
    std::vector<uint32_t> units;
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
            where.push_back(f.hasLowPc ? places.symbolPlaceOf(reader.locate(f.lowPc))
                                       : std::nullopt);
        }
        if (granularity == FunctionGranularity::PerName) {
            members.resize(group.size());
            std::iota(members.begin(), members.end(), size_t{0});
            FunctionDecision d = decider.decide(group, where, members, places.all.size() > 1);
            if (places.all.size() == 1)
                d.address = places.all.front().second;
            decisions.push_back(std::move(d));
            continue;
        }
        // Per address: the instances whose code is there, with the definitions of their units
        // that have no code of their own (the abstract instance a concrete one refers to).
        for (const auto& [place, address] : places.all) {
            units.clear();
            for (size_t k = 0; k < group.size(); ++k) {
                if (where[k] == place)
                    units.push_back(functions[group[k]].unit);
            }
            members.clear();
            for (size_t k = 0; k < group.size(); ++k) {
                bool inUnit =
                    std::find(units.begin(), units.end(), functions[group[k]].unit) != units.end();
                if (where[k] == place || (!where[k] && inUnit))
                    members.push_back(k);
            }
            FunctionDecision d;
            if (units.empty()) {
                d.name = name;
                d.addresses = places.all.size();
                d.skipReason = "no DWARF at address";
            } else {
                d = decider.decide(group, where, members, false);
            }
            d.address = address;
            decisions.push_back(std::move(d));
        }
    }
    return decisions;
}

} // namespace btforge::dwarf
