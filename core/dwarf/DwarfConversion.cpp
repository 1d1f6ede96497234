#include "dwarf/DwarfConversion.h"

#include "../dedup/TypeLabel.h"
#include "dedup/GraphMerger.h"
#include "dwarf/FunctionMerger.h"
#include "elf/KfuncSets.h"

#include "btforge/btf/FuncAddrExtension.h"
#include "btforge/ir/FunctionAppender.h"

#include <algorithm>
#include <deque>
#include <dwarf.h>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>

namespace btforge::dwarf {
namespace {

using ir::TypeId;

// A base written by an encoder that nests arrays has an ARRAY of ARRAY; one that flattens has none
// (and a base without multi-dimensional arrays says nothing: flatten, as pahole, whose kernels
// are the bases met in practice).
ArrayShape arrayShapeOf(const ir::TypeGraph& base) {
    for (TypeId id = 1; id < base.endId(); ++id) {
        if (base.kind(id) == ir::Kind::Array &&
            base.kind(base.getAs<ir::ArrayType>(id).elemType) == ir::Kind::Array)
            return ArrayShape::Nested;
    }
    return ArrayShape::Flattened;
}

// Units merge in any order (whichever worker finishes first); the merger orders the result by
// unit position, so the output never depends on scheduling.
class UnitPipeline {
public:
    UnitPipeline(UnitReader& reader, const elf::ElfSymbolTable& elf,
                 std::shared_ptr<const ir::TypeGraph> base, plugin::Session& session,
                 const DwarfConversionOptions& options, DwarfConversionReport& report)
        : reader_(reader), elf_(elf), session_(session), options_(options), report_(report),
          merger_(base), appended_(base),
          appendedObservations_(options.dedup ? 0 : reader.unitCount()),
          observations_(reader.unitCount()), errors_(reader.unitCount()) {
        partialRules_.arrays = base ? arrayShapeOf(*base) : options.arrays;
        partialRules_.target = elf.target();
        partialRules_.convention = callingConventionOf(elf.target());
        rules_ = partialRules_;
        rules_.observe = hasFunctionSymbol_;
        if (base)
            indexBaseDefinitions(*base);
    }

    Expected<void> run() {
        std::vector<size_t> partial, complete;
        for (size_t i = 0; i < reader_.unitCount(); ++i)
            (reader_.isPartialUnit(i) ? partial : complete).push_back(i);

        session_.progress.begin("reading DWARF units", reader_.unitCount());
        // Partial and type units first: complete units refer into them.
        processPartialUnits(partial);
        UnitDies scratch;
        if (options_.dedup) {
            session_.tasks.parallelFor(complete.size(), [&](size_t k) {
                thread_local UnitDies dies;
                processUnit(complete[k], dies);
            });
        } else {
            for (size_t i : complete) // appending keeps input order only when serial
                processUnit(i, scratch);
        }
        mergeQueued(true); // what a spuriously failed try_lock left
        session_.progress.end();
        for (auto& error : errors_) {
            if (error)
                return std::move(*error); // the first failing unit in input order
        }
        return {};
    }

    dedup::GraphMerger& merger() { return merger_; }
    ir::TypeGraph& appended() { return appended_; }
    std::vector<UnitObservations>& appendedObservations() { return appendedObservations_; }
    std::vector<UnitObservations>& observations() { return observations_; }

private:
    bool excluded(const UnitDies& dies) const {
        const auto& langs = options_.excludedLanguages;
        return std::find(langs.begin(), langs.end(), dies.language) != langs.end();
    }

    void processUnit(size_t index, UnitDies& dies) {
        if (auto read = reader_.readUnit(index, dies); !read) {
            errors_[index] = std::move(read).error();
            session_.progress.advance(1);
            return;
        }
        if (excluded(dies)) {
            std::lock_guard lock(mutex_);
            ++report_.unitsExcluded;
        } else {
            // Most definitions are of static inline functions with no symbol: nothing can
            // attach to them, so they are not observed at all.
            MappedUnit mapped = mapUnit(dies, static_cast<uint32_t>(index), rules_);
            reader_.releaseUnit(index);
            mergeUnit(index, std::move(mapped));
        }
        session_.progress.advance(1);
    }

