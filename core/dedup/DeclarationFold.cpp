// GraphMerger's last step of the partition: types that differ only where one has a declaration
// and the other a definition of its name, joined as libbpf's dedup joins them.
//
// The partition pairs each declaration with one definition (addContextualGroups), where libbpf
// compares a declaration as equal to any definition of its name and lets each type join the
// first kept type it equals. Where one declaration stands in for different definitions in
// different places, one pairing cannot serve them all. glibc declares `struct _IO_jump_t` in units
// of both of its worlds (`_IO_lock_t` void, or a struct), inside one `struct _IO_wide_data` they
// all share; paired with the void world's definition, the struct world's declaring units got an
// `_IO_FILE` of their own, with the struct lock but the void world's types behind it, where libbpf
// folds them into the struct world's.
#include "MergeState.h"
#include "PairWalk.h"
#include "StructuralHash.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <string_view>
#include <tuple>
#include <unordered_map>

namespace btforge::dedup {

using ir::Kind;
using ir::TypeId;

namespace detail {

// Union-find over classes, where the class that takes another stays its root: a class that took
// one keeps its own structure for the output, so it is pinned and congruence never gives it away.
class ClassForest {
public:
    explicit ClassForest(uint32_t classes) : parent_(classes), pinned_(classes, 0) {
        for (uint32_t c = 0; c < classes; ++c)
            parent_[c] = c;
    }
    uint32_t find(uint32_t c) {
        while (parent_[c] != c)
            c = parent_[c] = parent_[parent_[c]];
        return c;
    }
    void pin(uint32_t c) { pinned_[c] = 1; }
    bool pinned(uint32_t c) const { return pinned_[c]; }
    // `from` joins `into`; both roots.
    void join(uint32_t from, uint32_t into) {
        parent_[from] = into;
        pinned_[into] = pinned_[into] || pinned_[from];
    }

private:
    std::vector<uint32_t> parent_;
    std::vector<uint8_t> pinned_;
};

} // namespace detail

// Where a declaration may stand for a definition: the same name, a FWD of the definition's
// family (struct or union), or an enum without enumerators of its size. Only own declarations:
// the base's are final (findNameGroups).
bool GraphMerger::State::declares(uint32_t declaration, uint32_t definition) const {
    const TypeId id = idOf(declaration);
    if (!isOwn(id))
        return false;
    const TypeId decl = asLabelled(id), def = asLabelled(idOf(definition));
    const Kind declKind = labelled.kind(decl), defKind = labelled.kind(def);
    if (labelled.name(decl) != labelled.name(def) || labelled.name(decl).empty())
        return false;
    if (declKind == Kind::Fwd) {
        const bool isUnion = labelled.getAs<ir::FwdType>(decl).isUnion;
        return defKind == (isUnion ? Kind::Union : Kind::Struct);
    }
    if ((declKind != Kind::Enum && declKind != Kind::Enum64) ||
        (defKind != Kind::Enum && defKind != Kind::Enum64))
        return false;
    const auto [declSize, isDeclaration] = enumShape(labelled, decl);
    const auto [defSize, isDefinitionDeclaration] = enumShape(labelled, def);
    return isDeclaration && !isDefinitionDeclaration && declSize == defSize;
}

// libbpf's dedup then resolves a FWD of a name that has one struct or union left, the base's
// counted (btf_dedup_resolve_fwds), where no type using the declaration said which definition it
// stands for. vsftpd's units each define struct vsf_session, in variants the fold joins, and one
// only declares it for a function pointer typedef: that typedef is the definition's.
void GraphMerger::State::resolveUniqueDeclarations(std::span<const uint32_t> block,
                                                   std::span<const uint32_t> first,
                                                   std::span<const uint8_t> holdsBase,
                                                   detail::ClassForest& forest,
                                                   std::vector<uint32_t>& folded) const {
    struct Definitions {
        uint32_t count = 0; // own classes (the base's types are counted by its index)
        uint32_t last = 0;  // the last one's class
    };
    std::unordered_map<std::string_view, Definitions> byName;
    std::vector<uint32_t> declarations; // own FWD classes, in class order (deterministic joins)
    const auto classes = static_cast<uint32_t>(first.size());
    for (uint32_t cls = 0; cls < classes; ++cls) {
        if (first[cls] == UINT32_MAX || forest.find(cls) != cls || holdsBase[cls])
            continue;
        const TypeId type = asLabelled(idOf(first[cls]));
        const Kind kind = labelled.kind(type);
        if (labelled.name(type).empty())
            continue;
        if (kind == Kind::Fwd) {
            declarations.push_back(cls);
        } else if (kind == Kind::Struct || kind == Kind::Union) {
            Definitions& named = byName[labelled.name(type)];
            ++named.count;
            named.last = cls;
        }
    }
    for (uint32_t cls : declarations) {
        const TypeId type = asLabelled(idOf(first[cls]));
        const std::string_view name = labelled.name(type);
        const auto found = byName.find(name);
        const Definitions own = found == byName.end() ? Definitions{} : found->second;
        if (own.count > 1)
            continue;
        uint32_t definition = own.last, count = own.count;
        if (baseIndex) {
            for (Kind kind : {Kind::Struct, Kind::Union})
                baseIndex->forEachNamed(kind, name, [&](TypeId id) {
                    const uint32_t node = nodeOf(canonical(id));
                    definition = node == kNoNode ? UINT32_MAX : forest.find(block[node]);
                    return ++count > 1;
                });
        }
        if (count != 1 || definition == UINT32_MAX)
            continue;
        const bool isUnion = labelled.kind(asLabelled(idOf(first[definition]))) == Kind::Union;
        if (labelled.getAs<ir::FwdType>(type).isUnion != isUnion)
            continue;
        forest.pin(definition);
        forest.join(cls, definition);
        folded.push_back(cls);
    }
}

uint32_t GraphMerger::State::foldDeclarationVariants(std::vector<uint32_t>& block,
                                                     std::vector<uint8_t>& resolved,
                                                     uint32_t classes) const {
    const uint32_t nodes = world.size();
    // A class's first member as libbpf meets types (the base's, then the units' in input order).
    auto metAt = [&](uint32_t node) {
        const TypeId id = idOf(node);
        return isOwn(id) ? std::pair{1, ownKey[id - firstOwn]} : std::pair{0, uint64_t{id}};
    };
    // Each class's first member that is not an alias (all such are alike: it is also the class's
    // structure), and whether the class holds a base type (which nothing may join to another).
    constexpr uint32_t kNone = UINT32_MAX;
    std::vector<uint32_t> first(classes, kNone);
    std::vector<uint8_t> holdsBase(classes, 0);
    for (uint32_t node = 0; node < nodes; ++node) {
        const TypeId id = idOf(node);
        if (isHidden(id) || resolved[node])
            continue;
        const uint32_t cls = block[node];
        if (first[cls] == kNone || metAt(node) < metAt(first[cls]))
            first[cls] = node;
        holdsBase[cls] = holdsBase[cls] || !isOwn(id);
    }
    // Named structs and unions by what must be equal for libbpf to compare two: kind, name,
    // size, number of members. Only those with more than one class can fold.
    std::map<std::tuple<Kind, std::string_view, uint32_t, size_t>, std::vector<uint32_t>> alike;
    for (uint32_t cls = 0; cls < classes; ++cls) {
        if (first[cls] == kNone)
            continue;
        const TypeId type = asLabelled(idOf(first[cls]));
        const Kind kind = labelled.kind(type);
        if ((kind != Kind::Struct && kind != Kind::Union) || labelled.name(type).empty())
            continue;
        const size_t members = world.refs(first[cls]).size();
        alike[{kind, labelled.name(type), *ir::sizeOf(labelled, type), members}].push_back(cls);
    }
    detail::ClassForest forest(classes);
    for (uint32_t cls = 0; cls < classes; ++cls) {
        if (holdsBase[cls])
            forest.pin(cls);
    }
    // libbpf's equivalence walk: the candidate as its units wrote it, the kept type as kept (its
    // class's structure), each kept node seen as one candidate node only. Bounded per walk and
    // in all, as addContextualGroups' walks.
    std::unordered_map<uint32_t, uint32_t> candidateOf; // kept node -> candidate node
    std::vector<detail::PairStep> path;
    size_t stepsLeft = 20'000'000;
    auto equivalent = [&](uint32_t candidate, uint32_t kept) {
        candidateOf.clear();
        path.clear();
        size_t budget = 100000;
        auto enter = [&](uint32_t a, uint32_t b) {
            if (forest.find(block[a]) == forest.find(block[b]))
                return true;
            b = first[forest.find(block[b])];
            if (b == kNone)
                return false;
            const auto [at, fresh] = candidateOf.emplace(b, a);
            if (!fresh)
                return forest.find(block[at->second]) == forest.find(block[a]);
            if (budget == 0 || stepsLeft == 0)
                return false;
            --budget;
            --stepsLeft;
            if (world.label(a) != world.label(b))
                return declares(a, b) || declares(b, a);
            if (world.refs(a).size() != world.refs(b).size())
                return false;
            path.push_back({a, b, 0});
            return true;
        };
        return detail::walkPairs(world, path, candidate, kept, enter);
    };
    std::vector<uint32_t> folded; // classes that joined a kept one
    for (auto& [key, bucket] : alike) {
        if (bucket.size() < 2)
            continue;
        std::sort(bucket.begin(), bucket.end(),
                  [&](uint32_t a, uint32_t b) { return metAt(first[a]) < metAt(first[b]); });
        std::vector<uint32_t> kept;
        for (uint32_t cls : bucket) {
            const auto into = holdsBase[cls]
                                  ? kept.end()
                                  : std::find_if(kept.begin(), kept.end(), [&](uint32_t k) {
                                        return equivalent(first[cls], first[k]);
                                    });
            if (into == kept.end()) {
                kept.push_back(cls);
                continue;
            }
            forest.pin(*into);
            forest.join(cls, *into);
            folded.push_back(cls);
        }
    }
    resolveUniqueDeclarations(block, first, holdsBase, forest, folded);
    if (folded.empty())
        return classes;

    // Folded members stand for the kept class now, as a resolved declaration does.
    for (uint32_t node = 1; node < nodes; ++node) {
        if (forest.find(block[node]) != block[node])
            resolved[node] = 1;
    }
    // Congruence: types whose references now lie in joined classes become one (the pointers,
    // typedefs and prototypes of the folded structs). Worklist over the users of joined classes.
    std::vector<uint32_t> userStart(nodes + 1, 0), members(classes + 1, 0);
    for (uint32_t node = 1; node < nodes; ++node) {
        for (uint32_t ref : world.refs(node))
            ++userStart[ref];
        ++members[block[node]];
    }
    std::partial_sum(userStart.begin(), userStart.end(), userStart.begin());
    std::partial_sum(members.begin(), members.end(), members.begin());
    std::vector<uint32_t> users(userStart[nodes]), byClass(members[classes]);
    for (uint32_t node = 1; node < nodes; ++node) {
        for (uint32_t ref : world.refs(node))
            users[--userStart[ref]] = node;
        byClass[--members[block[node]]] = node;
    }
    auto participates = [&](uint32_t node) { return !isHidden(idOf(node)) && !resolved[node]; };
    auto signature = [&](uint32_t node) {
        uint64_t h = hashing::combine(world.label(node).first, world.refs(node).size());
        for (uint32_t ref : world.refs(node))
            h = hashing::combine(h, forest.find(block[ref]));
        return h;
    };
    auto congruent = [&](uint32_t a, uint32_t b) {
        if (world.label(a) != world.label(b) || world.refs(a).size() != world.refs(b).size())
            return false;
        for (size_t i = 0; i < world.refs(a).size(); ++i) {
            if (forest.find(block[world.refs(a)[i]]) != forest.find(block[world.refs(b)[i]]))
                return false;
        }
        return true;
    };
    std::unordered_map<uint64_t, std::vector<uint32_t>> bySignature;
    for (uint32_t node = 1; node < nodes; ++node) {
        if (participates(node))
            bySignature[signature(node)].push_back(node);
    }
    std::vector<uint32_t> pending;
    // The classes under each root that took others: when the root joins another class, the
    // users of all of them see new references.
    std::unordered_map<uint32_t, std::vector<uint32_t>> joinedUnder;
    for (uint32_t cls : folded)
        joinedUnder[forest.find(cls)].push_back(cls);
    auto enqueueUsers = [&](uint32_t root) {
        auto enqueue = [&](uint32_t cls) {
            for (uint32_t i = members[cls]; i < members[cls + 1]; ++i) {
                const uint32_t node = byClass[i];
                pending.insert(pending.end(), users.begin() + userStart[node],
                               users.begin() + userStart[node + 1]);
            }
        };
        enqueue(root);
        if (const auto under = joinedUnder.find(root); under != joinedUnder.end()) {
            for (uint32_t cls : under->second)
                enqueue(cls);
        }
    };
    auto join = [&](uint32_t from, uint32_t into) {
        forest.join(from, into);
        enqueueUsers(from);
        std::vector<uint32_t>& under = joinedUnder[into];
        under.push_back(from);
        if (const auto moved = joinedUnder.find(from); moved != joinedUnder.end()) {
            under.insert(under.end(), moved->second.begin(), moved->second.end());
            joinedUnder.erase(moved);
        }
    };
    for (uint32_t cls : folded)
        enqueueUsers(cls);
    while (!pending.empty()) {
        const uint32_t node = pending.back();
        pending.pop_back();
        if (!participates(node))
            continue;
        std::vector<uint32_t>& same = bySignature[signature(node)];
        for (uint32_t other : same) {
            const uint32_t a = forest.find(block[node]), b = forest.find(block[other]);
            if (a == b || !congruent(node, other) || (forest.pinned(a) && forest.pinned(b)))
                continue;
            // The pinned class, else the one met first, takes the other.
            const bool intoB =
                forest.pinned(b) || (!forest.pinned(a) && metAt(first[b]) < metAt(first[a]));
            join(intoB ? a : b, intoB ? b : a);
        }
        same.push_back(node);
    }
    // Dense numbers again, in the order of the roots.
    std::vector<uint32_t> number(classes, kNone);
    uint32_t count = 0;
    for (uint32_t cls = 0; cls < classes; ++cls) {
        if (forest.find(cls) == cls)
            number[cls] = count++;
    }
    for (uint32_t node = 0; node < nodes; ++node)
        block[node] = number[forest.find(block[node])];
    return count;
}

} // namespace btforge::dedup
