// Incremental merging keeps one invariant: the merged graph, together with the base's classes,
// is minimal (no two of its types are equivalent). Then a unit type is equivalent to at most one
// merged type, and a simultaneous walk of the unit and the merged graph from a candidate pair
// (same structural hash) decides equivalence exactly: it must pair labels that match and may
// never pair one unit type with two merged types. Unit types no walk matched are equivalent to
// nothing merged; they are minimised among themselves and appended, one type per class.
#include "dedup/GraphMerger.h"

#include "HashIndex.h"
#include "PartitionRefinement.h"
#include "StructuralHash.h"
#include "TypeLabel.h"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

namespace btforge::dedup {
namespace {

using ir::Kind;
using ir::TypeGraph;
using ir::TypeId;

constexpr TypeId kUnmapped = UINT32_MAX;

// Rounds of the hashes finish() starts refining from. Refinement is exact whatever the start:
// more rounds split more blocks by hashing, fewer leave more to refinement rounds.
constexpr unsigned kFinishRounds = 8;

// Orders the final graph: the first unit type (in input order) a merged type stands for.
uint64_t unitKey(uint32_t unitOrder, TypeId local) {
    return uint64_t{unitOrder} << 32 | local;
}

// The unit's strongly connected components, each after every component it refers to (Tarjan's
// algorithm, iteratively). A component matches whole or not at all: a walk from any member
// reaches all the others.
void findComponents(const RefGraph& g, std::vector<TypeId>& order, std::vector<uint32_t>& starts) {
    constexpr uint32_t kUnvisited = UINT32_MAX;
    const uint32_t count = g.size();
    std::vector<uint32_t> index(count, kUnvisited);
    std::vector<uint32_t> low(count);
    std::vector<uint32_t> open; // visited nodes not yet in a component, in visiting order
    std::vector<uint8_t> isOpen(count, 0);
    std::vector<std::pair<uint32_t, uint32_t>> frames; // node, index of its next reference
    uint32_t visited = 0;
    order.reserve(count);
    starts.assign(1, 0);
    auto enter = [&](uint32_t node) {
        index[node] = low[node] = visited++;
        open.push_back(node);
        isOpen[node] = 1;
        frames.push_back({node, 0});
    };
    for (uint32_t root = 1; root < count; ++root) {
        if (index[root] != kUnvisited)
            continue;
        enter(root);
        while (!frames.empty()) {
            auto [node, next] = frames.back();
            std::span<const uint32_t> refs = g.refs(node);
            if (next < refs.size()) {
                ++frames.back().second;
                const uint32_t ref = refs[next];
                if (ref == ir::kVoidType)
                    continue;
                if (index[ref] == kUnvisited)
                    enter(ref);
                else if (isOpen[ref])
                    low[node] = std::min(low[node], index[ref]);
                continue;
            }
            frames.pop_back();
            if (!frames.empty())
                low[frames.back().first] = std::min(low[frames.back().first], low[node]);
            if (low[node] != index[node])
                continue;
            uint32_t member;
            do {
                member = open.back();
                open.pop_back();
                isOpen[member] = 0;
                order.push_back(member);
            } while (member != node);
            starts.push_back(static_cast<uint32_t>(order.size()));
        }
    }
}

std::vector<uint32_t> blocksByHash(std::span<const uint64_t> hashes) {
    detail::KeyNumbering numbers(hashes.size());
    std::vector<uint32_t> block(hashes.size());
    for (size_t node = 0; node < hashes.size(); ++node)
        block[node] = numbers.number(hashes[node]);
    return block;
}

// Adds `from`'s type `id` to `to`, names through mapName, references through mapRef.
template <typename MapName, typename MapRef>
TypeId copyType(const TypeGraph& from, TypeId id, TypeGraph& to, MapName&& mapName, MapRef&& mapRef,
                detail::ListScratch& lists) {
    return from.visit(
        id, [&](const auto& t) { return to.add(detail::rewriteType(t, mapName, mapRef, lists)); });
}

// Gives a container's memory back (clear() keeps the capacity).
template <typename T> void release(T& container) {
    container = T();
}

} // namespace

size_t PreparedUnit::memoryUsage() const {
    return refs_.memoryUsage() + hashes_.capacity() * sizeof(uint64_t) +
           order_.capacity() * sizeof(TypeId) + componentStarts_.capacity() * sizeof(uint32_t) +
           placeholders_.capacity() * sizeof(TypeId);
}

struct GraphMerger::State {
    explicit State(std::shared_ptr<const TypeGraph> baseGraph);