    // Partial and type units refer to each other in any order, in cycles too (two structs that
    // point to each other, each in its own type unit): they are mapped together, as one unit.
    void processPartialUnits(const std::vector<size_t>& partial) {
        std::vector<UnitDies> units(partial.size());
        size_t read = 0;
        for (size_t k = 0; k < partial.size(); ++k) {
            session_.progress.advance(1);
            if (auto ok = reader_.readUnit(partial[k], units[read]); !ok)
                errors_[partial[k]] = std::move(ok).error();
            else if (excluded(units[read]))
                ++report_.unitsExcluded;
            else
                ++read;
        }
        if (read == 0)
            return;
        units.resize(read);
        // DIEs must stay sorted by offset; the reader may list sections in any order.
        std::sort(units.begin(), units.end(),
                  [](const UnitDies& a, const UnitDies& b) { return a.unitOffset < b.unitOffset; });
        for (size_t k = 1; k < units.size(); ++k)
            units[0].append(units[k]);
        MappedUnit mapped =
            mapUnit(units[0], static_cast<uint32_t>(partial.front()), partialRules_);
        for (size_t i : partial)
            reader_.releaseUnit(i);
        mergeUnit(partial.front(), std::move(mapped));
    }

    // A module's units often only declare a struct the base defines (`struct pid_namespace;`):
    // the declaration means the base's struct when the base has one struct of that name, as
    // libbpf's dedup decides. Otherwise every type reaching the declaration would differ from
    // its base twin and be repeated. The other way round, the base may only declare a struct the
    // module defines (vmlinux has `struct kvm_lapic;`, kvm.ko defines it): see
    // referToBaseDeclarations.
    void indexBaseDefinitions(const ir::TypeGraph& base) {
        for (TypeId id = 1; id < base.endId(); ++id) {
            const ir::Kind kind = base.kind(id);
            if (base.name(id).empty())
                continue;
            if (kind == ir::Kind::Fwd) {
                baseDeclarations_.try_emplace(
                    definitionKey(base.getAs<ir::FwdType>(id).isUnion, base.name(id)), id);
                continue;
            }
            if (kind != ir::Kind::Struct && kind != ir::Kind::Union)
                continue;
            auto [it, added] = baseDefinitions_.try_emplace(
                definitionKey(kind == ir::Kind::Union, base.name(id)), id);
            if (!added)
                it->second = ir::kVoidType; // two of one name: the declaration stays
        }
        std::erase_if(baseDeclarations_,
                      [&](const auto& entry) { return baseDefinitions_.contains(entry.first); });
    }
    static std::string definitionKey(bool isUnion, std::string_view name) {
        return (isUnion ? "u:" : "s:") + std::string(name);
    }
    void resolveDeclarationsToBase(MappedUnit& mapped, std::vector<TypeId>& placeholders) {
        if (baseDefinitions_.empty())
            return;
        const ir::TypeGraph& unit = mapped.graph;
        for (TypeId id = 1; id < unit.endId(); ++id) {
            if (unit.kind(id) != ir::Kind::Fwd || mapped.preMapped[id - 1] != kNotPreMapped)
                continue;
            auto it = baseDefinitions_.find(
                definitionKey(unit.getAs<ir::FwdType>(id).isUnion, unit.name(id)));
            if (it == baseDefinitions_.end() || it->second == ir::kVoidType)
                continue;
            placeholders.push_back(id);
            mapped.preMapped[id - 1] = it->second;
        }
    }

