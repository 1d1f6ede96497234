#include "btforge/btf/DistilledBase.h"

#include "../ir/TypeWalk.h"

#include "btforge/btf/BtfReader.h"
#include "btforge/btf/BtfWriter.h"

#include <string_view>
#include <unordered_map>
#include <vector>

namespace btforge::btf {
namespace {

using ir::Kind;
using ir::TypeId;

bool named(const ir::TypeGraph& graph, TypeId id) {
    return graph.nameId(id) != ir::kNoName && !graph.name(id).empty();
}

bool isComposite(Kind kind) {
    return kind == Kind::Struct || kind == Kind::Union;
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
        if (!(isComposite(split.kind(ref)) && places[ref] == Place::Base))
            toFollow.push_back(ref);
    };
    for (TypeId id = split.firstId(); id < split.endId(); ++id)
        ir::forEachReference(split, id, [&](TypeId ref) { use(id, ref); });
    while (!toFollow.empty() && !error) {
        const TypeId id = toFollow.back();
        toFollow.pop_back();
        ir::forEachReference(split, id, [&](TypeId ref) { use(id, ref); });
    }
    if (error)
        return std::move(*error);
    return places;
}

// What a used base type becomes in the distilled base.
ir::TypeView distilled(const ir::TypeGraph& from, TypeId id, ir::TypeGraph& to,
                       ir::ListScratch& scratch) {
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
        return ir::rewrite(
            from, from.get(id), to, [](TypeId ref) { return ref; }, scratch);
    }
}

// The size a type declares (INT, FLOAT, ENUM, ENUM64, STRUCT, UNION); 0 for the others.
uint32_t declaredSize(const ir::TypeGraph& graph, TypeId id) {
    return graph.visit(id, [](const auto& t) -> uint32_t {
        if constexpr (requires { t.size; })
            return t.size;
        return 0;
    });
}

// The distilled STRUCTs and UNIONs the split BTF holds by value, as a member (through typedefs,
// qualifiers and arrays): their size must be the base type's.
std::vector<bool> heldByValue(const ir::TypeGraph& split) {
    std::vector<bool> held(split.firstId(), false);
    for (TypeId id = split.firstId(); id < split.endId(); ++id) {
        if (!isComposite(split.kind(id)))
            continue;
        ir::forEachReference(split, id, [&](TypeId member) {
            for (TypeId t = member; t != ir::kVoidType;) {
                switch (split.kind(t)) {
                case Kind::Const:
                case Kind::Restrict:
                case Kind::Volatile:
                case Kind::Typedef:
                case Kind::TypeTag:
                case Kind::Array:
                    t = split.target(t);
                    continue;
                case Kind::Struct:
                case Kind::Union:
                    if (t < split.firstId())
                        held[t] = true;
                    break;
                default:
                    break;
                }
                break;
            }
        });
    }
    return held;
}

// Whether base type `b` is what distilled type `d` stands for (names already equal).
bool standsFor(const ir::TypeGraph& dist, TypeId d, const ir::TypeGraph& base, TypeId b,
               bool sized) {
    const Kind kind = base.kind(b);
    const bool sameSize = declaredSize(dist, d) == declaredSize(base, b);
    switch (dist.kind(d)) {
    case Kind::Int:
        return kind == Kind::Int && sameSize &&
               dist.getAs<ir::IntType>(d).encoding == base.getAs<ir::IntType>(b).encoding;
    case Kind::Float:
        return kind == Kind::Float && sameSize;
    case Kind::Enum:
        return (kind == Kind::Enum || kind == Kind::Enum64) && sameSize;
    case Kind::Fwd: {
        const bool isUnion = dist.getAs<ir::FwdType>(d).isUnion;
        return kind == Kind::Fwd ? base.getAs<ir::FwdType>(b).isUnion == isUnion
                                 : kind == (isUnion ? Kind::Union : Kind::Struct);
    }
    case Kind::Struct:
    case Kind::Union:
        return kind == dist.kind(d) && (!sized || sameSize);
    default:
        return false;
    }
}

} // namespace

Expected<ir::TypeGraph> relocateSplit(const ir::TypeGraph& split,
                                      std::shared_ptr<const ir::TypeGraph> base,
                                      const std::string& sourceName) {
    const ir::TypeGraph* dist = split.base();
    if (!dist || dist->base())
        return Error::badInput(sourceName + ": not split BTF over a distilled base");
    const TypeId distEnd = split.firstId();

    // The base's named types of the kinds a distilled base holds, by name.
    std::unordered_map<std::string_view, std::vector<TypeId>> byName;
    std::unordered_map<std::string_view, uint32_t> composites;
    for (TypeId id = 1; id < base->endId(); ++id) {
        switch (base->kind(id)) {
        case Kind::Struct:
        case Kind::Union:
            ++composites[base->name(id)];
            [[fallthrough]];
        case Kind::Int:
        case Kind::Float:
        case Kind::Enum:
        case Kind::Enum64:
        case Kind::Fwd:
            if (named(*base, id))
                byName[base->name(id)].push_back(id);
            break;
        default:
            break;
        }
    }

    const std::vector<bool> held = heldByValue(split);
    std::vector<TypeId> newIds(distEnd, ir::kVoidType);
    for (TypeId d = 1; d < distEnd; ++d) {
        const std::string where = sourceName + ": distilled base type [" + std::to_string(d) +
                                  "] " + std::string(ir::kindName(dist->kind(d))) + " '" +
                                  std::string(dist->name(d)) + "'";
        if (!named(*dist, d))
            return Error::badInput(where + ": a distilled base holds named types only");
        const bool sized = held[d] || (isComposite(dist->kind(d)) && composites[dist->name(d)] > 1);
        for (TypeId b : byName[dist->name(d)]) {
            if (!standsFor(*dist, d, *base, b, sized))
                continue;
            if (newIds[d] != ir::kVoidType)
                return Error::badInput(where + " matches several types of the base ([" +
                                       std::to_string(newIds[d]) + "], [" + std::to_string(b) +
                                       "])");
            newIds[d] = b;
        }
        if (newIds[d] == ir::kVoidType)
            return Error::badInput(where + " matches no type of the base");
    }

    const TypeId shift = base->endId() - distEnd;
    auto mapRef = [&](TypeId ref) { return ref < distEnd ? newIds[ref] : ref + shift; };
    ir::TypeGraph out(std::move(base));
    out.setTargetAs(split);
    out.reserve(split.ownCount());
    ir::ListScratch scratch;
    for (TypeId id = split.firstId(); id < split.endId(); ++id)
        out.add(ir::rewrite(split, split.get(id), out, mapRef, scratch));
    return out;
}

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
    ir::ListScratch scratch;
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
        out.split.add(ir::rewrite(split, split.get(id), out.split, mapRef, scratch));
    for (TypeId id = 1; id < baseEnd; ++id) {
        if ((*places)[id] == Place::Split)
            out.split.add(ir::rewrite(split, split.get(id), out.split, mapRef, scratch));
    }
    return out;
}

} // namespace btforge::btf
