#include "dwarf/DwarfConversion.h"

#include "../dedup/BaseDeclarations.h"
#include "FunctionEmission.h"
#include "UndeduplicatedGraph.h"
#include "VariableEmission.h"
#include "dedup/GraphMerger.h"

#include "btforge/dwarf/UnitNameLookup.h"

#include <algorithm>
#include <atomic>
#include <chrono>
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

// Units are read, mapped and merged by workers side by side: each times its own CPU.
constexpr auto kWorker = plugin::PhaseTimer::Scope::Thread;

// Units merge in any order (whichever worker finishes first); the merger orders the result by
// unit position, so the output never depends on scheduling.
class UnitPipeline {
public:
    // `early`: what units resolve to the base's definitions early (BaseDeclarations).
    // `together`: every unit is mapped with the others, as one (compile units that refer into
    // each other: link-time optimisation).
    UnitPipeline(UnitReader& reader, const elf::ElfSymbolTable& elf,
                 std::shared_ptr<const ir::TypeGraph> base, plugin::Session& session,
                 const DwarfConversionOptions& options, DwarfConversionReport& report,
                 const dedup::EarlyResolution& early, bool together)
        : reader_(reader), elf_(elf), session_(session), options_(options), report_(report),
          together_(together), merging_(options.dedup || !options.typesOnly), merger_(base),
          undeduplicated_(base, options.dedup ? 0 : reader.unitCount(), options.declarationTags),
          observations_(reader.unitCount()), errors_(reader.unitCount()) {
        // Arrays as the base spells them: a base written by an encoder that nests arrays has an
        // ARRAY of ARRAY; one that flattens has none (and a base without multi-dimensional
        // arrays says nothing: flatten, as pahole, whose kernels are the bases met in practice).
        if (base)
            partialRules_.arrays =
                merger_.baseIndex()->nestedArrays() ? ArrayShape::Nested : ArrayShape::Flattened;
        else
            partialRules_.arrays = options.arrays;
        partialRules_.declarationTags = options.declarationTags;
        partialRules_.target = elf.target();
        partialRules_.convention = callingConventionOf(elf.target());
        rules_ = partialRules_;
        rules_.observe = hasFunctionSymbol_;
        if (base)
            baseDeclarations_.emplace(*base, *merger_.baseIndex(), early.structs);
        resolveEnums_ = early.enums && merger_.lazyBase();
    }

    Expected<void> run() {
        std::vector<size_t> partial, complete;
        for (size_t i = 0; i < reader_.unitCount(); ++i)
            (reader_.isPartialUnit(i) || together_ ? partial : complete).push_back(i);
        // A reference from one compile unit into another can only be followed with both
        // mapped as one: once one is met, run() stops and the caller starts again together.
        crossingMatters_ = complete.size() > 1;

        session_.progress.begin("reading DWARF units", reader_.unitCount());
        const auto start = std::chrono::steady_clock::now();
        // Partial and type units first: complete units refer into them.
        processUnitsTogether(partial);
        UnitDies scratch;
        uint64_t bytes = 0;
        size_t unread = 0; // units a lookup by name did not need
        for (size_t i : complete)
            bytes += reader_.unitSize(i);
        // Workers pay off for DWARF that takes them long enough: a small module's units read on
        // one thread, as a kernel build runs many modules side by side anyway, and a second
        // worker held a second unit's DIEs (a fifth more memory) for a few milliseconds.
        constexpr uint64_t kParallelBytes = 4 << 20;
        if (options_.dedup && bytes >= kParallelBytes) {
            session_.tasks.parallelFor(complete.size(), [&](size_t k) {
                std::unique_ptr<UnitDies> dies = borrowDies();
                processUnit(complete[k], *dies);
                std::lock_guard lock(spareMutex_);
                spareDies_.push_back(std::move(dies));
            });
            spareDies_.clear();
        } else {
            // Without dedup, units are appended in input order, and a listing by name may need
            // only the first ones (pahole stops reading there too).
            std::optional<UnitNameLookup> lookup;
            if (!options_.dedup && !options_.readUntil.empty())
                lookup.emplace(options_.readUntil);
            for (size_t k = 0; k < complete.size(); ++k) { // input order only when serial
                const TypeId first = undeduplicated_.graph().endId();
                processUnit(complete[k], scratch);
                if (!lookup)
                    continue;
                mergeQueued(true); // what a spuriously failed try_lock left
                if (lookup->addUnit(undeduplicated_.graph(), first,
                                    undeduplicated_.graph().endId())) {
                    unread = complete.size() - k - 1;
                    break;
                }
            }
        }
        {
            plugin::PhaseTimer merging(session_.stats, plugin::phase::kMerge, kWorker);
            mergeQueued(true); // what a spuriously failed try_lock left
        }
        session_.progress.end();
        if (plugin::Stats* stats = session_.stats) {
            // Workers' CPU is counted in the phases they ran; this is the stretch's wall time.
            stats->addTime(
                plugin::phase::kUnits,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 0);
            stats->addCount("units", reader_.unitCount() - unread);
        }
        for (auto& error : errors_) {
            if (error)
                return std::move(*error); // the first failing unit in input order
        }
        return {};
    }

