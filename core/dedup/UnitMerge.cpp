// GraphMerger's merge(): a prepared unit matched against the merged graph component by
// component; what matched is mapped, what did not is minimised among itself and appended
// (GraphMerger.cpp says why one walk per candidate decides equivalence). Without a base, a unit
// type is looked up by its exact hash instead.
#include "ExactHash.h"
#include "MergeState.h"
#include "PartitionRefinement.h"
#include "StructuralHash.h"
#include "TypeLabel.h"

#include <algorithm>
#include <cassert>
#include <string>

namespace btforge::dedup {
namespace {

using detail::copyType;
using detail::kUnmapped;
using detail::unitKey;
using ir::Kind;
using ir::TypeGraph;
using ir::TypeId;

} // namespace

std::vector<TypeId> GraphMerger::State::merge(PreparedUnit&& unit, uint32_t unitOrder,
                                              std::span<const TypeId> preMapped) {
    assert(unit.unit_ && "the unit was prepared");
    const uint32_t count = unit.unit_->ownCount();
    if (!base && unitOrder < byteOrderUnit) {
        byteOrderUnit = unitOrder;
        labelled.setTargetAs(*unit.unit_);
    }
    map.assign(count + 1, kUnmapped);
    map[ir::kVoidType] = ir::kVoidType;
    preMap(unit, preMapped);
    if (exact()) {
        matchExactly(unit, unitOrder);
        appendUnmatched(unit, unitOrder);
        return std::vector<TypeId>(map.begin() + 1, map.end());
    }
    tentative.assign(count + 1, kUnmapped);
    unmatchable.assign(count + 1, 0);
    if (lazyBase()) {
        matchBase(unit, unitOrder);
        // What matched no base type may still match an own one.
        std::fill(unmatchable.begin(), unmatchable.end(), 0);
    }
    if (unit.hashes_.empty())
        hashMapped(unit);

    const std::vector<uint32_t>& starts = unit.componentStarts_;
    const size_t components = starts.size() - 1;
    // A component's first step is three dependent cache misses: its index slot, then the
    // candidate's world node, then the candidate's references. Each starts a few components ahead.
    auto rootHash = [&](size_t component) { return unit.hashes_[unit.order_[starts[component]]]; };
    auto firstCandidate = [&](size_t component) {
        TypeId found = ir::kVoidType;
        index.forEach(rootHash(component), [&](TypeId candidate) {
            found = candidate;
            return true;
        });
        return found;
    };
    constexpr size_t kSlotAhead = 24, kNodeAhead = 12, kRefsAhead = 6;
    auto worldNode = [&](size_t component, auto&& prefetch) {
        const TypeId candidate = firstCandidate(component);
        if (candidate >= worldFirst)
            prefetch(candidate - worldFirst);
    };
    const bool ownOnly = lazyBase();
    for (size_t component = 0; component < components; ++component) {
        if (component + kSlotAhead < components)
            index.prefetch(rootHash(component + kSlotAhead));
        if (component + kNodeAhead < components)
            worldNode(component + kNodeAhead, [&](uint32_t node) { world.prefetchNode(node); });
        if (component + kRefsAhead < components)
            worldNode(component + kRefsAhead, [&](uint32_t node) { world.prefetchRefs(node); });
        const TypeId first = unit.order_[starts[component]];
        if (map[first] != kUnmapped)
            continue; // a placeholder, or a base type's
        bool matched = false;
        index.forEach(unit.hashes_[first], [&](TypeId candidate) {
            matched = matchFrom(unit, first, candidate, unitOrder, ownOnly);
            return matched;
        });
        if (matched)
            continue;
        // Equivalent to no world type, nor is any member (it would take `first` along): later
        // walks reaching them fail at once.
        for (uint32_t i = starts[component]; i < starts[component + 1]; ++i)
            unmatchable[unit.order_[i]] = 1;
    }
    appendUnmatched(unit, unitOrder);
    return std::vector<TypeId>(map.begin() + 1, map.end());
}

// Each type not pre-mapped, in id order: the merged type of its exact hash, or the next new type
// (a hash the unit has twice is one new type). A placeholder hashes as the id of the merged type
// it stands for, not as its contents: a type that reaches it hashes apart from one that reaches
// a copy of that type, and finish() joins the two.
void GraphMerger::State::matchExactly(PreparedUnit& unit, uint32_t unitOrder) {
    if (unit.exact_.empty()) {
        std::vector<LabelHash> fixed(map.size());
        for (TypeId id = 1; id < map.size(); ++id) {
            if (map[id] != kUnmapped) // void: a reference the caller could not resolve
                fixed[id] =
                    map[id] == ir::kVoidType ? voidLabel() : detail::mergedTypeHash(map[id]);
        }
        unit.exact_ = detail::exactHashes(unit.refs_, unit.order_, unit.componentStarts_, fixed);
    }
    const TypeId firstNew = ownEnd();
    TypeId next = firstNew;
    constexpr TypeId kAhead = 16; // index slots are cache misses: start them early
    for (TypeId id = 1; id < map.size(); ++id) {
        if (id + kAhead < map.size())
            exactIndex.prefetch(unit.exact_[id + kAhead]);
        if (map[id] != kUnmapped)
            continue;
        const TypeId found = exactIndex.find(unit.exact_[id]);
        if (found == ir::kVoidType) {
            exactIndex.insert(unit.exact_[id], next++);
            continue;
        }
        map[id] = found;
        if (found < firstNew)
            ownKey[found - firstOwn] = std::min(ownKey[found - firstOwn], unitKey(unitOrder, id));
    }
}

void GraphMerger::State::preMap(const PreparedUnit& unit, std::span<const TypeId> preMapped) {
    const std::vector<TypeId>& placeholders = unit.placeholders_;
    if (preMapped.empty() && placeholders.empty())
        return;
    assert(preMapped.size() == unit.unit_->ownCount() && "preMapped has one entry per type");
    size_t seen = 0;
    for (TypeId id = 1; id <= preMapped.size(); ++id) {
        const TypeId target = preMapped[id - 1];
        if (target == kNotPreMapped)
            continue;
        assert(std::binary_search(placeholders.begin(), placeholders.end(), id) &&
               "only placeholders are pre-mapped");
        assert(target < ownEnd() && "pre-mapped to a merged type");
        map[id] = canonical(target);
        ++seen;
        if (!isOwn(map[id]))
            noteBaseMatch(map[id]);
        if (isOwn(target))
            continue;
        // Declarations taken for the base's definitions (not a reference into another unit,
        // which is anonymous, nor the base's declaration standing for a unit's own definition:
        // BaseDeclarations::referToDeclarations).
        const ir::Kind kind = unit.unit_->kind(id);
        if (kind == ir::Kind::Fwd && !unit.unit_->name(id).empty() &&
            base->kind(target) != ir::Kind::Fwd)
            earlyDeclarations.emplace(unit.unit_->name(id));
        if (lazyBase() && (kind == ir::Kind::Enum || kind == ir::Kind::Enum64)) {
            const auto [size, isDeclaration] = enumShape(*unit.unit_, id);
            if (isDeclaration)
                earlyEnums.emplace(unit.unit_->name(id), size);
        }
    }
    assert(seen == placeholders.size() && "every placeholder is pre-mapped");
    (void)seen;
}

// The hashes of mapped types come from the types they stand for, known only now; only the
// others are hashed. A lazy base's types hash alike in every round (worldRound).
void GraphMerger::State::hashMapped(PreparedUnit& unit) {
    std::vector<TypeId> free, varying;
    for (TypeId id = 1; id < map.size(); ++id) {
        if (map[id] == kUnmapped)
            free.push_back(id);
        else if (!lazyBase() || isOwn(map[id]))
            varying.push_back(id);
    }
    unit.hashes_ = detail::structuralHashesOf(
        unit.refs_, detail::kMatchRounds, free, varying, [&](uint32_t node, unsigned round) {
            return map[node] == kUnmapped ? 0 : worldRound(map[node], round);
        });
}

// detail::structuralHashes for one world type and round, memoised; recursion depth is bounded by
// the round. A lazy base's types are never hashed: each stands for itself (own types are matched
// by these hashes, and only ever equal own types; a base type met is already its own match).
uint64_t GraphMerger::State::worldRound(TypeId id, unsigned round) {
    if (id < worldFirst)
        return id == ir::kVoidType ? voidLabel().first
                                   : hashing::combine(0x9e3779b97f4a7c15ull, id);
    constexpr size_t kStride = detail::kMatchRounds + 1;
    if (roundSlot.size() < ownEnd())
        roundSlot.resize(ownEnd(), kNoSlot);
    uint32_t slot = roundSlot[id];
    if (slot == kNoSlot) {
        slot = roundSlot[id] = static_cast<uint32_t>(roundMemoDone.size());
        roundMemoDone.push_back(0);
        roundMemo.resize(roundMemo.size() + kStride);
    } else if (roundMemoDone[slot] >> round & 1) {
        return roundMemo[slot * kStride + round];
    }
    uint64_t hash = worldLabel(id).first;
    if (round > 0) {
        for (TypeId ref : worldRefs(id))
            hash = hashing::combine(hash, worldRound(ref, round - 1));
    }
    // Not a reference taken before the recursion: it may have grown the memo.
    roundMemo[size_t{slot} * kStride + round] = hash;
    roundMemoDone[slot] |= 1u << round;
    return hash;
}

// Walks the unit from `root` and the world from `target` in step, both through their RefGraphs.
// Succeeds (and commits the pairing) iff root and target are equivalent: every pair must have
// equal labels, and with the world minimal, a unit type paired with two world types, or with
// another than it already maps to, proves the start pair inequivalent.
// Each component in turn (those it refers to are settled by then): one with a named type is
// looked for by that name, a lone type whose references all matched base types by its shape.
// Any other cannot match: a minimal base has no cycle of anonymous types.
void GraphMerger::State::matchBase(const PreparedUnit& unit, uint32_t unitOrder) {
    const TypeGraph& graph = *unit.unit_;
    const std::vector<uint32_t>& starts = unit.componentStarts_;
    std::vector<TypeId> refs;
    for (size_t component = 0; component + 1 < starts.size(); ++component) {
        const std::span<const TypeId> members(unit.order_.data() + starts[component],
                                              starts[component + 1] - starts[component]);
        if (map[members.front()] != kUnmapped)
            continue; // a placeholder, or matched by a walk from an earlier component
        bool matched = false;
        auto tryCandidate = [&](TypeId root) {
            return [&, root](TypeId candidate) {
                matched = matchFrom(unit, root, candidate, unitOrder);
                return matched;
            };
        };
        auto named = std::find_if(members.begin(), members.end(),
                                  [&](TypeId id) { return BaseIndex::foundByName(graph, id); });
        if (named != members.end()) {
            baseIndex->forEachNamed(graph.kind(*named), graph.name(*named), tryCandidate(*named));
        } else if (members.size() == 1) {
            const TypeId id = members.front();
            refs.clear();
            bool settled = true;
            for (TypeId ref : unit.refs_.refs(id)) {
                settled = settled && map[ref] != kUnmapped && !isOwn(map[ref]);
                refs.push_back(map[ref]);
            }
            if (settled)
                baseIndex->forEachShaped(detail::shapeOf(graph, id, refs, base->strings()),
                                         tryCandidate(id));
        }
        if (!matched) {
            for (TypeId id : members)
                unmatchable[id] = 1;
        }
    }
}

bool GraphMerger::State::matchFrom(const PreparedUnit& unit, TypeId root, TypeId target,
                                   uint32_t unitOrder, bool ownOnly) {
    pending.assign(1, {root, target});
    touched.clear();
    bool ok = true;
    while (ok && !pending.empty()) {
        auto [node, candidate] = pending.back();
        pending.pop_back();
        if (map[node] != kUnmapped) {
            ok = map[node] == candidate;
        } else if (candidate == ir::kVoidType || unmatchable[node] ||
                   (ownOnly && !isOwn(candidate))) {
            ok = false;
        } else if (tentative[node] != kUnmapped) {
            ok = tentative[node] == candidate;
        } else {
            tentative[node] = candidate;
            touched.push_back(node);
            const std::span<const uint32_t> ours = unit.refs_.refs(node);
            const std::span<const uint32_t> theirs = worldRefs(candidate);
            ok = unit.refs_.label(node) == worldLabel(candidate) && ours.size() == theirs.size();
            for (size_t i = 0; ok && i < ours.size(); ++i) {
                // References already settled are checked here rather than queued.
                const TypeId settled = map[ours[i]];
                if (settled != kUnmapped)
                    ok = settled == theirs[i];
                else
                    pending.push_back({ours[i], theirs[i]});
            }
        }
    }
    for (TypeId node : touched) {
        if (ok) {
            const TypeId to = tentative[node];
            map[node] = to;
            if (isOwn(to))
                ownKey[to - firstOwn] = std::min(ownKey[to - firstOwn], unitKey(unitOrder, node));
            else
                noteBaseMatch(to);
        }
        tentative[node] = kUnmapped;
    }
    return ok;
}

void GraphMerger::State::appendUnmatched(const PreparedUnit& unit, uint32_t unitOrder) {
    const TypeGraph& graph = *unit.unit_;
    unmatched.clear();
    for (TypeId id = 1; id < map.size(); ++id) {
        if (map[id] == kUnmapped)
            unmatched.push_back(id);
    }
    if (unmatched.empty())
        return;
    classifyUnmatched(unit);
    const TypeId firstNew = ownEnd();
    for (TypeId id : unmatched)
        map[id] = firstNew + classOf[id];
    // Classes are numbered in order of their smallest member: that member gives the new type,
    // and only those members stay in `unmatched`.
    size_t classes = 0;
    for (TypeId id : unmatched) {
        if (classOf[id] == classes)
            unmatched[classes++] = id;
    }
    unmatched.resize(classes);
    // The world's nodes first: their label numbers say which new types bring a new label, whose
    // names are interned and which are copied into `labelled` (kNewLabel until then).
    newLabels.resize(classes);
    for (size_t i = 0; i < classes; ++i) {
        world.addCopy(unit.refs_, unmatched[i], map);
        const uint32_t label = world.labelNumber(world.size() - 1);
        if (label >= typeOfLabel.size())
            typeOfLabel.resize(world.labelCount(), ir::kVoidType);
        if (typeOfLabel[label] == ir::kVoidType)
            typeOfLabel[label] = kNewLabel;
        newLabels[i] = label;
    }
    internNames(graph);
    auto mapName = [&](ir::StrId name) { return internedName[name]; };
    auto mapRef = [&](TypeId ref) { return map[ref]; };
    constexpr size_t kSlotAhead = 8; // index slots are cache misses: start them early
    for (size_t i = 0; i < unmatched.size(); ++i) {
        if (!exact() && i + kSlotAhead < unmatched.size())
            index.prefetch(unit.hashes_[unmatched[i + kSlotAhead]]);
        const TypeId id = unmatched[i];
        TypeId& type = typeOfLabel[newLabels[i]];
        if (type == kNewLabel)
            type = copyType(graph, id, labelled, mapName, mapRef, lists);
        labelledOf.push_back(type);
        ownKey.push_back(unitKey(unitOrder, id));
        if (!exact())
            index.insert(unit.hashes_[id], firstNew + static_cast<TypeId>(i));
    }
    for (ir::StrId name : internedNames)
        internedName[name] = ir::kNoName;
    internedNames.clear();
}

// internedName for every name of the `unmatched` types that bring a new label, interned in the
// order copying them meets the names, all in one StringPool::internAll.
void GraphMerger::State::internNames(const TypeGraph& graph) {
    constexpr ir::StrId kPending = UINT32_MAX;
    internedName.resize(std::max<size_t>(internedName.size(), graph.strings().endId()));
    auto collect = [&](ir::StrId name) {
        if (name != ir::kNoName && internedName[name] == ir::kNoName) {
            internedName[name] = kPending;
            internedNames.push_back(name);
        }
        return name;
    };
    auto keepRef = [](TypeId ref) { return ref; };
    for (size_t i = 0; i < unmatched.size(); ++i) {
        if (typeOfLabel[newLabels[i]] == kNewLabel)
            graph.visit(unmatched[i],
                        [&](const auto& t) { ir::rewriteType(t, collect, keepRef, lists); });
    }
    nameTexts.clear();
    for (ir::StrId name : internedNames)
        nameTexts.push_back(graph.str(name));
    nameIds.resize(nameTexts.size());
    labelled.strings().internAll(nameTexts, nameIds);
    for (size_t i = 0; i < internedNames.size(); ++i)
        internedName[internedNames[i]] = nameIds[i];
}

// classOf[id] for each unmatched type: its class among them, numbered by smallest member.
void GraphMerger::State::classifyUnmatched(const PreparedUnit& unit) {
    classOf.resize(map.size());
    // Equivalent types have equal structural hashes: with all hashes distinct, every class is a
    // singleton. Types matched by exact hash are left each a class of its own, even equivalent
    // ones that hash apart: finish() joins them.
    std::vector<uint64_t> hashes;
    hashes.reserve(unmatched.size());
    for (TypeId id : exact() ? std::span<const TypeId>() : std::span<const TypeId>(unmatched))
        hashes.push_back(unit.hashes_[id]);
    std::sort(hashes.begin(), hashes.end());
    if (exact() || std::adjacent_find(hashes.begin(), hashes.end()) == hashes.end()) {
        for (uint32_t i = 0; i < unmatched.size(); ++i)
            classOf[unmatched[i]] = i;
        return;
    }
    // Refine the unmatched types, each merged type they refer to being a leaf of its own.
    const auto count = static_cast<uint32_t>(unmatched.size());
    detail::KeyNumbering leaves(map.size());
    std::vector<TypeId> local(map.size());
    for (uint32_t i = 0; i < count; ++i)
        local[unmatched[i]] = i;
    for (TypeId id = 0; id < map.size(); ++id) {
        if (map[id] != kUnmapped)
            local[id] = count + leaves.number(map[id]);
    }
    RefGraph graphOfUnmatched;
    for (TypeId id : unmatched)
        graphOfUnmatched.addCopy(unit.refs_, id, local);
    for (uint32_t leaf = 0; leaf < leaves.count(); ++leaf)
        graphOfUnmatched.addLeaf({});
    // Hashes have the top bit set, leaf numbers do not: no block holds both.
    detail::KeyNumbering numbers(graphOfUnmatched.size());
    std::vector<uint32_t> block(graphOfUnmatched.size());
    for (uint32_t i = 0; i < count; ++i)
        block[i] = numbers.number(unit.hashes_[unmatched[i]] | 1ull << 63);
    for (uint32_t leaf = 0; leaf < leaves.count(); ++leaf)
        block[count + leaf] = numbers.number(leaf);
    detail::refinePartition(graphOfUnmatched, block);
    detail::KeyNumbering classes(count);
    for (uint32_t i = 0; i < count; ++i)
        classOf[unmatched[i]] = classes.number(block[i]);
}
} // namespace btforge::dedup
