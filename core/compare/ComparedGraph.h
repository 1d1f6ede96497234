// One graph as `btforge diff` reads it: the kinds that share a shape read alike (STRUCT and UNION
// as a composite, ENUM and ENUM64 as an enumeration), prototypes without BTF's varargs marker,
// arrays flattened when asked.
#pragma once

#include "compare/GraphDiff.h"

#include <span>
#include <string>
#include <utility>

namespace btforge::compare::detail {

using ir::Kind;
using ir::TypeGraph;
using ir::TypeId;

struct Composite {
    uint32_t size;
    std::span<const ir::Member> members;
};

struct Enumeration {
    Kind kind;
    uint32_t size;
    bool isSigned;
    std::span<const ir::Enumerator> values;

    // ENUM keeps its value in the low 32 bits; sign-extend those so that both kinds compare as
    // the number the source wrote.
    uint64_t valueOf(const ir::Enumerator& e) const {
        if (kind == Kind::Enum64)
            return e.value;
        uint32_t low = static_cast<uint32_t>(e.value);
        return isSigned ? static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(low)))
                        : low;
    }
    std::string textOf(const ir::Enumerator& e) const {
        uint64_t value = valueOf(e);
        return isSigned ? std::to_string(static_cast<int64_t>(value)) : std::to_string(value);
    }
};

// Parameters without the trailing void that BTF uses to say "...".
struct Prototype {
    TypeId returnType = ir::kVoidType;
    std::span<const ir::Param> params;
    bool varargs = false;
};

inline bool isAggregateKind(Kind kind) {
    return kind == Kind::Struct || kind == Kind::Union || kind == Kind::Enum ||
           kind == Kind::Enum64;
}

class ComparedGraph {
public:
    ComparedGraph(const TypeGraph& graph, const DiffOptions& options)
        : graph_(graph), strictForwards_(options.strictForwards),
          flattenArrays_(options.flattenArrays) {}

    const TypeGraph& graph() const { return graph_; }
    // A FWD is a FWD, not the STRUCT or UNION it declares (DiffOptions::strictForwards).
    bool strictForwards() const { return strictForwards_; }

    // An array's element count and element type; flattened, nested arrays multiply out.
    std::pair<uint64_t, TypeId> arrayShape(TypeId id) const {
        auto array = graph_.getAs<ir::ArrayType>(id);
        uint64_t count = array.count;
        TypeId element = array.elemType;
        while (flattenArrays_ && graph_.kind(element) == Kind::Array) {
            auto inner = graph_.getAs<ir::ArrayType>(element);
            count *= inner.count;
            element = inner.elemType;
        }
        return {count, element};
    }

    bool isAnonymousAggregate(TypeId id) const {
        return isAggregateKind(graph_.kind(id)) && graph_.name(id).empty();
    }

    Composite composite(TypeId id) const {
        if (graph_.kind(id) == Kind::Struct) {
            auto s = graph_.getAs<ir::StructType>(id);
            return {s.size, s.members};
        }
        auto u = graph_.getAs<ir::UnionType>(id);
        return {u.size, u.members};
    }

    Enumeration enumeration(TypeId id) const {
        if (graph_.kind(id) == Kind::Enum) {
            auto e = graph_.getAs<ir::EnumType>(id);
            return {Kind::Enum, e.size, e.isSigned, e.values};
        }
        auto e = graph_.getAs<ir::Enum64Type>(id);
        return {Kind::Enum64, e.size, e.isSigned, e.values};
    }

    // The readers check that a FUNC refers to a FUNC_PROTO; a hand-made graph that does not is
    // read as a function without parameters.
    Prototype prototype(TypeId id) const {
        if (graph_.kind(id) != Kind::FuncProto)
            return {};
        auto proto = graph_.getAs<ir::FuncProtoType>(id);
        Prototype out{proto.returnType, proto.params, false};
        if (!out.params.empty() && out.params.back().type == ir::kVoidType) {
            out.params = out.params.first(out.params.size() - 1);
            out.varargs = true;
        }
        return out;
    }

private:
    const TypeGraph& graph_;
    bool strictForwards_;
    bool flattenArrays_;
};

} // namespace btforge::compare::detail