    std::vector<TypeId> merge(PreparedUnit&& unit, uint32_t unitOrder,
                              std::span<const TypeId> preMapped);
    Result finish(plugin::TaskRunner* tasks);
    size_t memoryUsage() const;

    // Merged and base types ("the world"): a base type stands for its smallest equivalent.
    bool isOwn(TypeId id) const { return id >= firstOwn; }
    TypeId canonical(TypeId id) const { return isOwn(id) ? id : baseRep[id]; }

    // --- merge() ---
    void preMap(const PreparedUnit& unit, std::span<const TypeId> preMapped);
    void hashWithPlaceholders(PreparedUnit& unit);
    uint64_t worldRound(TypeId id, unsigned round);
    bool matchFrom(const PreparedUnit& unit, TypeId root, TypeId target, uint32_t unitOrder);
    void appendUnmatched(const PreparedUnit& unit, uint32_t unitOrder);
    void internNames(const TypeGraph& graph);
    void classifyUnmatched(const PreparedUnit& unit);

    // --- finish() ---
    // The own declarations of one name and the live definitions they may stand for, as a range
    // of `named`: definitions from `first`, declarations from `declarations` to `end`.
    struct NameGroup {
        uint64_t nominalHash;
        uint32_t first, declarations, end;
        bool open; // still possibly one class
    };
    void findNameGroups(std::vector<TypeId>& named, std::vector<NameGroup>& groups) const;
    std::vector<uint64_t> nominalHashes(std::span<const TypeId> named,
                                        std::vector<NameGroup>& groups,
                                        plugin::TaskRunner* tasks) const;
    uint32_t partition(std::vector<uint32_t>& block, std::vector<uint8_t>& resolved,
                       plugin::TaskRunner* tasks);
    uint32_t refine(std::span<const TypeId> named, std::vector<NameGroup>& groups,
                    std::vector<uint32_t>& block, std::vector<uint8_t>& resolved,
                    plugin::TaskRunner* tasks);
    bool addContextualGroups(std::span<const uint32_t> block, std::vector<TypeId>& named,
                             std::vector<NameGroup>& groups) const;
    // Base types other than the smallest of their class never appear in the world.
    bool isHidden(TypeId id) const { return !isOwn(id) && baseRep[id] != id; }

    std::shared_ptr<const TypeGraph> base;
    Declarations declarations = Declarations::ByContext;
    TypeGraph merged; // over `base`
    TypeId firstOwn;
    std::vector<TypeId> baseRep;         // base id -> smallest equivalent base id
    ir::ChunkedArena<uint64_t> ownKey;   // smallest unitKey standing for it, by own id - firstOwn
    detail::HashIndex index;             // canonical base types and own types by structural hash
    uint32_t byteOrderUnit = UINT32_MAX; // without a base, the first unit's byte order is kept
    // Labels and references of the world by id (node i is type i): what walks and the final
    // partition read. References are canonical, base types' included.
    RefGraph world;

    // Per-round hashes of world types, for placeholders; filled on demand.
    std::vector<uint64_t> roundMemo;     // (kMatchRounds + 1) per id
    std::vector<uint16_t> roundMemoDone; // bit r: round r of that id is in roundMemo