    bool merging() const { return merging_; }
    // Whether a compile unit referred into another (only to be followed with them together).
    bool crossedUnits() const { return crossed_; }
    dedup::GraphMerger& merger() { return merger_; }
    UndeduplicatedGraph& undeduplicated() { return undeduplicated_; }
    std::vector<UnitObservations>& observations() { return observations_; }

private:
    bool excluded(const UnitDies& dies) const {
        const auto& langs = options_.excludedLanguages;
        return std::find(langs.begin(), langs.end(), dies.language) != langs.end();
    }

    // A worker reads each unit into storage a unit read before it grew (growing it again costs
    // page faults). The storage is given back when reading ends, not kept per thread: the end
    // phase, where memory peaks, goes without (vmlinux: 18 MB at -j1, more with more workers).
    std::unique_ptr<UnitDies> borrowDies() {
        std::lock_guard lock(spareMutex_);
        if (spareDies_.empty())
            return std::make_unique<UnitDies>();
        std::unique_ptr<UnitDies> dies = std::move(spareDies_.back());
        spareDies_.pop_back();
        return dies;
    }

    void processUnit(size_t index, UnitDies& dies) {
        if (crossed_) { // the run starts again with every unit together
            session_.progress.advance(1);
            return;
        }
        if (auto read = readUnit(index, dies); !read) {
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
            MappedUnit mapped = timedMapUnit(dies, static_cast<uint32_t>(index), rules_);
            mapped.observations.shrinkToFit();
            reader_.releaseUnit(index);
            if (crossingMatters_ && refersAcross(mapped))
                crossed_ = true;
            else
                mergeUnit(index, std::move(mapped));
        }
        session_.progress.advance(1);
    }

    // Partial and type units refer to each other in any order, in cycles too (two structs that
    // point to each other, each in its own type unit): they are mapped together, as one unit.
    // So are all units when compile units refer into each other.
    void processUnitsTogether(const std::vector<size_t>& partial) {
        // DIEs must stay sorted by offset. Units are joined as they are read while their offsets
        // ascend (as they do in one section), so only one unit's DIEs are held beside the joined
        // ones; units of other sections, which a reader may list first, are joined at the end.
        UnitDies joined, scratch;
        std::vector<UnitDies> outOfOrder;
        for (size_t k = 0; k < partial.size(); ++k) {
            session_.progress.advance(1);
            if (auto ok = readUnit(partial[k], scratch); !ok) {
                errors_[partial[k]] = std::move(ok).error();
                continue;
            }
            if (!scratch.dies.empty())
                partialSpans_.emplace_back(scratch.dies.front().offset, scratch.dies.back().offset);
            if (excluded(scratch))
                ++report_.unitsExcluded;
            else if (joined.dies.empty())
                std::swap(joined, scratch);
            else if (scratch.dies.empty() ||
                     scratch.dies.front().offset > joined.dies.back().offset)
                joined.append(scratch);
            else
                outOfOrder.push_back(std::move(scratch));
        }
        std::sort(partialSpans_.begin(), partialSpans_.end());
        if (!outOfOrder.empty()) {
            outOfOrder.push_back(std::move(joined));
            std::sort(
                outOfOrder.begin(), outOfOrder.end(),
                [](const UnitDies& a, const UnitDies& b) { return a.unitOffset < b.unitOffset; });
            joined = std::move(outOfOrder.front());
            for (size_t k = 1; k < outOfOrder.size(); ++k)
                joined.append(outOfOrder[k]);
            outOfOrder.clear();
        }
        if (joined.dies.empty())
            return;
        MappedUnit mapped =
            timedMapUnit(joined, static_cast<uint32_t>(partial.front()), partialRules_);
        for (size_t i : partial)
            reader_.releaseUnit(i);
        mergeUnit(partial.front(), std::move(mapped));
    }

