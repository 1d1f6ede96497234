// The state of a GraphMerger between calls, shared by the files of its two phases: merge()
// (UnitMerge.cpp), which matches each unit against the merged graph, and finish()
// (MergeFinish.cpp), which resolves declarations and minimises and numbers the result.
#pragma once

#include "../ir/TypeWalk.h"
#include "BaseIndex.h"
#include "BaseWorld.h"
#include "ExactIndex.h"
#include "dedup/GraphMerger.h"
#include "dedup/RefGraph.h"
#include "support/HashIndex.h"
#include "support/SparseIdMap.h"

#include "btforge/ir/ChunkedArena.h"

#include <cstdint>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace btforge::dedup {
namespace detail {

class ClassForest; // DeclarationFold.cpp

inline constexpr ir::TypeId kUnmapped = UINT32_MAX;

// Orders the final graph: the first unit type (in input order) a merged type stands for.
inline uint64_t unitKey(uint32_t unitOrder, ir::TypeId local) {
    return uint64_t{unitOrder} << 32 | local;
}

// Adds `from`'s type `id` to `to`, names through mapName, references through mapRef.
template <typename MapName, typename MapRef>
ir::TypeId copyType(const ir::TypeGraph& from, ir::TypeId id, ir::TypeGraph& to, MapName&& mapName,
                    MapRef&& mapRef, ir::ListScratch& lists) {
    return from.visit(
        id, [&](const auto& t) { return to.add(ir::rewriteType(t, mapName, mapRef, lists)); });
}

// Gives a container's memory back (clear() keeps the capacity).
template <typename T> void release(T& container) {
    container = T();
}

} // namespace detail

struct GraphMerger::State {
    State(std::shared_ptr<const ir::TypeGraph> baseGraph, bool lazyBase);

    std::vector<ir::TypeId> merge(PreparedUnit&& unit, uint32_t unitOrder,
                                  std::span<const ir::TypeId> preMapped);
    Result finish(plugin::TaskRunner* tasks);

    // Without a base, unit types are found by their exact hashes (ExactHash.h): those equal to
    // no merged type's are appended, equivalents that hash apart included, which finish()
    // merges. With one, they are matched by walks (a module's units meet the base's types,
    // found by name and shape).
    bool exact() const { return !base; }
    void matchExactly(PreparedUnit& unit, uint32_t unitOrder);

    // Merged and base types ("the world"): a base type stands for its smallest equivalent.
    bool isOwn(ir::TypeId id) const { return id >= firstOwn; }
    ir::TypeId canonical(ir::TypeId id) const {
        return isOwn(id) || baseRep.empty() ? id : baseRep[id];
    }
    // Over a base whose types are pairwise distinct (BaseIndex::minimal), base types are read
    // when first met and found by name or shape; `world` and `index` then hold own types only.
    bool lazyBase() const { return lazy; }
    // A world type's label and references (merged ids), whichever part of the world it is in.
    const LabelHash& worldLabel(ir::TypeId id) {
        return id < worldFirst ? baseWorld->label(id) : world.label(id - worldFirst);
    }
    std::span<const uint32_t> worldRefs(ir::TypeId id) {
        return id < worldFirst ? baseWorld->refs(id) : world.refs(id - worldFirst);
    }

    // --- merge() ---
    void preMap(const PreparedUnit& unit, std::span<const ir::TypeId> preMapped);
    // Hashes the unit, each type already mapped (a placeholder, or a lazy base's match) seen as
    // the world type it stands for.
    void hashMapped(PreparedUnit& unit);
    uint64_t worldRound(ir::TypeId id, unsigned round);
    void noteBaseMatch(ir::TypeId id) { baseMatched.emplace(id, 0); }
    // Over a lazy base: every component equivalent to a base type mapped to it.
    void matchBase(const PreparedUnit& unit, uint32_t unitOrder);
    // `ownOnly`: the base was matched already, so a type met unmapped is no base type's.
    bool matchFrom(const PreparedUnit& unit, ir::TypeId root, ir::TypeId target, uint32_t unitOrder,
                   bool ownOnly = false);
    void appendUnmatched(const PreparedUnit& unit, uint32_t unitOrder);
    void internNames(const ir::TypeGraph& graph);
    void classifyUnmatched(const PreparedUnit& unit);

