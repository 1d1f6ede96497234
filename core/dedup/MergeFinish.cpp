// GraphMerger's finish(): declarations resolved to the definitions they stand for, the whole
// graph minimised by partition refinement, and types numbered by the first unit type
// each stands for, so that the result does not depend on the order units were merged in.
#include "MergeState.h"
#include "PairWalk.h"
#include "PartitionRefinement.h"
#include "StructuralHash.h"
#include "TypeLabel.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

namespace btforge::dedup {
namespace {

using detail::copyType;
using detail::kUnmapped;
using detail::release;
using ir::Kind;
using ir::TypeGraph;
using ir::TypeId;

// Rounds of the hashes finish() starts refining from. Refinement is exact whatever the start:
// more rounds split more blocks by hashing, fewer leave more to refinement rounds.
constexpr unsigned kFinishRounds = 8;

// Verdicts on unordered pairs of world nodes (below 2^31), in one flat open-addressing table: a
// slot holds the pair, smaller node first, and the verdict in its top bit. The walks of a Rust
// kernel's units leave millions of them.
class PairVerdicts {
public:
    std::optional<bool> find(uint32_t a, uint32_t b) const {
        const uint64_t key = keyOf(a, b);
        for (size_t i = slotOf(key);; i = (i + 1) & (slots_.size() - 1)) {
            if (slots_[i] == kEmpty)
                return std::nullopt;
            if ((slots_[i] & ~kEqual) == key)
                return (slots_[i] & kEqual) != 0;
        }
    }
    // Keeps the first verdict on a pair.
    void emplace(uint32_t a, uint32_t b, bool equal) {
        if ((used_ + 1) * 2 > slots_.size())
            grow();
        place(keyOf(a, b) | (equal ? kEqual : 0));
    }

private:
    static constexpr uint64_t kEqual = uint64_t{1} << 63;
    static constexpr uint64_t kEmpty = ~uint64_t{0}; // no pair: its upper half would be 2^32 - 1
    static uint64_t keyOf(uint32_t a, uint32_t b) {
        return uint64_t{std::min(a, b)} << 32 | std::max(a, b);
    }
    size_t slotOf(uint64_t key) const { return (key * 0x9e3779b97f4a7c15ull) >> shift_; }
    void place(uint64_t slot) {
        size_t i = slotOf(slot & ~kEqual);
        for (; slots_[i] != kEmpty; i = (i + 1) & (slots_.size() - 1)) {
            if ((slots_[i] & ~kEqual) == (slot & ~kEqual))
                return;
        }
        slots_[i] = slot;
        ++used_;
    }
    void grow() {
        std::vector<uint64_t> old(slots_.size() * 2, kEmpty);
        old.swap(slots_);
        --shift_;
        used_ = 0;
        for (uint64_t slot : old) {
            if (slot != kEmpty)
                place(slot);
        }
    }
    std::vector<uint64_t> slots_ = std::vector<uint64_t>(1024, kEmpty);
    unsigned shift_ = 64 - 10; // log2 of the slots, from the top of the hash
    size_t used_ = 0;
};

} // namespace

// Own declarations (FWD; ENUM or ENUM64 without enumerators) with the live definitions of their
// name: STRUCT or UNION as the FWD says, enums of the same size. `named` gets their nodes.
void GraphMerger::State::findNameGroups(std::vector<uint32_t>& named,
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
    // A compact world has every base type of a group (baseGroupMembers()).
    forEachWorldType([&](TypeId id) {
        const TypeId type = asLabelled(id);
        const Kind kind = labelled.kind(type);
        if (kind != Kind::Struct && kind != Kind::Union && kind != Kind::Fwd &&
            kind != Kind::Enum && kind != Kind::Enum64)
            return;
        if (isHidden(id) || labelled.nameId(type) == ir::kNoName)
            return;
        Entry entry{labelled.nameId(type), 0, kind, false, id};
        labelled.visit(type, [&](const auto& t) {
            if constexpr (requires { t.isUnion; }) {
                entry.family = t.isUnion ? Kind::Union : Kind::Struct;
                entry.isDeclaration = true;
            } else if constexpr (requires { t.values; }) {
                entry.family = Kind::Enum;
                entry.size = t.size;
                entry.isDeclaration = t.values.empty();
            }
        });
        // The base is final: its declarations stay, and a definition a unit adds for one of its
        // structs or unions makes the base's types using it differ from the unit's (libbpf's
        // dedup too). But libbpf takes an enum declaration as compatible with any definition of
        // its name and size: a unit's types using the definition join the base's using the
        // declaration, while the definition stays the unit's (see finish()).
        if (entry.isDeclaration && !isOwn(id) && entry.family != Kind::Enum)
            return;
        // Own names were interned, so a name has one id, unless the base (read from BTF as it
        // was) spells it at two offsets: base names take the id interning would give them.
        if (!isOwn(id))
            entry.name = *labelled.strings().find(labelled.name(type));
        entries.push_back(entry);
    });
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
            named.push_back(nodeOf(entries[i].id));
        const Entry& e = entries[first];
        const uint64_t nominal = hashing::combine(uint64_t{e.name} << 32 | e.size,
                                                  static_cast<uint64_t>(e.family) | 1ull << 63);
        groups.push_back(
            {nominal, at, at + uint32_t(declarations - first), at + uint32_t(end - first), true});
    }
}

