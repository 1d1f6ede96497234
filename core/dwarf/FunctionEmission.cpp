#include "FunctionEmission.h"

#include "dwarf/FunctionDecisions.h"
#include "elf/KfuncSets.h"

#include "btforge/btf/FuncAddrExtension.h"
#include "btforge/ir/FunctionAppender.h"

#include <algorithm>
#include <optional>
#include <span>
#include <string>
#include <tuple>

namespace btforge::dwarf {
namespace {

using ir::TypeId;

// Adds the FUNC_PROTOs, FUNCs and their DECL_TAGs, reusing an identical FUNC_PROTO already in
// the graph or its base (function pointers of the same signature, or another function's), and
// over a base the base's own FUNC or DECL_TAG where it has an identical one.
class FunctionEmitter {
public:
    FunctionEmitter(ir::TypeGraph& graph, std::string_view file)
        : graph_(graph), appender_(graph), file_(file) {}

    // `arrivingOnly`: the code's true signature, without the parameters that do not arrive.
    // Its parameters' tags are left out: they are numbered by the declared positions.
    // `arena`: the kfunc's KF_ARENA_* flags, whose pointers are tagged (feature attributes).
    Expected<TypeId> emit(std::string_view name, const FunctionObservation& f,
                          const UnitObservations& obs, bool withTags, bool arrivingOnly,
                          std::optional<uint64_t> address, uint32_t arena) {
        params_.clear();
        for (const ParamObservation& p : obs.paramsOf(f)) {
            if (!arrivingOnly || !(p.facts & kParamNotArriving))
                params_.push_back({graph_.intern(p.name), p.type});
        }
        if (f.facts & kFunctionVarargs)
            params_.push_back({ir::kNoName, ir::kVoidType});
        TypeId returnType = f.returnType;
        for (auto [flag, what, type] :
             {std::tuple{elf::kKfuncArenaReturn, "the return value", &returnType},
              {elf::kKfuncArenaFirstArg, "argument 1",
               params_.size() > 0 ? &params_[0].type : nullptr},
              {elf::kKfuncArenaSecondArg, "argument 2",
               params_.size() > 1 ? &params_[1].type : nullptr}}) {
            if (!(arena & flag))
                continue;
            if (!type || graph_.kind(*type) != ir::Kind::Ptr)
                return Error::badInput(std::string(file_) + ": kfunc '" + std::string(name) +
                                       "': .BTF_ids flags " + what +
                                       " as an arena pointer (KF_ARENA_*), but it is " +
                                       (type ? "not a pointer" : "missing"));
            *type = appender_.attributedPointer(kArenaAttribute, graph_.target(*type));
        }
        // Static linkage for all, as pahole writes kernel BTF: what matters to a tracer is the
        // name and the prototype, and tools compare against pahole's output.
        TypeId func = appender_.addFunction(name, appender_.proto(returnType, params_),
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
    static constexpr std::string_view kArenaAttribute = "address_space(1)";

    ir::TypeGraph& graph_;
    ir::FunctionAppender appender_;
    std::string_view file_;
    std::vector<ir::Param> params_;
};

const elf::Kfunc* findKfunc(std::span<const elf::Kfunc> kfuncs, std::string_view name) {
    auto it = std::lower_bound(kfuncs.begin(), kfuncs.end(), name,
                               [](const elf::Kfunc& k, std::string_view n) { return k.name < n; });
    return it == kfuncs.end() || it->name != name ? nullptr : &*it;
}

// Decides and emits the functions: per name for standard BTF; per address for the extension,
// with its markers (btf/FuncAddrExtension.h) and addresses relative to the base symbol.
class FunctionPlacer {
public:
    FunctionPlacer(ir::TypeGraph& output, const UnitObservations& all,
                   const UnitObservations& written, const DwarfConversionOptions& options,
                   std::span<const elf::Kfunc> kfuncs, std::string_view file,
                   DwarfConversionReport& report)
        : output_(output), all_(all), written_(written), options_(options), kfuncs_(kfuncs),
          report_(report), emitter_(output, file) {}

    Expected<void> standard(std::span<const FunctionDecision> decisions) {
        for (const FunctionDecision& d : decisions) {
            if (!d.chosen)
                skip(d, std::nullopt);
            else if (auto func = emit(d, std::nullopt); !func)
                return std::move(func).error();
        }
        return {};
    }

    // `standard` and `perAddress` are both sorted by name, one and one or more per name. A name
    // whose only symbol no DWARF instance describes keeps standard BTF's FUNC, without address.
    Expected<void> perAddress(std::span<const FunctionDecision> standard,
                              std::span<const FunctionDecision> perAddress,
                              std::optional<uint64_t> base, const std::string& baseMarker) {
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
                auto func = emit(d, *d.address - base.value_or(0)); // modulo 2^64 below base
                if (!func)
                    return std::move(func).error();
                if (!baseMarked_) {
                    tag(baseMarker, *func);
                    baseMarked_ = true;
                }
                first = first == ir::kVoidType ? *func : first;
            }
            if (first == ir::kVoidType && s->chosen) {
                if (auto func = emit(*s, std::nullopt); !func)
                    return std::move(func).error();
            } else if (first != ir::kVoidType && !s->chosen) {
                tag(std::string(btf::kFuncAddrNotInStandardPrefix) + std::string(s->skipReason),
                    first);
            }
            begin = end;
        }
        return {};
    }

private:
    // A kfunc's FUNC gets what the kernel's BPF verifier looks for: 'bpf_kfunc', and
    // 'bpf_fastcall' for those that keep the caller's registers (KF_FASTCALL); with attributes,
    // its arena pointers tagged as such.
    Expected<TypeId> emit(const FunctionDecision& d, std::optional<uint64_t> address) {
        const FunctionObservation& f = written_.functions[d.chosen - all_.functions.data()];
        ++report_.functions;
        const bool declTags = options_.features.has(Feature::DeclTag);
        const elf::Kfunc* kfunc = findKfunc(kfuncs_, d.name);
        const uint32_t arena =
            kfunc && options_.features.has(Feature::Attributes) ? kfunc->flags & kArenaFlags : 0;
        auto func = emitter_.emit(d.name, f, written_, declTags, d.trueSignature, address, arena);
        if (func && kfunc && declTags) {
            emitter_.tag("bpf_kfunc", *func);
            if (kfunc->flags & elf::kKfuncFastcall)
                emitter_.tag("bpf_fastcall", *func);
        }
        return func;
    }
    static constexpr uint32_t kArenaFlags =
        elf::kKfuncArenaReturn | elf::kKfuncArenaFirstArg | elf::kKfuncArenaSecondArg;

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
    // As pahole: kfuncs are found with decl_tag_kfuncs, and then tagged (decl_tag) and their
    // arena pointers marked (attributes).
    std::vector<elf::Kfunc> kfuncs;
    const FeatureSet& features = options.features;
    if (features.has(Feature::DeclTagKfuncs) &&
        (features.has(Feature::DeclTag) || features.has(Feature::Attributes))) {
        auto found = elf::findKfuncs(elf);
        if (!found)
            return std::move(found).error();
        kfuncs = std::move(*found);
    }
    FunctionPlacer placer(output, all, written, options, kfuncs, elf.fileName(), report);
    auto standard = decideFunctions(graph, all, elf, reader, options.features);
    if (options.functions == FunctionGranularity::PerName)
        return placer.standard(standard);
    // A relocatable file's symbol values are offsets into their sections already.
    std::optional<uint64_t> base;
    if (!options.addressBase.empty() && !elf.isRelocatable())
        base = elf.addressOf(options.addressBase);
    auto perAddress =
        decideFunctions(graph, all, elf, reader, options.features, FunctionGranularity::PerAddress);
    auto marker = btf::funcAddrBaseMarker(
        base ? std::optional<std::string_view>(options.addressBase) : std::nullopt,
        elf.isRelocatable());
    return placer.perAddress(standard, perAddress, base, marker);
}

} // namespace btforge::dwarf