    // finish() over a lazy base: a compact world of the own types and of the base types that
    // reach a base type findNameGroups() of the whole world would put in a group (only those can
    // share a class with an own type); the base types they refer to are leaves.
    std::vector<ir::TypeId> baseGroupMembers() const;
    bool earlyEnumRedefined() const;
    bool earlyDeclarationRedefined() const;
    void compactWorld(std::vector<ir::TypeId> baseTypes);
    // finish()'s world node of a merged id and back: the same number, but in a compact world
    // (kNoNode: a base type no type of the world refers to).
    static constexpr uint32_t kNoNode = support::SparseIdMap::kAbsent;
    bool compact() const { return !idOfNode.empty(); }
    uint32_t nodeOf(ir::TypeId id) const {
        if (!compact())
            return id;
        return isOwn(id) ? ownNodeOfId[id - firstOwn] : baseNodeOfId.find(id);
    }
    ir::TypeId idOf(uint32_t node) const { return compact() ? idOfNode[node] : node; }
    // Calls f(id) for each type that is a whole node of the world (not a leaf), in id order.
    template <typename F> void forEachWorldType(F&& f) const {
        const bool all = !compact();
        for (ir::TypeId id = 1; all && id < firstOwn; ++id)
            f(id);
        for (ir::TypeId id : baseInWorld)
            f(id);
        for (ir::TypeId id = firstOwn; id < ownEnd(); ++id)
            f(id);
    }

    // --- finish() ---
    // The own declarations of one name and the live definitions they may stand for, as a range
    // of `named`: definitions from `first`, declarations from `declarations` to `end`.
    struct NameGroup {
        uint64_t nominalHash;
        uint32_t first, declarations, end;
        bool open; // still possibly one class
        // Joined by addContextualGroups: its declarations are seen as its first definition,
        // which hashes by its structure (its name may have definitions outside the group that
        // are equal once the declarations join).
        bool byContext = false;
    };
    void findNameGroups(std::vector<uint32_t>& named, std::vector<NameGroup>& groups) const;
    std::vector<uint64_t> nominalHashes(std::span<const uint32_t> named,
                                        std::vector<NameGroup>& groups,
                                        plugin::TaskRunner* tasks) const;
    uint32_t partition(std::vector<uint32_t>& block, std::vector<uint8_t>& resolved,
                       plugin::TaskRunner* tasks);
    uint32_t refine(std::span<const uint32_t> named, std::vector<NameGroup>& groups,
                    std::vector<uint32_t>& block, std::vector<uint8_t>& resolved,
                    plugin::TaskRunner* tasks);
    bool addContextualGroups(std::span<const uint32_t> block, std::vector<uint32_t>& named,
                             std::vector<NameGroup>& groups, bool& cutShort) const;
    uint32_t splitEnumDeclarationUses(std::vector<uint32_t>& block,
                                      std::span<const uint8_t> resolved, uint32_t classes) const;
    bool declares(uint32_t declaration, uint32_t definition) const;
    uint32_t foldDeclarationVariants(std::vector<uint32_t>& block, std::vector<uint8_t>& resolved,
                                     uint32_t classes) const;
    void resolveUniqueDeclarations(std::span<const uint32_t> block, std::span<const uint32_t> first,
                                   std::span<const uint8_t> holdsBase, detail::ClassForest& forest,
                                   std::vector<uint32_t>& folded) const;
    // Base types other than the smallest of their class never appear in the world.
    bool isHidden(ir::TypeId id) const { return canonical(id) != id; }