    // merge() scratch, by unit type id; kept across units so merging does not allocate.
    std::vector<TypeId> map;       // committed: merged id, or kUnmapped
    std::vector<TypeId> tentative; // the walk in progress
    std::vector<uint8_t> unmatchable;
    std::vector<TypeId> touched;
    std::vector<TypeId> unmatched;
    std::vector<uint32_t> classOf;
    std::vector<std::pair<TypeId, TypeId>> pending;
    detail::ListScratch lists;
    // The names of a unit's new types interned into the merged graph, by unit StrId (kNoName:
    // not one of them), and which those are: they share many names, and interning one costs a
    // hash and a cache miss or two.
    std::vector<ir::StrId> internedName;
    std::vector<ir::StrId> internedNames;
    std::vector<std::string_view> nameTexts; // of internedNames, for internAll
    std::vector<ir::StrId> nameIds;
};

GraphMerger::State::State(std::shared_ptr<const TypeGraph> baseGraph)
    : base(std::move(baseGraph)), merged(base), firstOwn(merged.firstId()),
      baseRep(firstOwn, ir::kVoidType) {
    world.addLeaf(voidLabel());
    if (!base)
        return;
    // The base need not be minimal (btf__dedup leaves some duplicates): group it into classes,
    // and let the smallest id of each stand for it, so the world stays minimal.
    for (TypeId id = 1; id < firstOwn; ++id)
        world.addType(*base, id);
    const std::vector<uint64_t> hashes = detail::structuralHashes(world, detail::kMatchRounds);
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

// --- merge ---

std::vector<TypeId> GraphMerger::State::merge(PreparedUnit&& unit, uint32_t unitOrder,
                                              std::span<const TypeId> preMapped) {
    if (!unit.unit_)
        throw std::invalid_argument("GraphMerger::merge: the unit was not prepared");
    const uint32_t count = unit.unit_->ownCount();
    if (!base && unitOrder < byteOrderUnit) {
        byteOrderUnit = unitOrder;
        merged.setTargetAs(*unit.unit_);
    }
    map.assign(count + 1, kUnmapped);
    map[ir::kVoidType] = ir::kVoidType;
    tentative.assign(count + 1, kUnmapped);
    unmatchable.assign(count + 1, 0);
    preMap(unit, preMapped);
    if (unit.hashes_.empty())
        hashWithPlaceholders(unit);

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
    for (size_t component = 0; component < components; ++component) {
        if (component + kSlotAhead < components)
            index.prefetch(rootHash(component + kSlotAhead));
        if (component + kNodeAhead < components)
            world.prefetchNode(firstCandidate(component + kNodeAhead));
        if (component + kRefsAhead < components)
            world.prefetchRefs(firstCandidate(component + kRefsAhead));
        const TypeId first = unit.order_[starts[component]];
        if (map[first] != kUnmapped)
            continue; // a placeholder
        bool matched = false;
        index.forEach(unit.hashes_[first], [&](TypeId candidate) {
            matched = matchFrom(unit, first, candidate, unitOrder);
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

void GraphMerger::State::preMap(const PreparedUnit& unit, std::span<const TypeId> preMapped) {
    const std::vector<TypeId>& placeholders = unit.placeholders_;
    if (preMapped.empty() && placeholders.empty())
        return;
    if (preMapped.size() != unit.unit_->ownCount())
        throw std::invalid_argument("GraphMerger::merge: preMapped needs one entry per type");
    size_t seen = 0;
    for (TypeId id = 1; id <= preMapped.size(); ++id) {
        const TypeId target = preMapped[id - 1];
        if (target == kNotPreMapped)
            continue;
        if (!std::binary_search(placeholders.begin(), placeholders.end(), id))
            throw std::invalid_argument("GraphMerger::merge: type " + std::to_string(id) +
                                        " is pre-mapped but was not prepared as a placeholder");
        if (target >= merged.endId())
            throw std::invalid_argument("GraphMerger::merge: type " + std::to_string(id) +
                                        " is pre-mapped to unknown id " + std::to_string(target));
        map[id] = canonical(target);
        ++seen;
    }
    if (seen != placeholders.size())
        throw std::invalid_argument("GraphMerger::merge: a placeholder has no preMapped target");
}

// Placeholder hashes come from the types they stand for, known only now.
void GraphMerger::State::hashWithPlaceholders(PreparedUnit& unit) {
    const std::vector<TypeId>& placeholders = unit.placeholders_;
    unit.hashes_ = detail::structuralHashes(
        unit.refs_, detail::kMatchRounds, placeholders,
        [&](size_t i, unsigned round) { return worldRound(map[placeholders[i]], round); });
}

// detail::structuralHashes for one world type and round, memoised; recursion depth is bounded by
// the round.
uint64_t GraphMerger::State::worldRound(TypeId id, unsigned round) {
    constexpr size_t kStride = detail::kMatchRounds + 1;
    if (roundMemoDone.size() < merged.endId()) {
        roundMemoDone.resize(merged.endId(), 0);
        roundMemo.resize(size_t{merged.endId()} * kStride);
    }
    if (roundMemoDone[id] >> round & 1)
        return roundMemo[id * kStride + round];
    uint64_t hash = world.label(id).first;
    if (round > 0) {
        for (TypeId ref : world.refs(id))
            hash = detail::combine(hash, worldRound(ref, round - 1));
    }
    roundMemo[id * kStride + round] = hash;
    roundMemoDone[id] |= static_cast<uint16_t>(1u << round);
    return hash;
}

// Walks the unit from `root` and the world from `target` in step, both through their RefGraphs.
// Succeeds (and commits the pairing) iff root and target are equivalent: every pair must have
// equal labels, and with the world minimal, a unit type paired with two world types, or with
// another than it already maps to, proves the start pair inequivalent.
bool GraphMerger::State::matchFrom(const PreparedUnit& unit, TypeId root, TypeId target,
                                   uint32_t unitOrder) {
    pending.assign(1, {root, target});
    touched.clear();
    bool ok = true;
    while (ok && !pending.empty()) {
        auto [node, candidate] = pending.back();
        pending.pop_back();
        if (map[node] != kUnmapped) {
            ok = map[node] == candidate;
        } else if (candidate == ir::kVoidType || unmatchable[node]) {
            ok = false;
        } else if (tentative[node] != kUnmapped) {
            ok = tentative[node] == candidate;
        } else {
            tentative[node] = candidate;
            touched.push_back(node);
            const std::span<const uint32_t> ours = unit.refs_.refs(node);
            const std::span<const uint32_t> theirs = world.refs(candidate);
            ok = unit.refs_.label(node) == world.label(candidate) && ours.size() == theirs.size();
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
    const TypeId firstNew = merged.endId();
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
    internNames(graph);
    auto mapName = [&](ir::StrId name) { return internedName[name]; };
    auto mapRef = [&](TypeId ref) { return map[ref]; };
    constexpr size_t kSlotAhead = 8; // index slots are cache misses: start them early
    for (size_t i = 0; i < unmatched.size(); ++i) {
        if (i + kSlotAhead < unmatched.size())
            index.prefetch(unit.hashes_[unmatched[i + kSlotAhead]]);
        const TypeId id = unmatched[i];
        copyType(graph, id, merged, mapName, mapRef, lists);
        world.addCopy(unit.refs_, id, map);
        ownKey.push_back(unitKey(unitOrder, id));
        index.insert(unit.hashes_[id], firstNew + static_cast<TypeId>(i));
    }
    for (ir::StrId name : internedNames)
        internedName[name] = ir::kNoName;
    internedNames.clear();
}

// internedName for every name of the `unmatched` types, interned in the order copying them meets
// the names, all in one StringPool::internAll.
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
    for (TypeId id : unmatched)
        graph.visit(id, [&](const auto& t) { detail::rewriteType(t, collect, keepRef, lists); });
    nameTexts.clear();
    for (ir::StrId name : internedNames)
        nameTexts.push_back(graph.str(name));
    nameIds.resize(nameTexts.size());
    merged.strings().internAll(nameTexts, nameIds);
    for (size_t i = 0; i < internedNames.size(); ++i)
        internedName[internedNames[i]] = nameIds[i];
}

// classOf[id] for each unmatched type: its class among them, numbered by smallest member.
void GraphMerger::State::classifyUnmatched(const PreparedUnit& unit) {
    classOf.resize(map.size());
    // Equivalent types have equal hashes: with all hashes distinct, every class is a singleton.
    std::vector<uint64_t> hashes;
    hashes.reserve(unmatched.size());
    for (TypeId id : unmatched)
        hashes.push_back(unit.hashes_[id]);
    std::sort(hashes.begin(), hashes.end());
    if (std::adjacent_find(hashes.begin(), hashes.end()) == hashes.end()) {
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

// --- finish ---

// Own declarations (FWD; ENUM or ENUM64 without enumerators) with the live definitions of their
// name: STRUCT or UNION as the FWD says, enums of the same size.
void GraphMerger::State::findNameGroups(std::vector<TypeId>& named,
                                        std::vector<NameGroup>& groups) const {
    struct Entry {
        ir::StrId name; // one id per name (see below)
        uint32_t size;  // enums: declaration and definition must agree on it
        Kind family;    // STRUCT, UNION or ENUM (ENUM64 included)
        bool isDeclaration;
        TypeId id;
        auto key() const { return std::tie(family, size, name); }
    };
    std::vector<Entry> entries;
    for (TypeId id = 1; id < merged.endId(); ++id) {
        const Kind kind = merged.kind(id);
        if (kind != Kind::Struct && kind != Kind::Union && kind != Kind::Fwd &&
            kind != Kind::Enum && kind != Kind::Enum64)
            continue;
        if (isHidden(id) || merged.nameId(id) == ir::kNoName)
            continue;
        Entry entry{merged.nameId(id), 0, kind, false, id};
        merged.visit(id, [&](const auto& t) {
            if constexpr (requires { t.isUnion; }) {
                entry.family = t.isUnion ? Kind::Union : Kind::Struct;
                entry.isDeclaration = true;
            } else if constexpr (requires { t.values; }) {
                entry.family = Kind::Enum;
                entry.size = t.size;
                entry.isDeclaration = t.values.empty();
            }
        });
        if (entry.isDeclaration && !isOwn(id))
            continue; // the base is final: its declarations stay
        // Own names were interned, so a name has one id, unless the base (read from BTF as it
        // was) spells it at two offsets: base names take the id interning would give them.
        if (!isOwn(id))
            entry.name = *merged.strings().find(merged.name(id));
        entries.push_back(entry);
    }
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
        return std::tie(a.family, a.size, a.name, a.isDeclaration, a.id) <
               std::tie(b.family, b.size, b.name, b.isDeclaration, b.id);
    });
    for (size_t first = 0, end; first < entries.size(); first = end) {
        end = first + 1;
        while (end < entries.size() && entries[end].key() == entries[first].key())
            ++end;
        size_t declarations = first; // definitions sort first
        while (declarations < end && !entries[declarations].isDeclaration)
            ++declarations;
        if (declarations == first || declarations == end)
            continue;
        const auto at = static_cast<uint32_t>(named.size());
        for (size_t i = first; i < end; ++i)
            named.push_back(entries[i].id);
        const Entry& e = entries[first];
        const uint64_t nominal = detail::combine(uint64_t{e.name} << 32 | e.size,
                                                 static_cast<uint64_t>(e.family) | 1ull << 63);
        groups.push_back(
            {nominal, at, at + uint32_t(declarations - first), at + uint32_t(end - first), true});
    }
}

// Structural hashes of the world in which every type of an open name is seen by its name alone,
// so types that differ only in declaration against definition hash alike. A name whose
// definitions still hash apart has more than one class: close it and hash again, which may close
// more.
std::vector<uint64_t> GraphMerger::State::nominalHashes(std::span<const TypeId> named,
                                                        std::vector<NameGroup>& groups,
                                                        plugin::TaskRunner* tasks) const {
    std::vector<TypeId> nominal; // the types of open names
    std::vector<uint64_t> nominalHash;
    std::vector<uint64_t> hashes;
    for (bool closed = true; closed;) {
        nominal.clear();
        nominalHash.clear();
        for (const NameGroup& group : groups) {
            for (uint32_t i = group.first; group.open && i < group.end; ++i) {
                nominal.push_back(named[i]);
                nominalHash.push_back(group.nominalHash);
            }
        }
        hashes = detail::structuralHashes(
            world, kFinishRounds, nominal, [&](size_t i, unsigned) { return nominalHash[i]; },
            tasks);
        closed = false;
        for (NameGroup& group : groups) {
            for (uint32_t i = group.first + 1; group.open && i < group.declarations; ++i) {
                if (hashes[named[i]] != hashes[named[group.first]]) {
                    group.open = false;
                    closed = true;
                }
            }
        }
    }
    return hashes;
}

// libbpf's dedup, which pahole encodes kernels with, takes a declaration for a definition of its
// name when a type using the declaration is otherwise equal to one using that definition: most
// units see `struct of_bus;` in struct of_pci_range_parser, the one defining it sees one of two
// different struct of_bus. So a declaration of a name with several definitions joins one of
// them when every type that differs from another only there pairs it with that one definition:
// a new open group of the two. Returns whether there is one.
bool GraphMerger::State::addContextualGroups(std::span<const uint32_t> block,
                                             std::vector<TypeId>& named,
                                             std::vector<NameGroup>& groups) const {
    std::unordered_map<TypeId, uint32_t> closedDeclarations; // FWD -> its group
    for (uint32_t g = 0; g < groups.size(); ++g) {
        for (uint32_t i = groups[g].declarations; !groups[g].open && i < groups[g].end; ++i) {
            if (merged.kind(named[i]) == Kind::Fwd)
                closedDeclarations.emplace(named[i], g);
        }
    }
    if (closedDeclarations.empty())
        return false;
    auto isDefinitionOf = [&](TypeId definition, TypeId declaration) {
        const NameGroup& group = groups[closedDeclarations.at(declaration)];
        return std::find(named.begin() + group.first, named.begin() + group.declarations,
                         definition) != named.begin() + group.declarations;
    };
    // Whether two types are equal once closed declarations may stand for definitions of their
    // name, the pairs that takes noted in `pairs`: libbpf's equivalence walk, pairs already met
    // assumed equal (cycles), bounded so that a pathological graph costs little.
    std::vector<std::pair<TypeId, TypeId>> pairs;
    std::vector<std::pair<TypeId, TypeId>> toCompare;
    std::unordered_set<uint64_t> assumed;
    auto equalButDeclarations = [&](TypeId first, TypeId second) {
        pairs.clear();
        assumed.clear();
        toCompare.assign(1, {first, second});
        for (size_t budget = 100000; !toCompare.empty(); --budget) {
            auto [a, b] = toCompare.back();
            toCompare.pop_back();
            if (block[a] == block[b] || !assumed.insert(uint64_t{a} << 32 | b).second)
                continue;
            if (budget == 0)
                return false;
            if (world.label(a) != world.label(b)) {
                if (closedDeclarations.contains(b))
                    std::swap(a, b);
                if (!closedDeclarations.contains(a) || !isDefinitionOf(b, a))
                    return false;
                pairs.emplace_back(a, b);
                continue;
            }
            auto refsA = world.refs(a);
            auto refsB = world.refs(b);
            if (refsA.size() != refsB.size())
                return false;
            for (size_t i = 0; i < refsA.size(); ++i)
                toCompare.emplace_back(refsA[i], refsB[i]);
        }
        return true;
    };
    auto membersOf = [&](TypeId id) {
        return merged.visit(id, [](const auto& t) -> std::span<const ir::Member> {
            if constexpr (requires { t.members; })
                return t.members;
            else
                return {};
        });
    };
    // Named structs and unions by what must be equal for a pairing: kind, name, size, members.
    std::map<std::tuple<Kind, std::string_view, uint32_t, size_t>, std::vector<TypeId>> alike;
    for (TypeId id = 1; id < merged.endId(); ++id) {
        const Kind kind = merged.kind(id);
        if ((kind == Kind::Struct || kind == Kind::Union) && !isHidden(id) &&
            merged.nameId(id) != ir::kNoName) {
            alike[{kind, merged.name(id), *ir::sizeOf(merged, id), membersOf(id).size()}].push_back(
                id);
        }
    }
    // Proposals are by class: the merged graph is not minimal yet, and a class's copies must
    // all hash alike in the next partition (a definition hashed by its name alone would part
    // from its own copies otherwise).
    std::map<uint32_t, std::set<uint32_t>> proposals; // declaration block -> definition blocks
    std::map<uint32_t, uint32_t> groupOf;             // declaration block -> its closed group
    for (const auto& [key, ids] : alike) {
        for (size_t i = 0; i < ids.size(); ++i) {
            for (size_t j = i + 1; j < ids.size(); ++j) {
                if (block[ids[i]] == block[ids[j]] || !equalButDeclarations(ids[i], ids[j]))
                    continue;
                for (const auto& [declaration, definition] : pairs) {
                    proposals[block[declaration]].insert(block[definition]);
                    groupOf[block[declaration]] = closedDeclarations.at(declaration);
                }
            }
        }
    }
    // (closed group, definition block) -> the declaration blocks joining it
    std::map<std::pair<uint32_t, uint32_t>, std::set<uint32_t>> joining;
    for (const auto& [declarations, definitions] : proposals) {
        if (definitions.size() == 1)
            joining[{groupOf.at(declarations), *definitions.begin()}].insert(declarations);
    }
    for (const auto& [where, declarationBlocks] : joining) {
        const auto& [g, definitionBlock] = where;
        const NameGroup closed = groups[g];
        const auto at = static_cast<uint32_t>(named.size());
        for (uint32_t i = closed.first; i < closed.declarations; ++i) {
            if (block[named[i]] == definitionBlock)
                named.push_back(named[i]);
        }
        const auto declarationsAt = static_cast<uint32_t>(named.size());
        for (uint32_t i = closed.declarations; i < closed.end; ++i) {
            if (declarationBlocks.contains(block[named[i]]))
                named.push_back(named[i]);
        }
        groups.push_back({detail::combine(closed.nominalHash, definitionBlock), at, declarationsAt,
                          static_cast<uint32_t>(named.size()), true});
    }
    return !joining.empty();
}

// The coarsest stable partition of the world in which each declaration joins its definitions
// when they all end in one class (`resolved` says which did), declarations of names with
// several definitions included where the types using them say which (addContextualGroups).
// Returns the number of blocks.
uint32_t GraphMerger::State::partition(std::vector<uint32_t>& block, std::vector<uint8_t>& resolved,
                                       plugin::TaskRunner* tasks) {
    std::vector<TypeId> named;
    std::vector<NameGroup> groups;
    findNameGroups(named, groups);
    uint32_t blocks = refine(named, groups, block, resolved, tasks);
    if (declarations == Declarations::ByContext && addContextualGroups(block, named, groups))
        blocks = refine(named, groups, block, resolved, tasks);
    return blocks;
}

uint32_t GraphMerger::State::refine(std::span<const TypeId> named, std::vector<NameGroup>& groups,
                                    std::vector<uint32_t>& block, std::vector<uint8_t>& resolved,
                                    plugin::TaskRunner* tasks) {
    const TypeId end = merged.endId();
    detail::Aliases aliases;
    {
        const std::vector<uint64_t> hashes = nominalHashes(named, groups, tasks);
        for (const NameGroup& group : groups) {
            if (!group.open)
                continue;
            std::span<const TypeId> definitions(named.data() + group.first,
                                                group.declarations - group.first);
            for (uint32_t i = group.declarations; i < group.end; ++i)
                aliases.add(named[i], definitions);
        }
        std::vector<uint8_t> alone(end, 0); // hidden types, and aliases until they follow
        for (TypeId id = 1; id < end; ++id)
            alone[id] = isHidden(id);
        for (size_t i = 0; i < aliases.size(); ++i)
            alone[aliases.node(i)] = 1;
        // Most types hash alike here (the variants declarations made): the table grows to the
        // distinct hashes instead of being sized for every type.
        detail::KeyNumbering numbers(0);
        block.resize(end);
        for (TypeId id = 0; id < end; ++id)
            block[id] = alone[id] ? numbers.fresh() : numbers.number(hashes[id]);
    }
    const uint32_t blocks = detail::refinePartition(world, block, aliases);
    resolved.assign(end, 0);
    for (size_t i = 0; i < aliases.size(); ++i)
        resolved[aliases.node(i)] = block[aliases.node(i)] == block[aliases.candidates(i)[0]];
    return blocks;
}

GraphMerger::Result GraphMerger::State::finish(plugin::TaskRunner* tasks) {
    // Give back what only merging needed before the partition allocates.
    release(index);
    release(roundMemo);
    release(roundMemoDone);
    release(map);
    release(tentative);
    release(unmatchable);
    release(classOf);
    release(internedName);
    const TypeId end = merged.endId();
    std::vector<uint32_t> block;
    std::vector<uint8_t> resolved;
    const uint32_t classes = partition(block, resolved, tasks);
    release(world);

    // A class holding a base type is that type; the others become new types, ordered by the
    // first unit type any of their members (resolved declarations included) stood for.
    std::vector<TypeId> finalOf(classes, kUnmapped);
    for (TypeId id = 0; id < firstOwn; ++id) {
        if (!isHidden(id))
            finalOf[block[id]] = id;
    }
    std::vector<uint64_t> classKey(classes, UINT64_MAX);
    std::vector<TypeId> classRep(classes, ir::kVoidType);
    for (TypeId id = firstOwn; id < end; ++id) {
        const uint32_t cls = block[id];
        classKey[cls] = std::min(classKey[cls], ownKey[id - firstOwn]);
        if (classRep[cls] == ir::kVoidType && !resolved[id])
            classRep[cls] = id;
    }
    std::vector<uint32_t> fresh;
    for (uint32_t cls = 0; cls < classes; ++cls) {
        if (finalOf[cls] == kUnmapped && classRep[cls] != ir::kVoidType)
            fresh.push_back(cls);
    }
    std::sort(fresh.begin(), fresh.end(),
              [&](uint32_t a, uint32_t b) { return classKey[a] < classKey[b]; });
    for (uint32_t i = 0; i < fresh.size(); ++i)
        finalOf[fresh[i]] = firstOwn + i;

    auto finalId = [&](TypeId id) { return finalOf[block[canonical(id)]]; };
    Result result{TypeGraph(base), {}};
    result.graph.setTargetAs(merged);
    result.graph.reserve(fresh.size());
    auto mapName = [&](ir::StrId name) { return result.graph.intern(merged.str(name)); };
    for (uint32_t cls : fresh)
        copyType(merged, classRep[cls], result.graph, mapName, finalId, lists);
    result.finalIdOfProvisional.resize(end);
    for (TypeId id = 0; id < end; ++id)
        result.finalIdOfProvisional[id] = finalId(id);
    return result;
}

size_t GraphMerger::State::memoryUsage() const {
    auto bytes = [](const auto& v) { return v.capacity() * sizeof(v[0]); };
    return merged.memoryUsage() + world.memoryUsage() + bytes(baseRep) + ownKey.memoryUsage() +
           index.memoryUsage() + bytes(roundMemo) + bytes(roundMemoDone) + bytes(map) +
           bytes(tentative) + bytes(unmatchable) + bytes(touched) + bytes(unmatched) +
           bytes(classOf) + bytes(pending) + bytes(internedName) + bytes(internedNames) +
           bytes(nameTexts) + bytes(nameIds);
}

// --- GraphMerger ---

GraphMerger::GraphMerger(std::shared_ptr<const TypeGraph> base, Declarations declarations)
    : state_(std::make_unique<State>(std::move(base))) {
    state_->declarations = declarations;
}
GraphMerger::GraphMerger(GraphMerger&&) noexcept = default;
GraphMerger& GraphMerger::operator=(GraphMerger&&) noexcept = default;
GraphMerger::~GraphMerger() = default;

PreparedUnit GraphMerger::prepare(const TypeGraph& unit, std::span<const TypeId> placeholders) {
    if (unit.base() || unit.firstId() != 1)
        throw std::invalid_argument("GraphMerger::prepare: a unit graph must be standalone");
    const uint32_t count = unit.ownCount();
    PreparedUnit prepared;
    prepared.unit_ = &unit;
    prepared.placeholders_.assign(placeholders.begin(), placeholders.end());
    std::sort(prepared.placeholders_.begin(), prepared.placeholders_.end());
    prepared.placeholders_.erase(
        std::unique(prepared.placeholders_.begin(), prepared.placeholders_.end()),
        prepared.placeholders_.end());
    if (!prepared.placeholders_.empty() &&
        (prepared.placeholders_.front() == ir::kVoidType || prepared.placeholders_.back() > count))
        throw std::invalid_argument("GraphMerger::prepare: a placeholder is not a unit type");

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
    findComponents(refs, prepared.order_, prepared.componentStarts_);
    if (prepared.placeholders_.empty())
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

uint32_t GraphMerger::provisionalCount() const {
    return state_->merged.ownCount();
}

size_t GraphMerger::memoryUsage() const {
    return state_->memoryUsage();
}

} // namespace btforge::dedup
