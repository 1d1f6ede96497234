#include "BaseIndex.h"

#include "../ir/TypeWalk.h"
#include "TypeLabel.h"
#include "support/Cycles.h"
#include "support/PerBase.h"

#include <algorithm>
#include <unordered_set>
#include <utility>
#include <vector>

namespace btforge::dedup {
namespace {

using ir::Kind;
using ir::TypeId;

// Equivalence of two base types, walked in step: every pair met must have equal labels, pairs
// met before taken as equal (the coinductive reading, which cycles need).
bool equivalent(BaseWorld& world, TypeId a, TypeId b) {
    std::vector<std::pair<TypeId, TypeId>> pending{{a, b}};
    std::unordered_set<uint64_t> assumed;
    while (!pending.empty()) {
        const auto [x, y] = pending.back();
        pending.pop_back();
        if (x == y || !assumed.insert(uint64_t{x} << 32 | y).second)
            continue;
        if (world.label(x) != world.label(y))
            return false;
        const std::span<const uint32_t> ours = world.refs(x);
        const std::span<const uint32_t> theirs = world.refs(y);
        if (ours.size() != theirs.size())
            return false;
        for (size_t i = 0; i < ours.size(); ++i)
            pending.emplace_back(ours[i], theirs[i]);
    }
    return true;
}

} // namespace

std::pair<uint32_t, bool> enumShape(const ir::TypeGraph& graph, TypeId id) {
    return graph.visit(id, [](const auto& t) -> std::pair<uint32_t, bool> {
        if constexpr (requires { t.values; })
            return {t.size, t.values.empty()};
        else
            return {0, false};
    });
}

namespace {
support::PerBase<BaseIndex>& builtIndexes() {
    static support::PerBase<BaseIndex> built;
    return built;
}
} // namespace

std::shared_ptr<const BaseIndex> BaseIndex::of(const std::shared_ptr<const ir::TypeGraph>& base) {
    return builtIndexes().get(base, [](const ir::TypeGraph& graph) {
        BaseWorld world(graph); // labels for the checks only: each merge reads its own
        return BaseIndex(graph, world);
    });
}

bool BaseIndex::foundByName(const ir::TypeGraph& graph, TypeId id) {
    return graph.kind(id) != Kind::DeclTag && !graph.name(id).empty();
}

BaseIndex::BaseIndex(const ir::TypeGraph& base, BaseWorld& world) : base_(base) {
    const TypeId end = base.endId();
    // Named types of one kind are compared by string id for their names: one text, one id, else
    // the first id of each text and no proof of minimality (kernels' BTF has each string once).
    const ir::StringPool& strings = base.strings();
    minimal_ = strings.uniqueStrings();
    auto nameIdOf = [&](TypeId id) {
        return minimal_ ? base.nameId(id) : *strings.find(base.name(id));
    };
    // Anonymous types and their references (by id, from starts[id] to starts[id + 1]), for the
    // cycle check.
    std::vector<uint8_t> anonymous(end, 0);
    std::vector<uint32_t> starts(end + 1, 0);
    std::vector<TypeId> anonymousRefs;
    // Anonymous types hold few references (a vmlinux's: 2 each on average, prototypes' params
    // included); reserved so that growing does not copy them.
    anonymousRefs.reserve(size_t{end} * 2);
    std::vector<TypeId> refs, otherRefs;
    // Going round a cycle, ids cannot only fall: each cycle has a type referring to an equal or
    // greater id, and the search need only start from those (in a kernel's BTF, few).
    std::vector<TypeId> cycleRoots;
    // A vmlinux has about a fifth of its types named and half anonymous.
    names_.reserve(end / 4);
    shapes_.reserve(end / 2);
    for (TypeId id = 1; id < end; ++id) {
        starts[id] = static_cast<uint32_t>(anonymousRefs.size());
        const Kind kind = base.kind(id);
        if (kind == Kind::Array && base.kind(base.getAs<ir::ArrayType>(id).elemType) == Kind::Array)
            nestedArrays_ = true;
        if (outsideMerging(base, id))
            continue;
        // foundByName; the text looked at only past offset 0, which is always the empty name
        // (half the types, whose text would cost a call each).
        if (kind != Kind::DeclTag && base.nameId(id) != ir::kNoName && !base.name(id).empty()) {
            const ir::StrId name = nameIdOf(id);
            const uint64_t key = nameKey(kind, base.name(id));
            names_.forEach(key, [&](TypeId other) {
                if (minimal_ && base.kind(other) == kind && base.nameId(other) == name &&
                    equivalent(world, other, id))
                    minimal_ = false;
                return false;
            });
            names_.insert(key, id);
            if ((kind == Kind::Enum || kind == Kind::Enum64) && enumShape(base, id).second)
                enumDeclarations_.push_back(id);
            continue;
        }
        if (!minimal_)
            continue; // shapes serve the lazy reading only
        refs.clear();
        const uint64_t shape = detail::baseShapeOf(base, id, refs);
        // Equal shapes are equal labels and references, but for a collision of hashes, which
        // the labels rule out.
        shapes_.forEach(shape, [&](TypeId other) {
            otherRefs.clear();
            if (minimal_ && detail::baseShapeOf(base, other, otherRefs) == shape &&
                otherRefs == refs && world.label(other) == world.label(id))
                minimal_ = false;
            return false;
        });
        shapes_.insert(shape, id);
        if (kind != Kind::DeclTag) {
            anonymous[id] = 1;
            anonymousRefs.insert(anonymousRefs.end(), refs.begin(), refs.end());
            if (std::any_of(refs.begin(), refs.end(), [id](TypeId ref) { return ref >= id; }))
                cycleRoots.push_back(id);
        }
    }
    starts[end] = static_cast<uint32_t>(anonymousRefs.size());
    if (minimal_)
        minimal_ = !support::hasCycleFrom(starts, anonymousRefs, cycleRoots,
                                          [&](TypeId id) { return anonymous[id]; });
}

void BaseIndex::writeTo(image::Writer& out) const {
    names_.writeTo(out);
    shapes_.writeTo(out);
    out.array(std::span<const TypeId>(enumDeclarations_));
    out.value(uint8_t{minimal_});
    out.value(uint8_t{nestedArrays_});
}

std::shared_ptr<const BaseIndex> BaseIndex::readFrom(const ir::TypeGraph& base, image::Reader& in) {
    std::shared_ptr<BaseIndex> index(new BaseIndex(base));
    index->names_.readInPlace(in);
    index->shapes_.readInPlace(in);
    const std::span<const TypeId> declarations = in.array<TypeId>();
    index->enumDeclarations_.assign(declarations.begin(), declarations.end());
    index->minimal_ = in.value<uint8_t>() != 0;
    index->nestedArrays_ = in.value<uint8_t>() != 0;
    return index;
}

void BaseIndex::install(const std::shared_ptr<const ir::TypeGraph>& base,
                        std::shared_ptr<const BaseIndex> index) {
    builtIndexes().put(base, std::move(index));
}

} // namespace btforge::dedup