    // Where the unit defines a struct the base only declares, the base's types that refer to it
    // (through pointers, qualifiers, typedefs) have the declaration; the unit's refer to the
    // definition. They are the same C types, and libbpf's dedup treats a declaration and a
    // definition of one name as equivalent: so do references here, by pointing the unit's at a
    // declaration standing for the base's. The definition itself stays, for what needs it whole.
    void referToBaseDeclarations(MappedUnit& mapped, std::vector<TypeId>& placeholders) {
        if (baseDeclarations_.empty())
            return;
        ir::TypeGraph& unit = mapped.graph;
        std::unordered_map<TypeId, TypeId> declarationOf; // unit definition -> its declaration
        const TypeId end = unit.endId();
        for (TypeId id = 1; id < end; ++id) {
            const ir::Kind kind = unit.kind(id);
            if ((kind != ir::Kind::Struct && kind != ir::Kind::Union) || unit.name(id).empty())
                continue;
            const bool isUnion = kind == ir::Kind::Union;
            auto it = baseDeclarations_.find(definitionKey(isUnion, unit.name(id)));
            if (it == baseDeclarations_.end())
                continue;
            const TypeId declaration = unit.add(ir::FwdType{unit.nameId(id), isUnion});
            mapped.preMapped.push_back(it->second);
            placeholders.push_back(declaration);
            declarationOf.emplace(id, declaration);
        }
        if (declarationOf.empty())
            return;
        for (TypeId id = 1; id < end; ++id) {
            unit.visit(id, [&](const auto& t) {
                using T = std::decay_t<decltype(t)>;
                if constexpr (ir::isReferenceKind(T::kKind)) {
                    auto it = declarationOf.find(t.type);
                    if (it == declarationOf.end())
                        return;
                    T redirected = t;
                    redirected.type = it->second;
                    unit.replace(id, redirected);
                }
            });
        }
    }

    // A unit ready to merge: prepared without the lock, merged under it.
    struct PendingMerge {
        size_t index;
        MappedUnit mapped;
        dedup::PreparedUnit prepared; // refers to mapped.graph: the record never moves
    };

    // Hashing the unit needs no lock; only the merge itself is serial. A worker that finds the
    // merger busy leaves its unit queued and goes on reading: the one merging takes it next.
    void mergeUnit(size_t index, MappedUnit&& unit) {
        auto pending = std::make_unique<PendingMerge>(PendingMerge{index, std::move(unit), {}});
        MappedUnit& mapped = pending->mapped;
        std::vector<TypeId> placeholders;
        for (const auto& external : mapped.externals)
            placeholders.push_back(external.first);
        resolveDeclarationsToBase(mapped, placeholders);
        referToBaseDeclarations(mapped, placeholders);
        pending->prepared = dedup::GraphMerger::prepare(mapped.graph, placeholders);
        bool full = false;
        {
            std::lock_guard queueLock(queueMutex_);
            queued_.push_back(std::move(pending));
            // With more workers than one merger keeps up with, they wait instead of piling up
            // mapped units.
            full = queued_.size() > 2 * size_t{session_.tasks.concurrency()};
        }
        mergeQueued(full);
    }

    // Returns when the queue is empty or, unless `wait`, another worker is merging (and so will
    // see what is queued: it looks again after letting go of the merger). try_lock may also
    // fail spuriously: run() merges what is left at the end.
    void mergeQueued(bool wait) {
        for (;;) {
            std::unique_lock lock(mutex_, std::defer_lock);
            if (wait)
                lock.lock();
            else if (!lock.try_lock())
                return;
            while (std::unique_ptr<PendingMerge> next = dequeue())
                commitMerge(*next);
            lock.unlock();
            std::lock_guard queueLock(queueMutex_);
            if (queued_.empty())
                return;
        }
    }
    std::unique_ptr<PendingMerge> dequeue() {
        std::lock_guard queueLock(queueMutex_);
        if (queued_.empty())
            return nullptr;
        std::unique_ptr<PendingMerge> next = std::move(queued_.front());
        queued_.pop_front();
        return next;
    }

