// Over a base, incremental merging keeps one invariant: the merged graph, together with the
// base's classes, is minimal (no two of its types are equivalent). Then a unit type is
// equivalent to at most one merged type, and a simultaneous walk of the unit and the merged graph
// from a candidate pair (same structural hash) decides equivalence exactly: it must pair labels
// that match and may never pair one unit type with two merged types. Unit types no walk matched
// are equivalent to nothing merged; they are minimised among themselves and appended, one type
// per class.
//
// Without a base, units are a kernel's thousands of compile units, four of five of whose types
// repeat one merged before, alike down to the last reference: their exact hashes find them, with
// no structural hashing nor walks (on vmlinux, a tenth of the run's CPU). Equivalent types that
// are not alike (a cycle unrolled once more) are both appended; finish() partitions the whole.
//
// This file: preparing units (their components and hashes), the state's set-up and the facade.
// The two phases have files of their own, UnitMerge.cpp and MergeFinish.cpp.
#include "dedup/GraphMerger.h"

#include "Components.h"
#include "ExactHash.h"
#include "MergeState.h"
#include "PartitionRefinement.h"
#include "StructuralHash.h"
#include "TypeLabel.h"

#include <algorithm>
#include <cassert>

namespace btforge::dedup {
namespace {

using detail::kUnmapped;
using ir::Kind;
using ir::TypeGraph;
using ir::TypeId;

std::vector<uint32_t> blocksByHash(std::span<const uint64_t> hashes) {
    detail::KeyNumbering numbers(hashes.size());
    std::vector<uint32_t> block(hashes.size());
    for (size_t node = 0; node < hashes.size(); ++node)
        block[node] = numbers.number(hashes[node]);
    return block;
}

} // namespace

GraphMerger::State::State(std::shared_ptr<const TypeGraph> baseGraph, bool lazyBase)
    : base(std::move(baseGraph)), labelled(base), firstOwn(labelled.firstId()) {
    if (!base) {
        world.addLeaf(voidLabel());
        return;
    }
    baseWorld = std::make_unique<BaseWorld>(*base);
    baseIndex = BaseIndex::of(base);
    if (lazyBase && baseIndex->minimal()) {
        lazy = true;
        worldFirst = firstOwn;
        return;
    }
    baseWorld.reset();
    // The base need not be minimal (btf__dedup leaves some duplicates): group it into classes,
    // and let the smallest id of each stand for it, so the world stays minimal.
    baseRep.assign(firstOwn, ir::kVoidType);
    world.addLeaf(voidLabel());
    for (TypeId id = 1; id < firstOwn; ++id)
        world.addType(*base, id);
    const std::vector<uint64_t> hashes = detail::structuralHashes(world, detail::kMatchRounds);
    // Types that hash apart are never equivalent, and in a deduplicated kernel's BTF every type
    // does: then each is its own class, and the partition (a tenth of a small module's run) is
    // not needed.
    index.reserve(firstOwn);
    bool distinct = true;
    for (TypeId id = 1; distinct && id < firstOwn; ++id)
        distinct = index.insertUnique(hashes[id], id, [&](TypeId other) { return hashes[other]; });
    if (distinct) {
        for (TypeId id = 0; id < firstOwn; ++id)
            baseRep[id] = id;
        return;
    }
    index = support::HashIndex();
    std::vector<uint32_t> block = blocksByHash(hashes);
    const uint32_t classes = detail::refinePartition(world, block);
    std::vector<TypeId> first(classes, kUnmapped);
    for (TypeId id = 0; id < firstOwn; ++id) {
        TypeId& rep = first[block[id]];
        if (rep == kUnmapped)
            rep = id;
        baseRep[id] = rep;
        if (rep == id && id != ir::kVoidType)
            index.insert(hashes[id], id);
    }
    world.remapRefs(baseRep);
}

// --- GraphMerger ---

GraphMerger::GraphMerger(std::shared_ptr<const TypeGraph> base, Declarations declarations,
                         bool lazyBase)
    : state_(std::make_unique<State>(std::move(base), lazyBase)) {
    state_->declarations = declarations;
}
GraphMerger::GraphMerger(GraphMerger&&) noexcept = default;
GraphMerger& GraphMerger::operator=(GraphMerger&&) noexcept = default;
GraphMerger::~GraphMerger() = default;

PreparedUnit GraphMerger::prepare(const TypeGraph& unit,
                                  std::span<const TypeId> placeholders) const {
    assert(!unit.base() && unit.firstId() == 1 && "a unit graph is standalone");
    const uint32_t count = unit.ownCount();
    PreparedUnit prepared;
    prepared.unit_ = &unit;
    prepared.placeholders_.assign(placeholders.begin(), placeholders.end());
    std::sort(prepared.placeholders_.begin(), prepared.placeholders_.end());
    prepared.placeholders_.erase(
        std::unique(prepared.placeholders_.begin(), prepared.placeholders_.end()),
        prepared.placeholders_.end());
    assert((prepared.placeholders_.empty() || (prepared.placeholders_.front() != ir::kVoidType &&
                                               prepared.placeholders_.back() <= count)) &&
           "placeholders are unit types");

    RefGraph& refs = prepared.refs_;
    refs.addLeaf(voidLabel());
    auto placeholder = prepared.placeholders_.begin();
    for (TypeId id = 1; id <= count; ++id) {
        if (placeholder != prepared.placeholders_.end() && *placeholder == id) {
            refs.addLeaf({}); // stands for a merged type: its own content is meaningless
            ++placeholder;
        } else {
            refs.addType(unit, id);
        }
    }
    // A component matches whole or not at all: a walk from any member reaches all the others.
    detail::findComponents(
        refs.size(), [&](uint32_t node) { return refs.refs(node); }, prepared.order_,
        prepared.componentStarts_);
    if (state_->exact()) {
        if (prepared.placeholders_.empty())
            prepared.exact_ =
                detail::exactHashes(refs, prepared.order_, prepared.componentStarts_, {});
        return prepared;
    }
    // Over a lazy base, hashes see the base types matched first: merge() takes them.
    if (prepared.placeholders_.empty() && !state_->lazyBase())
        prepared.hashes_ = detail::structuralHashes(refs, detail::kMatchRounds);
    return prepared;
}

std::vector<TypeId> GraphMerger::merge(PreparedUnit&& unit, uint32_t unitOrder,
                                       std::span<const TypeId> preMapped) {
    return state_->merge(std::move(unit), unitOrder, preMapped);
}

std::vector<TypeId> GraphMerger::merge(const TypeGraph& unit, uint32_t unitOrder,
                                       std::span<const TypeId> preMapped) {
    std::vector<TypeId> placeholders;
    for (TypeId id = 1; id <= preMapped.size(); ++id) {
        if (preMapped[id - 1] != kNotPreMapped)
            placeholders.push_back(id);
    }
    return merge(prepare(unit, placeholders), unitOrder, preMapped);
}

GraphMerger::Result GraphMerger::finish(plugin::TaskRunner* tasks) && {
    std::unique_ptr<State> state = std::move(state_);
    return state->finish(tasks);
}

size_t GraphMerger::memoryUsage() const {
    const State& s = *state_;
    auto bytes = [](const auto& v) { return v.capacity() * sizeof(v[0]); };
    return s.world.memoryUsage() + s.index.memoryUsage() + s.exactIndex.memoryUsage() +
           s.labelled.memoryUsage() + s.labelledOf.memoryUsage() +
           (s.baseWorld ? s.baseWorld->memoryUsage() : 0) + s.ownKey.memoryUsage() +
           bytes(s.baseRep) + bytes(s.roundSlot) + bytes(s.roundMemo) + bytes(s.roundMemoDone) +
           bytes(s.map) + bytes(s.tentative) + bytes(s.unmatchable) + bytes(s.classOf) +
           bytes(s.internedName);
}

const BaseIndex* GraphMerger::baseIndex() const {
    return state_->baseIndex.get();
}

bool GraphMerger::lazyBase() const {
    return state_->lazyBase();
}

GraphMerger::BaseUse GraphMerger::baseUse() const {
    const State& s = *state_;
    if (!s.base)
        return {};
    return {static_cast<uint32_t>(s.baseMatched.size()),
            s.lazyBase() ? s.baseWorld->materialized() : s.firstOwn - 1};
}

uint32_t GraphMerger::provisionalCount() const {
    return state_->ownEnd() - state_->firstOwn;
}

} // namespace btforge::dedup