// Structural hashes of the world in which every type of an open name is seen by its name alone,
// so types that differ only in declaration against definition hash alike, and a declaration
// joined by context is seen as its definition (hashed by structure: a definition of its name
// outside the group may become equal to it only once the declaration joins). A name whose
// definitions still hash apart has more than one class: close it and hash again, which may close
// more.
std::vector<uint64_t> GraphMerger::State::nominalHashes(std::span<const uint32_t> named,
                                                        std::vector<NameGroup>& groups,
                                                        plugin::TaskRunner* tasks) const {
    std::vector<uint32_t> nominal; // the types of open names
    std::vector<uint64_t> nominalHash;
    std::vector<detail::Mirror> joined; // declarations joined by context
    std::vector<uint64_t> hashes;
    for (bool closed = true; closed;) {
        nominal.clear();
        nominalHash.clear();
        joined.clear();
        for (const NameGroup& group : groups) {
            for (uint32_t i = group.first; group.open && !group.byContext && i < group.end; ++i) {
                nominal.push_back(named[i]);
                nominalHash.push_back(group.nominalHash);
            }
            for (uint32_t i = group.declarations; group.open && group.byContext && i < group.end;
                 ++i)
                joined.emplace_back(named[i], named[group.first]);
        }
        hashes = detail::structuralHashes(
            world, kFinishRounds, nominal, [&](size_t i, unsigned) { return nominalHash[i]; },
            tasks, joined);
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
                                             std::vector<uint32_t>& named,
                                             std::vector<NameGroup>& groups, bool& cutShort) const {
    // Own declarations (FWD, enum without enumerators) of closed groups: node -> its group.
    std::unordered_map<uint32_t, uint32_t> closedDeclarations;
    for (uint32_t g = 0; g < groups.size(); ++g) {
        for (uint32_t i = groups[g].declarations; !groups[g].open && i < groups[g].end; ++i) {
            if (isOwn(idOf(named[i])))
                closedDeclarations.emplace(named[i], g);
        }
    }
    if (closedDeclarations.empty())
        return false;
    auto isDefinitionOf = [&](uint32_t definition, uint32_t declaration) {
        const NameGroup& group = groups[closedDeclarations.at(declaration)];
        return std::find(named.begin() + group.first, named.begin() + group.declarations,
                         definition) != named.begin() + group.declarations;
    };
    // Whether two types are equal once closed declarations may stand for definitions of their
    // name, the pairs that takes noted in `pairs`: libbpf's equivalence walk, pairs already met
    // assumed equal (cycles). Bounded so that a pathological graph costs little: each walk, and
    // all of them together (hundreds of variants of one struct, as a kernel's Rust units make,
    // are compared pairwise); past the total, no more pairs are proposed. A C kernel's walks
    // take a few dozen steps.
    std::vector<std::pair<uint32_t, uint32_t>> pairs;
    std::unordered_set<uint64_t> assumed;
    // What earlier walks found, by pair. Unequal: the pair that differs and every pair the walk
    // went through to reach it. Equal: every pair of a walk that found its types equal (all it
    // met is equal then, and the pairs it noted are proposed already). amdgpu.ko's variants of
    // struct dc_link and of the hundreds of structs around it are compared pairwise, and each
    // pair's walk goes through the same pairs of the others.
    PairVerdicts known;
    // Only pairs of structs and unions are remembered, a tenth of the pairs walks meet: the
    // walks between them are short, and a lookup per step cost more than it saved (Rust units).
    std::vector<bool> composite(world.size());
    for (uint32_t node = 0; node < world.size(); ++node) {
        const Kind kind = labelled.kind(asLabelled(idOf(node)));
        composite[node] = kind == Kind::Struct || kind == Kind::Union;
    }
    std::vector<detail::PairStep> path;
    size_t stepsLeft = 20'000'000;
    auto equalButDeclarations = [&](uint32_t first, uint32_t second) {
        pairs.clear();
        assumed.clear();
        path.clear();
        size_t budget = 100000;
        bool exhausted = false; // a bound, not a difference, ended the walk
        // Whether a pair may be equal; one whose references must be compared too goes on the path.
        auto enter = [&](uint32_t a, uint32_t b) {
            if (block[a] == block[b] || !assumed.insert(uint64_t{a} << 32 | b).second)
                return true;
            if (composite[a]) {
                if (const std::optional<bool> verdict = known.find(a, b))
                    return *verdict;
            }
            if (budget == 0 || stepsLeft == 0) {
                cutShort = cutShort || stepsLeft == 0;
                exhausted = true;
                return false;
            }
            --budget;
            --stepsLeft;
            if (world.label(a) != world.label(b)) {
                if (closedDeclarations.contains(b))
                    std::swap(a, b);
                if (closedDeclarations.contains(a) && isDefinitionOf(b, a)) {
                    pairs.emplace_back(a, b);
                    return true;
                }
            } else if (world.refs(a).size() == world.refs(b).size()) {
                path.push_back({a, b, 0});
                return true;
            }
            if (composite[a])
                known.emplace(a, b, false);
            return false;
        };
        const bool equal = detail::walkPairs(world, path, first, second, enter);
        if (equal) {
            for (uint64_t met : assumed) {
                if (composite[met >> 32])
                    known.emplace(uint32_t(met >> 32), uint32_t(met), true);
            }
        } else if (!exhausted) {
            for (const detail::PairStep& step : path) {
                if (composite[step.a])
                    known.emplace(step.a, step.b, false);
            }
        }
        return equal;
    };
    auto membersOf = [&](TypeId id) {
        return labelled.visit(asLabelled(id), [](const auto& t) -> std::span<const ir::Member> {
            if constexpr (requires { t.members; })
                return t.members;
            else
                return {};
        });
    };
    // Named structs and unions by what must be equal for a pairing: kind, name, size, members.
    // A base type a compact world leaves out pairs with no own one here: the pairs a walk notes
    // hold a definition of a closed group, which such a type does not reach.
    std::map<std::tuple<Kind, std::string_view, uint32_t, size_t>, std::vector<uint32_t>> alike;
    forEachWorldType([&](TypeId id) {
        const TypeId type = asLabelled(id);
        const Kind kind = labelled.kind(type);
        if ((kind == Kind::Struct || kind == Kind::Union) && !isHidden(id) &&
            labelled.nameId(type) != ir::kNoName) {
            alike[{kind, labelled.name(type), *ir::sizeOf(labelled, type), membersOf(id).size()}]
                .push_back(nodeOf(id));
        }
    });
    // Proposals are by class: the merged graph is not minimal yet, and a class's copies must
    // all hash alike in the next partition (a definition hashed by its name alone would part
    // from its own copies otherwise).
    std::map<uint32_t, std::set<uint32_t>> proposals; // declaration block -> definition blocks
    std::map<uint32_t, uint32_t> groupOf;             // declaration block -> its closed group
    for (const auto& [key, ids] : alike) {
        for (size_t i = 0; i < ids.size() && stepsLeft > 0; ++i) {
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
    // Where several definitions fit, the one met first: libbpf's dedup compares each type with
    // the equal-looking ones it kept before, in order (the base's, then the units' in input
    // order), and keeps the first that is equal. Not by node: nodes follow the merge order.
    auto metAt = [&](uint32_t node) {
        const TypeId id = idOf(node);
        return isOwn(id) ? std::pair{1, ownKey[id - firstOwn]} : std::pair{0, uint64_t{id}};
    };
    auto firstMet = [&](uint32_t g, const std::set<uint32_t>& definitions) {
        std::optional<uint32_t> first;
        for (uint32_t i = groups[g].first; i < groups[g].declarations; ++i) {
            if (definitions.contains(block[named[i]]) &&
                (!first || metAt(named[i]) < metAt(*first)))
                first = named[i];
        }
        return block[*first];
    };
    // (closed group, definition block) -> the declaration blocks joining it
    std::map<std::pair<uint32_t, uint32_t>, std::set<uint32_t>> joining;
    for (const auto& [declarations, definitions] : proposals) {
        const uint32_t g = groupOf.at(declarations);
        joining[{g, firstMet(g, definitions)}].insert(declarations);
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
        groups.push_back({hashing::combine(closed.nominalHash, definitionBlock), at, declarationsAt,
                          static_cast<uint32_t>(named.size()), true, true});
    }
    return !joining.empty();
}

// The coarsest stable partition of the world in which each declaration joins its definitions
// when they all end in one class (`resolved` says which did), declarations of names with
// several definitions included where the types using them say which (addContextualGroups).
// Returns the number of blocks.
uint32_t GraphMerger::State::partition(std::vector<uint32_t>& block, std::vector<uint8_t>& resolved,
                                       plugin::TaskRunner* tasks) {
    std::vector<uint32_t> named;
    std::vector<NameGroup> groups;
    findNameGroups(named, groups);
    uint32_t blocks = refine(named, groups, block, resolved, tasks);
    // Definitions alike kFinishRounds references deep still hash alike, but refinement parts
    // them: their name is then closed, as if the hashes had (the result must not depend on how
    // deep hashes reach, nor on how much of a base the world holds).
    for (NameGroup& group : groups) {
        for (uint32_t i = group.first + 1; group.open && i < group.declarations; ++i)
            group.open = block[named[i]] == block[named[group.first]];
    }
    if (declarations == Declarations::ByContext &&
        addContextualGroups(block, named, groups, contextCutShort))
        blocks = refine(named, groups, block, resolved, tasks);
    return blocks;
}

uint32_t GraphMerger::State::refine(std::span<const uint32_t> named, std::vector<NameGroup>& groups,
                                    std::vector<uint32_t>& block, std::vector<uint8_t>& resolved,
                                    plugin::TaskRunner* tasks) {
    const uint32_t end = world.size();
    detail::Aliases aliases;
    {
        const std::vector<uint64_t> hashes = nominalHashes(named, groups, tasks);
        for (const NameGroup& group : groups) {
            if (!group.open)
                continue;
            std::span<const uint32_t> definitions(named.data() + group.first,
                                                  group.declarations - group.first);
            for (uint32_t i = group.declarations; i < group.end; ++i)
                aliases.add(named[i], definitions);
        }
        std::vector<uint8_t> alone(end, 0); // hidden types, and aliases until they follow
        for (uint32_t node = 1; node < end; ++node)
            alone[node] = isHidden(idOf(node));
        for (size_t i = 0; i < aliases.size(); ++i)
            alone[aliases.node(i)] = 1;
        // Most own types hash alike here (the variants declarations made): the table grows to
        // the distinct hashes instead of being sized for every type. Over a base whose types
        // are pairwise distinct (BaseIndex::minimal), a base type's hash is numbered through
        // the table only if an own type has it too: the others start a block of their own, as
        // refinement would leave them anyway, and the table stays the size of the own types'
        // hashes (sized for every base type, it took 4 MB where all of a vmlinux was read).
        const bool distinctBase = baseIndex && baseIndex->minimal();
        std::unordered_set<uint64_t> ownHashes;
        for (uint32_t node = 0; distinctBase && node < end; ++node) {
            if (!alone[node] && isOwn(idOf(node)))
                ownHashes.insert(hashes[node]);
        }
        detail::KeyNumbering numbers(distinctBase ? ownHashes.size() : compact() ? end : firstOwn);
        block.resize(end);
        for (uint32_t node = 0; node < end; ++node) {
            const bool numbered = !alone[node] && (!distinctBase || isOwn(idOf(node)) ||
                                                   ownHashes.contains(hashes[node]));
            block[node] = numbered ? numbers.number(hashes[node]) : numbers.fresh();
        }
    }
    const uint32_t blocks = detail::refinePartition(world, block, aliases);
    resolved.assign(end, 0);
    for (size_t i = 0; i < aliases.size(); ++i)
        resolved[aliases.node(i)] = block[aliases.node(i)] == block[aliases.candidates(i)[0]];
    return blocks;
}

// libbpf's dedup matches structs and unions by walking them, where a base enum declaration
// equals a unit's definition of its name, but other types by the ids they name, where the two
// differ: a unit's pointer, qualifier, typedef, array or prototype that reaches such a definition
// through types of those kinds stays the unit's, even where its twin in the base is otherwise
// equal (kvm.ko's copy of a function pointer type of vmlinux's struct kvm_x86_ops, whose
// `enum x86_intercept_stage` vmlinux only declares). Such types leave their base class for
// classes of their own, alike ones together. Returns the number of classes.
uint32_t GraphMerger::State::splitEnumDeclarationUses(std::vector<uint32_t>& block,
                                                      std::span<const uint8_t> resolved,
                                                      uint32_t classes) const {
    std::vector<uint8_t> joinedEnum(classes, 0), inBase(classes, 0);
    bool any = false;
    const uint32_t nodes = world.size();
    for (uint32_t node = 1; node < nodes; ++node) {
        const TypeId id = idOf(node);
        if (isOwn(id) || isHidden(id))
            continue;
        if (!resolved[node]) {
            inBase[block[node]] = 1;
        } else if (labelled.kind(id) == Kind::Enum || labelled.kind(id) == Kind::Enum64) {
            joinedEnum[block[node]] = 1;
            any = true;
        }
    }
    if (!any)
        return classes;
    // Own types of those kinds whose class is a base one.
    auto candidate = [&](uint32_t node) {
        const TypeId id = idOf(node);
        const Kind kind = labelled.kind(asLabelled(id));
        return isOwn(id) && !isHidden(id) && inBase[block[node]] &&
               (ir::isReferenceKind(kind) || kind == Kind::Array || kind == Kind::Func ||
                kind == Kind::FuncProto || kind == Kind::DeclTag);
    };
    // Such types form no cycle (one goes through a struct or union): new classes are made
    // depth first, by the old class and the classes of what the type names.
    std::vector<uint8_t> state(nodes, 0); // 1: being visited, 2: done
    std::map<std::vector<uint32_t>, uint32_t> split;
    std::vector<std::pair<uint32_t, size_t>> stack;
    for (TypeId rootId = firstOwn; rootId < ownEnd(); ++rootId) {
        const uint32_t root = nodeOf(rootId);
        if (state[root] || !candidate(root))
            continue;
        stack.assign(1, {root, 0});
        state[root] = 1;
        while (!stack.empty()) {
            auto& [node, next] = stack.back();
            auto refs = world.refs(node);
            if (next < refs.size()) {
                const uint32_t ref = refs[next++];
                if (!state[ref] && candidate(ref)) {
                    state[ref] = 1;
                    stack.emplace_back(ref, 0);
                }
                continue;
            }
            std::vector<uint32_t> key{block[node]};
            bool reaches = false;
            for (uint32_t ref : refs) {
                // Past `classes`: a type split off already, which reaches such a definition.
                reaches |= block[ref] >= classes || joinedEnum[block[ref]];
                key.push_back(block[ref]);
            }
            state[node] = 2;
            const uint32_t done = node;
            stack.pop_back();
            if (reaches)
                block[done] =
                    split.try_emplace(std::move(key), classes + split.size()).first->second;
        }
    }
    return classes + static_cast<uint32_t>(split.size());
}

// The base types findNameGroups() of the whole world would put in a group: the base's
// definitions of a name an own FWD or enum declaration declares, and a base enum declaration with
// the definitions of its name and size when any type defines it. In id order.
std::vector<TypeId> GraphMerger::State::baseGroupMembers() const {
    std::vector<TypeId> members;
    // Appends the base's definitions of `name` (enums: of `size` too); whether there is one.
    auto baseDefinitions = [&](Kind family, std::string_view name, uint32_t size) {
        const size_t before = members.size();
        auto definition = [&](TypeId id) {
            if (family != Kind::Enum || enumShape(*base, id) == std::pair{size, false})
                members.push_back(id);
            return false;
        };
        baseIndex->forEachNamed(family, name, definition);
        if (family == Kind::Enum)
            baseIndex->forEachNamed(Kind::Enum64, name, definition);
        return members.size() > before;
    };
    std::set<std::pair<std::string_view, uint32_t>> ownEnumDefinitions; // name, size
    for (TypeId id = firstOwn; id < ownEnd(); ++id) {
        const TypeId type = asLabelled(id);
        const Kind kind = labelled.kind(type);
        const std::string_view name = labelled.name(type);
        if (name.empty())
            continue;
        if (kind == Kind::Fwd) {
            baseDefinitions(labelled.getAs<ir::FwdType>(type).isUnion ? Kind::Union : Kind::Struct,
                            name, 0);
        } else if (kind == Kind::Enum || kind == Kind::Enum64) {
            const auto [size, isDeclaration] = enumShape(labelled, type);
            if (!isDeclaration)
                ownEnumDefinitions.emplace(name, size);
            else
                baseDefinitions(Kind::Enum, name, size);
        }
    }
    for (TypeId id : baseIndex->enumDeclarations()) {
        const uint32_t size = enumShape(*base, id).first;
        if (baseDefinitions(Kind::Enum, base->name(id), size) ||
            ownEnumDefinitions.contains({base->name(id), size}))
            members.push_back(id);
    }
    std::sort(members.begin(), members.end());
    members.erase(std::unique(members.begin(), members.end()), members.end());
    return members;
}

namespace {

// The types of `base` from which one of `targets` can be reached through references (the
// targets included), in id order. Types outside merging refer to nothing here: no own type can
// share a class with them.
std::vector<TypeId> typesReaching(const TypeGraph& base, std::span<const TypeId> targets) {
    if (targets.empty())
        return {};
    const TypeId end = base.endId();
    auto forEachEdge = [&](auto&& f) {
        for (TypeId id = 1; id < end; ++id) {
            if (!BaseIndex::outsideMerging(base, id))
                ir::forEachReference(base, id, [&](TypeId ref) { f(id, ref); });
        }
    };
    // Who refers to each type: users[first[t], first[t + 1]).
    std::vector<uint32_t> first(size_t{end} + 1, 0);
    forEachEdge([&](TypeId, TypeId ref) { ++first[ref]; });
    std::partial_sum(first.begin(), first.end(), first.begin());
    std::vector<TypeId> users(first[end]);
    forEachEdge([&](TypeId id, TypeId ref) { users[--first[ref]] = id; });
    std::vector<uint8_t> reached(end, 0);
    std::vector<TypeId> pending(targets.begin(), targets.end());
    for (TypeId id : targets)
        reached[id] = 1;
    while (!pending.empty()) {
        const TypeId id = pending.back();
        pending.pop_back();
        for (uint32_t i = first[id]; i < first[id + 1]; ++i) {
            if (!reached[users[i]]) {
                reached[users[i]] = 1;
                pending.push_back(users[i]);
            }
        }
    }
    std::vector<TypeId> reaching;
    for (TypeId id = 1; id < end; ++id) {
        if (reached[id])
            reaching.push_back(id);
    }
    return reaching;
}

} // namespace

// Void, the own types, the base types given, then the base types those refer to as leaves: each
// of these its own class. A base type that reaches no declaration group can only stay its own
// class (the merge matched every own type equal to a base one), so the world needs only the
// base types that reach one: a module defining an enum vmlinux only declares (nf_nat_h323.ko)
// takes 8 of the base's 95,246 types instead of all (3 MB of nodes, and hashes and blocks).
void GraphMerger::State::compactWorld(std::vector<TypeId> baseTypes) {
    idOfNode.assign(1, ir::kVoidType);
    baseNodeOfId.emplace(ir::kVoidType, 0);
    ownNodeOfId.reserve(ownEnd() - firstOwn);
    for (TypeId id = firstOwn; id < ownEnd(); ++id) {
        ownNodeOfId.push_back(static_cast<uint32_t>(idOfNode.size()));
        idOfNode.push_back(id);
    }
    auto placeBase = [&](TypeId id) {
        if (!isOwn(id) && baseNodeOfId.emplace(id, idOfNode.size()).second)
            idOfNode.push_back(id);
    };
    for (TypeId id : baseTypes)
        placeBase(id);
    const auto leaves = static_cast<uint32_t>(idOfNode.size());
    for (uint32_t node = 0; node < world.size(); ++node) {
        for (TypeId ref : world.refs(node))
            placeBase(ref);
    }
    for (TypeId id : baseTypes)
        ir::forEachReference(*base, id, placeBase);
    RefGraph compactGraph(RefGraph::Labels::Shared);
    compactGraph.addLeaf(voidLabel());
    std::vector<uint32_t> refs;
    auto addRemapped = [&](const LabelHash& label) {
        for (uint32_t& ref : refs)
            ref = nodeOf(ref);
        compactGraph.addNode(label, refs);
    };
    for (uint32_t node = 0; node < world.size(); ++node) {
        const std::span<const uint32_t> from = world.refs(node);
        refs.assign(from.begin(), from.end());
        addRemapped(world.label(node));
    }
    for (TypeId id : baseTypes) {
        refs.clear();
        addRemapped(detail::labelOf(*base, id, refs));
    }
    for (uint32_t node = leaves; node < idOfNode.size(); ++node) {
        const TypeId id = idOfNode[node];
        compactGraph.addLeaf({hashing::combine(0x7f4a7c159e3779b9ull, id),
                              hashing::combine(0x94d049bb133111ebull, id)});
    }
    world = std::move(compactGraph);
    baseInWorld = std::move(baseTypes);
    worldFirst = 0;
    lazy = false;
    baseWorld.reset();
}

bool GraphMerger::State::earlyEnumRedefined() const {
    for (TypeId id = firstOwn; !earlyEnums.empty() && id < ownEnd(); ++id) {
        const TypeId type = asLabelled(id);
        const Kind kind = labelled.kind(type);
        if (kind != Kind::Enum && kind != Kind::Enum64)
            continue;
        const auto [size, isDeclaration] = enumShape(labelled, type);
        if (!isDeclaration && earlyEnums.contains({std::string(labelled.name(type)), size}))
            return true;
    }
    return false;
}

// Whether an own struct or union defines a name units resolved to the base's one definition
// early. Unlike the base's (amdgpu.ko's struct gpio), it makes the name ambiguous. Alike, it
// differs only through what it refers to (cxgb4.ko's copies of base structs that reach its own
// struct sched_class): a unit that declared the name then pointed at the base where libbpf
// compares the declaration as equal to the module's copy, and its copy of the types around stayed
// apart from the defining unit's. Either way, merging again without early resolution
// (EarlyResolution::structs) leaves those declarations to finish().
bool GraphMerger::State::earlyDeclarationRedefined() const {
    for (TypeId id = firstOwn; !earlyDeclarations.empty() && id < ownEnd(); ++id) {
        const TypeId type = asLabelled(id);
        const Kind kind = labelled.kind(type);
        if ((kind == Kind::Struct || kind == Kind::Union) &&
            earlyDeclarations.contains(labelled.name(type)))
            return true;
    }
    return false;
}

GraphMerger::Result GraphMerger::State::finish(plugin::TaskRunner* tasks) {
    const bool enumRedefined = earlyEnumRedefined();
    const bool declarationRedefined = earlyDeclarationRedefined();
    if (enumRedefined || declarationRedefined)
        return {TypeGraph(base), {}, enumRedefined, false, declarationRedefined};
    // Give back what only merging needed before the partition allocates.
    release(index);
    release(exactIndex);
    release(typeOfLabel);
    release(roundMemo);
    release(roundMemoDone);
    release(roundSlot);
    release(map);
    release(tentative);
    release(unmatchable);
    release(classOf);
    release(internedName);
    if (lazyBase())
        compactWorld(typesReaching(*base, baseGroupMembers()));
    const TypeId end = ownEnd();
    const uint32_t nodes = world.size();
    std::vector<uint32_t> block;
    std::vector<uint8_t> resolved;
    // Partitioned first, in its own statement: as an argument beside `resolved`, whether the
    // span of `resolved` was taken before or after partition() filled it was the compiler's
    // choice (clang took it before, empty, and crashed).
    const uint32_t partitioned = partition(block, resolved, tasks);
    uint32_t classes = splitEnumDeclarationUses(block, resolved, partitioned);
    if (declarations == Declarations::ByContext)
        classes = foldDeclarationVariants(block, resolved, classes);

    // A class holding a base type is that type; the others become new types, ordered by the
    // first unit type any of their members (resolved declarations included) stood for.
    // A base enum declaration that joined a unit's definition leaves that class to the unit.
    std::vector<TypeId> finalOf(classes, kUnmapped);
    for (uint32_t node = 0; node < nodes; ++node) {
        const TypeId id = idOf(node);
        if (!isOwn(id) && !isHidden(id) && !resolved[node])
            finalOf[block[node]] = id;
    }
    std::vector<uint64_t> classKey(classes, UINT64_MAX);
    std::vector<TypeId> classRep(classes, ir::kVoidType);
    for (TypeId id = firstOwn; id < end; ++id) {
        const uint32_t node = nodeOf(id);
        const uint32_t cls = block[node];
        classKey[cls] = std::min(classKey[cls], ownKey[id - firstOwn]);
        if (classRep[cls] == ir::kVoidType && !resolved[node])
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

    // A base type no own type refers to is not in a compact world: it is itself.
    auto finalId = [&](TypeId id) {
        const uint32_t node = nodeOf(canonical(id));
        return node == kNoNode ? id : finalOf[block[node]];
    };
    Result result{TypeGraph(base), {}, false, contextCutShort};
    result.graph.setTargetAs(labelled);
    result.graph.reserve(fresh.size());
    auto mapName = [&](ir::StrId name) { return result.graph.intern(labelled.str(name)); };
    // A merged type is its label's type with its world node's references, which rewriting meets
    // in the same order.
    for (uint32_t cls : fresh) {
        const std::span<const uint32_t> refs = world.refs(nodeOf(classRep[cls]));
        size_t next = 0;
        auto finalRef = [&](TypeId) { return finalOf[block[refs[next++]]]; };
        copyType(labelled, asLabelled(classRep[cls]), result.graph, mapName, finalRef, lists);
    }
    release(world);
    // Over a compact world, a base type outside it is itself: only the world's types are looked
    // up (a module's run would otherwise go through every type of vmlinux here).
    std::vector<TypeId> ownFinal(end - firstOwn);
    std::vector<std::pair<TypeId, TypeId>> movedBase;
    auto record = [&](TypeId id, TypeId final) {
        if (isOwn(id))
            ownFinal[id - firstOwn] = final;
        else if (final != id)
            movedBase.emplace_back(id, final);
    };
    if (compact()) {
        for (uint32_t node = 0; node < nodes; ++node)
            record(idOf(node), finalOf[block[node]]);
    } else {
        for (TypeId id = 0; id < end; ++id)
            record(id, finalId(id));
    }
    result.finalIds = FinalIds(firstOwn, std::move(ownFinal), std::move(movedBase));
    return result;
}
} // namespace btforge::dedup