    // Under mutex_.
    void commitMerge(PendingMerge& pending) {
        const size_t index = pending.index;
        MappedUnit& mapped = pending.mapped;
        for (const auto& [placeholder, target] : mapped.externals) {
            auto it = exported_.find(target);
            if (it != exported_.end()) {
                mapped.preMapped[placeholder - 1] = it->second;
            } else {
                mapped.preMapped[placeholder - 1] = ir::kVoidType;
                ++report_.unresolvedReferences;
            }
        }
        if (!options_.dedup) {
            // Functions are still decided on deduplicated types, so the FUNC set is the same
            // with and without dedup; they are only written with the appended ids.
            appendedObservations_[index] = mapped.observations;
            appendedObservations_[index].remapTypes(append(mapped), 1);
        }
        std::vector<TypeId> merged = merger_.merge(std::move(pending.prepared),
                                                   static_cast<uint32_t>(index), mapped.preMapped);
        for (const auto& [offset, local] : mapped.exportedTypes)
            exported_.emplace(offset, local == ir::kVoidType ? ir::kVoidType : merged[local - 1]);
        report_.typesBeforeDedup += mapped.graph.ownCount();
        report_.referencesAsPointers += mapped.referencesAsPointers;
        for (const UnmappedDies& u : mapped.unmapped) {
            auto it = std::find_if(report_.unmapped.begin(), report_.unmapped.end(),
                                   [&](const UnmappedDies& r) {
                                       return r.tag == u.tag && std::string_view(r.why) == u.why;
                                   });
            if (it == report_.unmapped.end())
                report_.unmapped.push_back(u);
            else
                it->count += u.count;
        }
        mapped.observations.remapTypes(merged, 1);
        observations_[index] = std::move(mapped.observations);
    }

    // Without dedup (a diagnostic: what libbpf's dedup would start from), every unit type is
    // copied as it is, placeholders aside.
    std::vector<TypeId> append(const MappedUnit& mapped) {
        const ir::TypeGraph& unit = mapped.graph;
        std::vector<TypeId> map(unit.ownCount());
        TypeId next = appended_.endId();
        for (TypeId id = 1; id < unit.endId(); ++id) {
            TypeId pre = mapped.preMapped[id - 1];
            map[id - 1] = pre != kNotPreMapped ? pre : next++;
        }
        auto mapRef = [&](TypeId id) { return id == ir::kVoidType ? id : map[id - 1]; };
        for (TypeId id = 1; id < unit.endId(); ++id) {
            if (mapped.preMapped[id - 1] == kNotPreMapped)
                appended_.add(
                    dedup::detail::rewrite(unit, unit.get(id), appended_, mapRef, scratch_));
        }
        return map;
    }

    UnitReader& reader_;
    const elf::ElfSymbolTable& elf_;
    plugin::Session& session_;
    const DwarfConversionOptions& options_;
    DwarfConversionReport& report_;
    const FunctionFilter hasFunctionSymbol_ = [this](std::string_view name) {
        return !elf_.functionsNamed(name).empty();
    };
    // Partial and type units are observed whole: what they define is looked up later.
    MappingRules partialRules_;
    MappingRules rules_;
    std::mutex mutex_; // the merger, and what merging adds to (report_, exported_, observations_)
    std::mutex queueMutex_;
    std::deque<std::unique_ptr<PendingMerge>> queued_;
    dedup::GraphMerger merger_;
    ir::TypeGraph appended_;
    std::vector<UnitObservations> appendedObservations_; // by unit, without dedup
    dedup::detail::ListScratch scratch_;
    std::unordered_map<DieOffset, TypeId> exported_;
    // Base STRUCTs and UNIONs by definitionKey; void where the base has several of one name.
    std::unordered_map<std::string, TypeId> baseDefinitions_;
    // Base FWDs of names the base defines nowhere, by definitionKey.
    std::unordered_map<std::string, TypeId> baseDeclarations_;
    std::vector<UnitObservations> observations_;
    std::vector<std::optional<Error>> errors_;
};

// Adds the FUNC_PROTOs, FUNCs and their DECL_TAGs, reusing an identical FUNC_PROTO already in
// the graph or its base (function pointers of the same signature, or another function's).
class FunctionEmitter {
public:
    explicit FunctionEmitter(ir::TypeGraph& graph) : graph_(graph), appender_(graph) {}