    Expected<void> readUnit(size_t index, UnitDies& dies) {
        plugin::PhaseTimer timer(session_.stats, plugin::phase::kRead, kWorker);
        auto read = reader_.readUnit(index, dies);
        if (read && session_.stats) {
            session_.stats->addCount("DIEs kept", dies.dies.size());
            session_.stats->hold(plugin::holder::kUnitDies, dies.memoryUsage());
        }
        return read;
    }
    MappedUnit timedMapUnit(const UnitDies& dies, uint32_t order, const MappingRules& rules) {
        plugin::PhaseTimer timer(session_.stats, plugin::phase::kMap, kWorker);
        return mapUnit(dies, order, rules);
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
        plugin::PhaseTimer timer(session_.stats, plugin::phase::kMerge, kWorker);
        auto pending = std::make_unique<PendingMerge>(PendingMerge{index, std::move(unit), {}});
        MappedUnit& mapped = pending->mapped;
        std::vector<TypeId> placeholders;
        for (const auto& external : mapped.externals)
            placeholders.push_back(external.first);
        if (baseDeclarations_) {
            baseDeclarations_->resolveDeclarations(mapped.graph, mapped.preMapped, placeholders);
            if (resolveEnums_)
                baseDeclarations_->resolveEnumDeclarations(mapped.graph, mapped.preMapped,
                                                           placeholders);
            baseDeclarations_->referToDeclarations(mapped.graph, mapped.preMapped, placeholders);
        }
        if (merging_)
            pending->prepared = merger_.prepare(mapped.graph, placeholders);
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
        if (merging_)
            mergePrepared(pending);
        else
            appendOnly(index, mapped);
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
    }

    // Under mutex_: the appended graph alone takes the unit, and resolves its references into
    // other units itself.
    void appendOnly(size_t index, MappedUnit& mapped) {
        for (const auto& external : mapped.externals)
            mapped.preMapped[external.first - 1] = ir::kVoidType;
        report_.unresolvedReferences += undeduplicated_.append(index, mapped);
    }

    // Whether the unit refers to a DIE outside itself and every partial or type unit: into
    // another compile unit (link-time optimisation), or to no unit at all.
    bool refersAcross(const MappedUnit& mapped) const {
        auto inPartialUnit = [&](DieOffset target) {
            auto after = std::upper_bound(
                partialSpans_.begin(), partialSpans_.end(), target,
                [](DieOffset t, const std::pair<DieOffset, DieOffset>& s) { return t < s.first; });
            return after != partialSpans_.begin() && target <= std::prev(after)->second;
        };
        for (const auto& external : mapped.externals) {
            if (external.second != kLostDie && !inPartialUnit(external.second))
                return true;
        }
        return std::any_of(mapped.outsideOrigins.begin(), mapped.outsideOrigins.end(),
                           [&](DieOffset origin) { return !inPartialUnit(origin); });
    }

    // Under mutex_: the merger takes the unit (and, without dedup, so does the appended graph).
    void mergePrepared(PendingMerge& pending) {
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
        if (!options_.dedup)
            undeduplicated_.append(index, mapped);
        std::vector<TypeId> merged = merger_.merge(std::move(pending.prepared),
                                                   static_cast<uint32_t>(index), mapped.preMapped);
        for (const auto& [offset, local] : mapped.exportedTypes)
            exported_.emplace(offset, local == ir::kVoidType ? ir::kVoidType : merged[local - 1]);
        mapped.observations.remapTypes([&](TypeId id) { return merged[id - 1]; });
        observations_[index] = std::move(mapped.observations);
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
    const bool together_;
    bool crossingMatters_ = false; // several compile units, not mapped together
    std::vector<std::pair<DieOffset, DieOffset>> partialSpans_; // first and last DIE, sorted
    std::atomic<bool> crossed_ = false;
    // Without dedup and for types alone, the merger would only decide functions: it is left out.
    const bool merging_;
    std::mutex mutex_; // the merger, and what merging adds to (report_, exported_, observations_)
    std::mutex queueMutex_;
    std::deque<std::unique_ptr<PendingMerge>> queued_;
    dedup::GraphMerger merger_;
    UndeduplicatedGraph undeduplicated_;
    std::unordered_map<DieOffset, TypeId> exported_;
    std::optional<dedup::BaseDeclarations> baseDeclarations_; // over a base only
    bool resolveEnums_ = false;
    std::vector<UnitObservations> observations_;
    std::mutex spareMutex_;
    std::vector<std::unique_ptr<UnitDies>> spareDies_; // storage of workers between units
    std::vector<std::optional<Error>> errors_;
};

} // namespace

