#include "FunctionEmission.h"

#include "dwarf/FunctionDecisions.h"
#include "elf/KfuncSets.h"

#include "btforge/btf/FuncAddrExtension.h"
#include "btforge/ir/FunctionAppender.h"

#include <algorithm>
#include <optional>
#include <span>
#include <string>

namespace btforge::dwarf {
namespace {

using ir::TypeId;

// Adds the FUNC_PROTOs, FUNCs and their DECL_TAGs, reusing an identical FUNC_PROTO already in
// the graph or its base (function pointers of the same signature, or another function's), and
// over a base the base's own FUNC or DECL_TAG where it has an identical one.
class FunctionEmitter {
public:
    explicit FunctionEmitter(ir::TypeGraph& graph) : graph_(graph), appender_(graph) {}

    // `arrivingOnly`: the code's true signature, without the parameters that do not arrive.
    // Its parameters' tags are left out: they are numbered by the declared positions.
    TypeId emit(std::string_view name, const FunctionObservation& f, const UnitObservations& obs,
                bool withTags, bool arrivingOnly, std::optional<uint64_t> address) {
        params_.clear();
        for (const ParamObservation& p : obs.paramsOf(f)) {
            if (!arrivingOnly || !(p.facts & kParamNotArriving))
                params_.push_back({graph_.intern(p.name), p.type});
        }
        if (f.facts & kFunctionVarargs)
            params_.push_back({ir::kNoName, ir::kVoidType});
        // Static linkage for all, as pahole writes kernel BTF: what matters to a tracer is the
        // name and the prototype, and tools compare against pahole's output.
        TypeId func = appender_.addFunction(name, appender_.proto(f.returnType, params_),
                                            ir::FuncLinkage::Static, address);
        if (withTags) {
            for (const TagObservation& t : obs.tagsOf(f)) {
                if (!arrivingOnly || t.componentIndex < 0)
                    appender_.addTag(t.value, func, t.componentIndex);
            }
        }
        return func;
    }
    void tag(std::string_view value, TypeId func) { appender_.addTag(value, func, -1); }

private:
    ir::TypeGraph& graph_;
    ir::FunctionAppender appender_;
    std::vector<ir::Param> params_;
};

// What the kernel's BPF verifier looks for on a kfunc's FUNC: 'bpf_kfunc', and 'bpf_fastcall'
// for those that keep the caller's registers (KF_FASTCALL).
void tagKfunc(FunctionEmitter& emitter, TypeId func, std::string_view name,
              std::span<const elf::Kfunc> kfuncs) {
    auto it = std::lower_bound(kfuncs.begin(), kfuncs.end(), name,
                               [](const elf::Kfunc& k, std::string_view n) { return k.name < n; });
    if (it == kfuncs.end() || it->name != name)
        return;
    emitter.tag("bpf_kfunc", func);
    if (it->flags & elf::kKfuncFastcall)
        emitter.tag("bpf_fastcall", func);
}

// Decides and emits the functions: per name for standard BTF; per address for the extension,
// with its markers (btf/FuncAddrExtension.h) and addresses relative to the base symbol.
class FunctionPlacer {
public:
    FunctionPlacer(ir::TypeGraph& output, const UnitObservations& all,
                   const UnitObservations& written, const DwarfConversionOptions& options,
                   std::span<const elf::Kfunc> kfuncs, DwarfConversionReport& report)
        : output_(output), all_(all), written_(written), options_(options), kfuncs_(kfuncs),
          report_(report), emitter_(output) {}

    void standard(std::span<const FunctionDecision> decisions) {
        for (const FunctionDecision& d : decisions) {
            if (d.chosen)
                emit(d, std::nullopt);
            else
                skip(d, std::nullopt);
        }
    }

    // `standard` and `perAddress` are both sorted by name, one and one or more per name. A name
    // whose only symbol no DWARF instance describes keeps standard BTF's FUNC, without address.
    void perAddress(std::span<const FunctionDecision> standard,
                    std::span<const FunctionDecision> perAddress, std::optional<uint64_t> base,
                    const std::string& baseMarker) {
        auto s = standard.begin();
        for (size_t begin = 0; begin < perAddress.size();) {
            std::string_view name = perAddress[begin].name;
            size_t end = begin;
            while (end < perAddress.size() && perAddress[end].name == name)
                ++end;
            while (s->name != name)
                ++s;
            TypeId first = ir::kVoidType;
            for (const FunctionDecision& d : perAddress.subspan(begin, end - begin)) {
                if (!d.chosen) {
                    skip(d, d.address);
                    continue;
                }
                TypeId func = emit(d, *d.address - base.value_or(0)); // modulo 2^64 below base
                if (!baseMarked_) {
                    tag(baseMarker, func);
                    baseMarked_ = true;
                }
                first = first == ir::kVoidType ? func : first;
            }
            if (first == ir::kVoidType && s->chosen)
                emit(*s, std::nullopt);
            else if (first != ir::kVoidType && !s->chosen)
                tag(std::string(btf::kFuncAddrNotInStandardPrefix) + std::string(s->skipReason),
                    first);
            begin = end;
        }
    }

private:
    TypeId emit(const FunctionDecision& d, std::optional<uint64_t> address) {
        const FunctionObservation& f = written_.functions[d.chosen - all_.functions.data()];
        ++report_.functions;
        TypeId func = emitter_.emit(d.name, f, written_, options_.features.has(Feature::DeclTag),
                                    d.trueSignature, address);
        tagKfunc(emitter_, func, d.name, kfuncs_);
        return func;
    }
    void skip(const FunctionDecision& d, std::optional<uint64_t> address) {
        report_.skippedFunctions.push_back(
            {std::string(d.name), std::string(d.skipReason), d.detail, address});
    }
    void tag(const std::string& value, TypeId func) {
        output_.add(ir::DeclTagType{output_.intern(value), func, -1});
    }

    ir::TypeGraph& output_;
    const UnitObservations& all_;
    const UnitObservations& written_;
    const DwarfConversionOptions& options_;
    std::span<const elf::Kfunc> kfuncs_;
    DwarfConversionReport& report_;
    FunctionEmitter emitter_;
    bool baseMarked_ = false;
};

} // namespace

Expected<void> emitFunctions(ir::TypeGraph& output, const ir::TypeGraph& graph,
                             const UnitObservations& all, const UnitObservations& written,
                             const elf::ElfSymbolTable& elf, const UnitReader& reader,
                             const DwarfConversionOptions& options, DwarfConversionReport& report) {
    std::vector<elf::Kfunc> kfuncs;
    if (options.features.has(Feature::DeclTag) && options.features.has(Feature::DeclTagKfuncs)) {
        auto found = elf::findKfuncs(elf);
        if (!found)
            return std::move(found).error();
        kfuncs = std::move(*found);
    }
    FunctionPlacer placer(output, all, written, options, kfuncs, report);
    auto standard = decideFunctions(graph, all, elf, reader, options.features);
    if (options.functions == FunctionGranularity::PerName) {
        placer.standard(standard);
        return {};
    }
    // A relocatable file's symbol values are offsets into their sections already.
    std::optional<uint64_t> base;
    if (!options.addressBase.empty() && !elf.isRelocatable())
        base = elf.addressOf(options.addressBase);
    auto perAddress =
        decideFunctions(graph, all, elf, reader, options.features, FunctionGranularity::PerAddress);
    auto marker = btf::funcAddrBaseMarker(
        base ? std::optional<std::string_view>(options.addressBase) : std::nullopt,
        elf.isRelocatable());
    placer.perAddress(standard, perAddress, base, marker);
    return {};
}

} // namespace btforge::dwarf