    std::shared_ptr<const ir::TypeGraph> base;
    Declarations declarations = Declarations::ByContext;
    bool contextCutShort = false; // addContextualGroups ran out of steps
    // Over `base`: one type for each label own types have (kind, names, sizes, offsets), in the
    // order labels first appear. The kernel's variants of a struct differ only in what they refer
    // to (762,000 own types of vmlinux, 13,600 labels), so an own type is its label's type with the
    // world's references: only finish() reads types, and takes references from the world.
    ir::TypeGraph labelled;
    ir::TypeId firstOwn;
    ir::ChunkedArena<ir::TypeId> labelledOf; // by own id - firstOwn: its label's type
    ir::TypeId ownEnd() const { return firstOwn + labelledOf.size(); } // past the last own type
    std::vector<ir::TypeId> typeOfLabel; // by world label number: its type in `labelled`, or void
    // A world type as a type of `labelled` (base types are their own).
    ir::TypeId asLabelled(ir::TypeId id) const {
        return isOwn(id) ? labelledOf[id - firstOwn] : id;
    }
    std::vector<ir::TypeId> baseRep; // base id -> smallest equivalent base id; empty: itself
    std::shared_ptr<const BaseIndex> baseIndex; // over a base (BaseIndex::of)
    std::unique_ptr<BaseWorld> baseWorld;       // over a lazy base
    bool lazy = false;
    // The base ids a unit type was found to be (--stats): a few thousand of the base's, so not a
    // table by id, whose every page a run would touch.
    support::SparseIdMap baseMatched;
    // Enum declarations units resolved to the base's definition early (name, size; see
    // GraphMerger::Result::earlyEnumRedefined).
    std::set<std::pair<std::string, uint32_t>> earlyEnums;
    // Names of struct and union declarations units resolved to the base's definition early
    // (GraphMerger::Result::earlyDeclarationRedefined).
    std::set<std::string, std::less<>> earlyDeclarations;
    ir::TypeId worldFirst = 0;           // world node n is type worldFirst + n
    std::vector<uint32_t> ownNodeOfId;   // a compact world's node by own id - firstOwn
    support::SparseIdMap baseNodeOfId;   // and by base id (kNoNode: not in it)
    std::vector<ir::TypeId> baseInWorld; // the base types a compact world has whole, in id order
    std::vector<ir::TypeId> idOfNode;    // a compact world's merged id by node
    ir::ChunkedArena<uint64_t> ownKey;   // smallest unitKey standing for it, by own id - firstOwn
    support::HashIndex index; // over a base: canonical base types and own types by structural hash
    ExactIndex exactIndex;    // without one: own types by exact hash
    uint32_t byteOrderUnit = UINT32_MAX; // without a base, the first unit's byte order is kept
    // Labels and references of the world by id (node i is type i): what walks and the final
    // partition read. References are canonical, base types' included.
    RefGraph world{RefGraph::Labels::Shared};

    // Per-round hashes of world types, for placeholders; filled on demand. A unit over a base
    // reaches few of its types, so each world type reached gets a slot of (kMatchRounds + 1)
    // hashes when first reached (a hash map of (id, round) cost a tenth of a module's run).
    static constexpr uint32_t kNoSlot = UINT32_MAX;
    std::vector<uint32_t> roundSlot;     // by world id: its slot, or kNoSlot
    std::vector<uint64_t> roundMemo;     // (kMatchRounds + 1) per slot
    std::vector<uint32_t> roundMemoDone; // by slot, bit r: round r is in roundMemo

    // merge() scratch, by unit type id; kept across units so merging does not allocate.
    std::vector<ir::TypeId> map;       // committed: merged id, or kUnmapped
    std::vector<ir::TypeId> tentative; // the walk in progress
    std::vector<uint8_t> unmatchable;
    std::vector<ir::TypeId> touched;
    std::vector<ir::TypeId> unmatched;
    std::vector<uint32_t> newLabels; // by index in `unmatched`: its world label number
    static constexpr ir::TypeId kNewLabel = UINT32_MAX; // in typeOfLabel: not copied yet
    std::vector<uint32_t> classOf;
    std::vector<std::pair<ir::TypeId, ir::TypeId>> pending;
    ir::ListScratch lists;
    // The names of a unit's new types interned into the merged graph, by unit StrId (kNoName:
    // not one of them), and which those are: they share many names, and interning one costs a
    // hash and a cache miss or two.
    std::vector<ir::StrId> internedName;
    std::vector<ir::StrId> internedNames;
    std::vector<std::string_view> nameTexts; // of internedNames, for internAll
    std::vector<ir::StrId> nameIds;
};

} // namespace btforge::dedup