Expected<ir::TypeGraph> convertDwarf(UnitReader& reader, const elf::ElfSymbolTable& elf,
                                     std::shared_ptr<const ir::TypeGraph> base,
                                     plugin::Session& session,
                                     const DwarfConversionOptions& options,
                                     DwarfConversionReport& report) {
    const CallingConvention* cc = callingConventionOf(elf.target());
    const std::string registerCheck =
        cc ? "made for " + elf.target().describe() + " against the " + std::string(cc->name) +
                 " argument registers"
           : "not made: btforge knows no calling convention for " + elf.target().describe();
    const TypeId baseEnd = base ? base->endId() : 1;
    plugin::Stats* stats = session.stats;
    // Units resolve declarations to the base's definitions early (enums: over a lazy base)
    // unless the merger finds that wrong for this input: an own type defines an enum otherwise,
    // or a struct or union the base defines too. Then they are read and merged again without
    // those (dedup::EarlyResolution).
    std::optional<UnitPipeline> pipeline;
    dedup::GraphMerger::Result merged;
    dedup::GraphMerger::BaseUse baseUse;
    dedup::EarlyResolution early;
    bool together = false;
    for (;;) {
        report = DwarfConversionReport();
        report.registerCheck = registerCheck;
        {
            plugin::PhaseTimer indexing(stats, plugin::phase::kBaseIndex);
            pipeline.emplace(reader, elf, base, session, options, report, early, together);
        }
        if (auto ran = pipeline->run(); !ran)
            return std::move(ran).error();
        // As pahole reads such DWARF (clang's link-time optimisation): every unit at once.
        if (pipeline->crossedUnits()) {
            together = true;
            continue;
        }
        if (!pipeline->merging())
            break;
        if (stats)
            stats->hold(plugin::holder::kMerger, pipeline->merger().memoryUsage());
        baseUse = pipeline->merger().baseUse();
        plugin::PhaseTimer dedupTimer(stats, plugin::phase::kDedup);
        merged = std::move(pipeline->merger()).finish(&session.tasks);
        // Without dedup the output is the units' types: the merged graph only checks functions.
        report.declarationsCutShort = options.dedup && merged.declarationsCutShort;
        if (!early.narrow(merged))
            break;
    }
    std::optional<plugin::PhaseTimer> dedupTimer(std::in_place, stats, plugin::phase::kDedup);
    ir::TypeGraph& graph = merged.graph;
    ir::TypeGraph& output = options.dedup ? graph : pipeline->undeduplicated().graph();
    if (stats) {
        stats->addCount("types before dedup", report.typesBeforeDedup);
        stats->addCount("types after dedup", (pipeline->merging() ? graph : output).ownCount());
        stats->addCount("base types", baseEnd - 1);
        // What the module shares with its base, and what merging had to read of it.
        stats->addCount("base types matched", baseUse.matched);
        stats->addCount("base types read", baseUse.read);
    }
    if (options.typesOnly)
        return std::move(output);
    UnitObservations all;
    for (UnitObservations& unit : pipeline->observations()) {
        unit.remapTypes(merged.finalIds);
        all.append(std::move(unit));
        unit = UnitObservations(); // give the copied lists back now
    }
    // Without dedup the output is the appended graph, described by the same observations in the
    // same order but with its own ids.
    UnitObservations appendedIds = pipeline->undeduplicated().takeObservations();
    const UnitObservations& written = options.dedup ? all : appendedIds;
    dedupTimer.reset();

    {
        plugin::PhaseTimer timer(stats, plugin::phase::kFunctions);
        if (auto emitted = emitFunctions(output, graph, all, written, elf, reader, options, report);
            !emitted)
            return std::move(emitted).error();
    }
    plugin::PhaseTimer timer(stats, plugin::phase::kVariables);
    emitVariables(output, written, elf, reader, options.features, report);
    return std::move(output);
}

std::vector<std::string_view> commaSeparated(std::string_view list) {
    std::vector<std::string_view> words;
    while (!list.empty()) {
        auto comma = list.find(',');
        if (std::string_view word = list.substr(0, comma); !word.empty())
            words.push_back(word);
        list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    }
    return words;
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
    for (std::string_view word : commaSeparated(names)) {
        auto it = kLanguages.find(word);
        if (it == kLanguages.end())
            return Error::usage("unknown language '" + std::string(word) + "' in --lang-exclude");
        codes.push_back(it->second);
    }
    return codes;
}

} // namespace btforge::dwarf
