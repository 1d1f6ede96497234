#include "ShapeHash.h"

#include "../support/Hash.h"

#include <string_view>

namespace btforge::compare::detail {
namespace {

constexpr uint64_t kSeed = 0x6a09e667f3bcc908ull;

uint64_t hashText(std::string_view text) {
    return hashing::combineText(kSeed, text);
}

uint64_t kindSeed(Kind kind) {
    return hashing::combine(kSeed, static_cast<uint64_t>(kind));
}

} // namespace

uint64_t ShapeHashes::computeRef(TypeId id) {
    Kind kind = graph_.kind(id);
    switch (kind) {
    case Kind::Struct:
    case Kind::Union:
    case Kind::Enum:
    case Kind::Enum64:
        if (graph_.name(id).empty())
            return hashing::combine(kindSeed(kind), shape(id));
        [[fallthrough]];
    case Kind::Fwd:
        return hashing::combine(hashing::combine(kSeed, tagClass(id)), hashText(graph_.name(id)));
    case Kind::Ptr:
    case Kind::Const:
    case Kind::Volatile:
    case Kind::Restrict:
        return hashing::combine(kindSeed(kind), ref(graph_.target(id)));
    case Kind::TypeTag: {
        auto tag = graph_.getAs<ir::TypeTagType>(id);
        uint64_t h = hashing::combine(
            hashing::combine(kindSeed(kind), hashText(graph_.str(tag.name))), tag.kindFlag);
        return hashing::combine(h, ref(tag.type));
    }
    case Kind::Array: {
        // The index type is left out: producers pick different ones for the same array.
        auto [count, element] = view_.arrayShape(id);
        return hashing::combine(hashing::combine(kindSeed(kind), count), ref(element));
    }
    case Kind::FuncProto: {
        // Parameter names are not part of a function pointer's type.
        auto proto = graph_.getAs<ir::FuncProtoType>(id);
        uint64_t h = hashing::combine(hashing::combine(kindSeed(kind), proto.params.size()),
                                      ref(proto.returnType));
        for (const ir::Param& p : proto.params)
            h = hashing::combine(h, ref(p.type));
        return h;
    }
    default: // void, INT, FLOAT, TYPEDEF, FUNC, VAR, DATASEC, DECL_TAG: by name
        return hashing::combine(kindSeed(kind), hashText(graph_.name(id)));
    }
}

uint64_t ShapeHashes::computeShape(TypeId id) {
    Kind kind = graph_.kind(id);
    uint64_t h = kindSeed(kind);
    switch (kind) {
    case Kind::Int: {
        auto i = graph_.getAs<ir::IntType>(id);
        return hashing::combine(
            hashing::combine(hashing::combine(hashing::combine(h, i.size), i.encoding), i.bits),
            i.bitOffset);
    }
    case Kind::Float:
        return hashing::combine(h, graph_.getAs<ir::FloatType>(id).size);
    case Kind::Struct:
    case Kind::Union: {
        Composite c = view_.composite(id);
        h = hashing::combine(h, c.size);
        for (const ir::Member& m : c.members) {
            h = hashing::combine(hashing::combine(h, hashText(graph_.str(m.name))), m.bitOffset);
            h = hashing::combine(hashing::combine(h, m.bitfieldSize), ref(m.type));
        }
        return h;
    }
    case Kind::Enum:
    case Kind::Enum64: {
        // Values compare by name, not by order: summing makes the hash order-blind too.
        Enumeration e = view_.enumeration(id);
        uint64_t values = 0;
        for (const ir::Enumerator& v : e.values)
            values += hashing::combine(hashText(graph_.str(v.name)), e.valueOf(v));
        return hashing::combine(hashing::combine(hashing::combine(h, e.size), e.isSigned), values);
    }
    case Kind::Fwd:
        return hashing::combine(h, graph_.getAs<ir::FwdType>(id).isUnion);
    case Kind::Typedef:
        return hashing::combine(h, ref(graph_.target(id)));
    case Kind::Func: {
        auto f = graph_.getAs<ir::FuncType>(id);
        Prototype proto = view_.prototype(f.proto);
        h = hashing::combine(
            hashing::combine(hashing::combine(h, static_cast<uint64_t>(f.linkage)), proto.varargs),
            ref(proto.returnType));
        h = hashing::combine(h, proto.params.size());
        for (const ir::Param& p : proto.params)
            h = hashing::combine(hashing::combine(h, hashText(graph_.str(p.name))), ref(p.type));
        return h;
    }
    case Kind::Var: {
        auto v = graph_.getAs<ir::VarType>(id);
        return hashing::combine(hashing::combine(h, static_cast<uint64_t>(v.linkage)), ref(v.type));
    }
    case Kind::Datasec: {
        auto d = graph_.getAs<ir::DatasecType>(id);
        uint64_t entries = 0; // by variable name, as Differ pairs them
        for (const ir::VarSecInfo& e : d.entries)
            entries +=
                hashing::combine(hashing::combine(hashText(graph_.name(e.type)), e.offset), e.size);
        return hashing::combine(hashing::combine(h, d.size), entries);
    }
    case Kind::DeclTag:
        return hashing::combine(h, graph_.getAs<ir::DeclTagType>(id).kindFlag);
    default: // never matched on their own
        return h;
    }
}

uint64_t ShapeHashes::tagClass(TypeId id) const {
    Kind kind = graph_.kind(id);
    if (kind == Kind::Enum64)
        return static_cast<uint64_t>(Kind::Enum);
    if (kind != Kind::Fwd)
        return static_cast<uint64_t>(kind);
    bool isUnion = graph_.getAs<ir::FwdType>(id).isUnion;
    if (view_.strictForwards())
        return isUnion ? 0x100 : 0x101;
    return static_cast<uint64_t>(isUnion ? Kind::Union : Kind::Struct);
}

} // namespace btforge::compare::detail