    TypeId emit(std::string_view name, const FunctionObservation& f, const UnitObservations& obs,
                bool withTags, std::optional<uint64_t> address) {
        params_.clear();
        for (const ParamObservation& p : obs.paramsOf(f))
            params_.push_back({graph_.intern(p.name), p.type});
        if (f.facts & kFunctionVarargs)
            params_.push_back({ir::kNoName, ir::kVoidType});
        // Static linkage for all, as pahole writes kernel BTF: what matters to a tracer is the
        // name and the prototype, and tools compare against pahole's output.
        TypeId func = appender_.addFunction(name, appender_.proto(f.returnType, params_),
                                            ir::FuncLinkage::Static, address);
        if (withTags) {
            for (const TagObservation& t : obs.tagsOf(f))
                graph_.add(ir::DeclTagType{graph_.intern(t.value), func, t.componentIndex});
        }
        return func;
    }

private:
    ir::TypeGraph& graph_;
    ir::FunctionAppender appender_;
    std::vector<ir::Param> params_;
};

// What the kernel's BPF verifier looks for on a kfunc's FUNC: 'bpf_kfunc', and 'bpf_fastcall'
// for those that keep the caller's registers (KF_FASTCALL).
void tagKfunc(ir::TypeGraph& graph, TypeId func, std::string_view name,
              std::span<const elf::Kfunc> kfuncs) {
    auto it = std::lower_bound(kfuncs.begin(), kfuncs.end(), name,
                               [](const elf::Kfunc& k, std::string_view n) { return k.name < n; });
    if (it == kfuncs.end() || it->name != name)
        return;
    graph.add(ir::DeclTagType{graph.intern("bpf_kfunc"), func, -1});
    if (it->flags & elf::kKfuncFastcall)
        graph.add(ir::DeclTagType{graph.intern("bpf_fastcall"), func, -1});
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
        TypeId func =
            emitter_.emit(d.name, f, written_, options_.features.has(Feature::DeclTag), address);
        tagKfunc(output_, func, d.name, kfuncs_);
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

// Per-CPU variables: one VAR each, in DATASEC '.data..percpu' sorted by offset (seed 004); with
// global_var, every variable with a static address, one DATASEC per data section.
void emitVariables(ir::TypeGraph& graph, const UnitObservations& obs,
                   const elf::ElfSymbolTable& elf, const UnitReader& reader,
                   const FeatureSet& features, DwarfConversionReport& report) {
    struct Placed {
        uint32_t section;
        uint64_t offset;
        uint64_t size;
        const VariableObservation* var;
    };
    std::vector<Placed> placed;
    for (const VariableObservation& v : obs.variables) {
        if (!v.hasAddress || elf::isCompilerGeneratedObject(v.name) || v.type == ir::kVoidType)
            continue;
        auto where = reader.locate(v.address);
        const elf::ElfSection* section = where ? elf.section(where->section) : nullptr;
        if (!section)
            continue;
        bool percpu = section->name == ".data..percpu";
        if (!(percpu ? features.has(Feature::Var) : features.has(Feature::GlobalVar)))
            continue;
        // Offset 0 is also where section-start markers sit: only a symbol of that very name
        // there proves the variable is real.
        if (where->offset == 0) {
            auto objects = elf.objectsIn(where->section);
            if (std::none_of(objects.begin(), objects.end(),
                             [&](const elf::ElfObject& o) { return o.name == v.name; }))
                continue;
        }
        auto size = ir::sizeOf(graph, v.type);
        if (!size || *size == 0 || *size > UINT32_MAX || where->offset > UINT32_MAX)
            continue;
        placed.push_back({where->section, where->offset, *size, &v});
    }
    std::sort(placed.begin(), placed.end(), [](const Placed& a, const Placed& b) {
        return std::tie(a.section, a.offset, a.var->unit, a.var->die) <
               std::tie(b.section, b.offset, b.var->unit, b.var->die);
    });

    std::vector<ir::VarSecInfo> entries;
    for (size_t begin = 0; begin < placed.size();) {
        size_t end = begin;
        entries.clear();
        for (; end < placed.size() && placed[end].section == placed[begin].section; ++end) {
            const Placed& p = placed[end];
            TypeId var = graph.add(ir::VarType{graph.intern(p.var->name), p.var->type,
                                               p.var->external ? ir::VarLinkage::GlobalAllocated
                                                               : ir::VarLinkage::Static});
            entries.push_back(
                {var, static_cast<uint32_t>(p.offset), static_cast<uint32_t>(p.size)});
            ++report.variables;
        }
        // The section's size would include what BTF does not describe: end at the last variable.
        const ir::VarSecInfo& last = entries.back();
        const elf::ElfSection* section = elf.section(placed[begin].section);
        graph.add(ir::DatasecType{graph.intern(section->name), last.offset + last.size, entries});
        begin = end;
    }
}

} // namespace

Expected<ir::TypeGraph> convertDwarf(UnitReader& reader, const elf::ElfSymbolTable& elf,
                                     std::shared_ptr<const ir::TypeGraph> base,
                                     plugin::Session& session,
                                     const DwarfConversionOptions& options,
                                     DwarfConversionReport& report) {
    if (const CallingConvention* cc = callingConventionOf(elf.target()))
        report.registerCheck = "made for " + elf.target().describe() + " against the " +
                               std::string(cc->name) + " argument registers (units built by gcc)";
    else
        report.registerCheck =
            "not made: btforge knows no calling convention for " + elf.target().describe();
    UnitPipeline pipeline(reader, elf, std::move(base), session, options, report);
    if (auto ran = pipeline.run(); !ran)
        return std::move(ran).error();

    auto [graph, finalIds] = std::move(pipeline.merger()).finish(&session.tasks);
    UnitObservations all;
    for (UnitObservations& unit : pipeline.observations()) {
        unit.remapTypes(finalIds, 0);
        all.append(std::move(unit));
        unit = UnitObservations(); // give the copied lists back now
    }
    // Without dedup the output is the appended graph, described by the same observations in the
    // same order but with its own ids.
    UnitObservations appendedIds;
    for (UnitObservations& unit : pipeline.appendedObservations())
        appendedIds.append(std::move(unit));
    ir::TypeGraph& output = options.dedup ? graph : pipeline.appended();
    const UnitObservations& written = options.dedup ? all : appendedIds;

    if (auto emitted = emitFunctions(output, graph, all, written, elf, reader, options, report);
        !emitted)
        return std::move(emitted).error();
    emitVariables(output, written, elf, reader, options.features, report);
    return std::move(output);
}

Expected<std::vector<uint16_t>> parseLanguages(std::string_view names) {
    static const std::map<std::string, uint16_t, std::less<>> kLanguages = {
        {"c", DW_LANG_C},
        {"c89", DW_LANG_C89},
        {"c99", DW_LANG_C99},
        {"c11", DW_LANG_C11},
        {"c++", DW_LANG_C_plus_plus},
        {"ada", DW_LANG_Ada83},
        {"fortran", DW_LANG_Fortran90},
        {"go", DW_LANG_Go},
        {"rust", DW_LANG_Rust},
        {"asm", DW_LANG_Mips_Assembler}};
    std::vector<uint16_t> codes;
    while (!names.empty()) {
        auto comma = names.find(',');
        std::string_view word = names.substr(0, comma);
        names = comma == std::string_view::npos ? std::string_view() : names.substr(comma + 1);
        if (word.empty())
            continue;
        auto it = kLanguages.find(word);
        if (it == kLanguages.end())
            return Error::usage("unknown language '" + std::string(word) + "' in --lang-exclude");
        codes.push_back(it->second);
    }
    return codes;
}

} // namespace btforge::dwarf
