#include "btforge/btf/DistilledBase.h"

#include "../amend/Rebuild.h"
#include "../dedup/TypeLabel.h"

#include "btforge/btf/BtfReader.h"
#include "btforge/btf/BtfWriter.h"

#include <vector>

namespace btforge::btf {
namespace {

using ir::Kind;
using ir::TypeId;

bool named(const ir::TypeGraph& graph, TypeId id) {
    return graph.nameId(id) != ir::kNoName && !graph.name(id).empty();
}

// Where a used base type goes.
enum class Place : uint8_t { Unused, Base, Split };

Place placeOf(const ir::TypeGraph& graph, TypeId id) {
    switch (graph.kind(id)) {
    case Kind::Int:
    case Kind::Float:
    case Kind::Fwd:
        return Place::Base;
    case Kind::Struct:
    case Kind::Union:
    case Kind::Enum:
    case Kind::Enum64:
        return named(graph, id) ? Place::Base : Place::Split;
    default:
        return Place::Split;
    }
}

bool mayBeUsed(Kind kind) {
    switch (kind) {
    case Kind::Func:
    case Kind::Var:
    case Kind::Datasec:
    case Kind::DeclTag:
    case Kind::Void:
        return false;
    default:
        return true;
    }
}

// The base types `split` uses, each with its place; indexed by base id.
Expected<std::vector<Place>> usedBaseTypes(const ir::TypeGraph& split,
                                           const std::string& sourceName) {
    const TypeId baseEnd = split.firstId();
    std::vector<Place> places(baseEnd, Place::Unused);
    std::vector<TypeId> toFollow;
    std::optional<Error> error;
    auto use = [&](TypeId from, TypeId ref) {
        if (ref == ir::kVoidType || ref >= baseEnd || places[ref] != Place::Unused || error)
            return;
        if (!mayBeUsed(split.kind(ref))) {
            error = Error::badInput(sourceName + ": type [" + std::to_string(from) +
                                    "] refers to base type [" + std::to_string(ref) + "], a " +
                                    std::string(ir::kindName(split.kind(ref))) +
                                    ": a distilled base cannot hold one");
            return;
        }
        places[ref] = placeOf(split, ref);
        // A named composite is memberless in the distilled base: its members are not needed.
        const Kind kind = split.kind(ref);
        if (!((kind == Kind::Struct || kind == Kind::Union) && places[ref] == Place::Base))
            toFollow.push_back(ref);
    };
    for (TypeId id = split.firstId(); id < split.endId(); ++id)
        amend::detail::forEachReference(split, id, [&](TypeId ref) { use(id, ref); });
    while (!toFollow.empty() && !error) {
        const TypeId id = toFollow.back();
        toFollow.pop_back();
        amend::detail::forEachReference(split, id, [&](TypeId ref) { use(id, ref); });
    }
    if (error)
        return std::move(*error);
    return places;
}

// What a used base type becomes in the distilled base.
ir::TypeView distilled(const ir::TypeGraph& from, TypeId id, ir::TypeGraph& to,
                       dedup::detail::ListScratch& scratch) {
    const ir::StrId name = to.intern(from.name(id));
    switch (from.kind(id)) {
    case Kind::Struct:
        return ir::StructType{name, from.getAs<ir::StructType>(id).size, {}, false};
    case Kind::Union:
        return ir::UnionType{name, from.getAs<ir::UnionType>(id).size, {}, false};
    case Kind::Enum:
        return ir::EnumType{name, from.getAs<ir::EnumType>(id).size, {}, false};
    case Kind::Enum64:
        return ir::EnumType{name, from.getAs<ir::Enum64Type>(id).size, {}, false};
    default: // INT, FLOAT, FWD: no references
        return dedup::detail::rewrite(
            from, from.get(id), to, [](TypeId ref) { return ref; }, scratch);
    }
}

} // namespace

Expected<DistilledBtf> distillBase(const ir::TypeGraph& split, const std::string& sourceName) {
    if (!split.base())
        return Error::usage(sourceName + ": a distilled base is made for split BTF only");
    auto places = usedBaseTypes(split, sourceName);
    if (!places)
        return std::move(places).error();
    const TypeId baseEnd = split.firstId();

    ir::TypeGraph base;
    base.setTargetAs(split);
    std::vector<TypeId> newIds(baseEnd, ir::kVoidType);
    dedup::detail::ListScratch scratch;
    for (TypeId id = 1; id < baseEnd; ++id) {
        if ((*places)[id] == Place::Base)
            newIds[id] = base.add(distilled(split, id, base, scratch));
    }
    // Read back: its string ids are then the offsets its BTF has, which split BTF refers to.
    auto bytes = writeBtf(base);
    if (!bytes)
        return std::move(bytes).error();
    auto readBack = readBtf(*bytes, {sourceName + ": distilled base", nullptr, false, {}});
    if (!readBack)
        return std::move(readBack).error();
    auto sharedBase = std::make_shared<const ir::TypeGraph>(std::move(*readBack));

    // The split's own types first, then the base types copied after them.
    const TypeId splitFirst = sharedBase->endId();
    TypeId next = splitFirst + split.ownCount();
    for (TypeId id = 1; id < baseEnd; ++id) {
        if ((*places)[id] == Place::Split)
            newIds[id] = next++;
    }
    auto mapRef = [&](TypeId ref) {
        if (ref == ir::kVoidType)
            return ref;
        return ref < baseEnd ? newIds[ref] : ref - split.firstId() + splitFirst;
    };
    DistilledBtf out{sharedBase, ir::TypeGraph(sharedBase)};
    out.split.setTargetAs(split);
    out.split.reserve(next - splitFirst);
    for (TypeId id = split.firstId(); id < split.endId(); ++id)
        out.split.add(dedup::detail::rewrite(split, split.get(id), out.split, mapRef, scratch));
    for (TypeId id = 1; id < baseEnd; ++id) {
        if ((*places)[id] == Place::Split)
            out.split.add(dedup::detail::rewrite(split, split.get(id), out.split, mapRef, scratch));
    }
    return out;
}

} // namespace btforge::btf
