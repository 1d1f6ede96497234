#include "btforge/ir/FunctionAppender.h"

#include "support/Hash.h"
#include "support/HashIndex.h"

#include <algorithm>
#include <type_traits>

namespace btforge::ir {

struct FunctionAppender::Prototypes {
    support::HashIndex index;
};

FunctionAppender::FunctionAppender(TypeGraph& graph)
    : graph_(graph), protos_(std::make_unique<Prototypes>()) {
    const TypeId firstOwn = graph.firstId();
    if (firstOwn > 1) {
        baseFunctionsOf_.assign(firstOwn, kVoidType);
        baseTagsOf_.assign(firstOwn, kVoidType);
        nextOfSameTarget_.assign(firstOwn, kVoidType);
    }
    // One pass over the graph and its base, last id first so that each chain is in id order:
    // prototypes to share, and the base's FUNCs and DECL_TAGs that new ones may turn out to be.
    // Each graph of the chain is walked over its own types: a base's read through the graph
    // above it went through two lookups per type.
    protos_->index.reserve(graph.endId() / 4);
    for (const TypeGraph* g = &graph; g; g = g->base()) {
        for (TypeId id = g->endId() - 1; id >= g->firstId() && id > kVoidType; --id) {
            const Kind kind = g->kind(id);
            if (kind != Kind::FuncProto && kind != Kind::Func && kind != Kind::DeclTag)
                continue;
            g->visit(id, [&](const auto& t) {
                using T = std::decay_t<decltype(t)>;
                if constexpr (std::is_same_v<T, FuncProtoType>) {
                    protos_->index.insert(protoHash(t.returnType, t.params), id);
                } else if constexpr (std::is_same_v<T, FuncType>) {
                    if (id < firstOwn && !t.address && t.proto < firstOwn) {
                        nextOfSameTarget_[id] = baseFunctionsOf_[t.proto];
                        baseFunctionsOf_[t.proto] = id;
                    }
                } else if constexpr (std::is_same_v<T, DeclTagType>) {
                    if (id < firstOwn && !t.kindFlag && t.type < firstOwn) {
                        nextOfSameTarget_[id] = baseTagsOf_[t.type];
                        baseTagsOf_[t.type] = id;
                    }
                }
            });
        }
    }
}

FunctionAppender::~FunctionAppender() = default;

uint64_t FunctionAppender::protoHash(TypeId returnType, std::span<const Param> params) const {
    uint64_t h = hashing::combine(returnType, params.size());
    for (const Param& param : params)
        h = hashing::combine(h, param.type);
    return h;
}

bool FunctionAppender::sameProto(TypeId id, TypeId returnType,
                                 std::span<const Param> params) const {
    auto p = graph_.getAs<FuncProtoType>(id);
    if (p.returnType != returnType || p.params.size() != params.size())
        return false;
    for (size_t i = 0; i < params.size(); ++i) {
        if (p.params[i].type != params[i].type ||
            graph_.str(p.params[i].name) != graph_.str(params[i].name))
            return false;
    }
    return true;
}

TypeId FunctionAppender::proto(TypeId returnType, std::span<const Param> params) {
    const uint64_t h = protoHash(returnType, params);
    TypeId found = kVoidType;
    protos_->index.forEach(h, [&](TypeId id) {
        if ((found == kVoidType || id < found) && sameProto(id, returnType, params))
            found = id;
        return false;
    });
    if (found != kVoidType)
        return found;
    const TypeId added = graph_.add(FuncProtoType{kNoName, returnType, params});
    protos_->index.insert(h, added);
    return added;
}

TypeId FunctionAppender::addFunction(std::string_view name, TypeId proto, FuncLinkage linkage,
                                     std::optional<uint64_t> address) {
    if (!address && proto < baseFunctionsOf_.size()) {
        for (TypeId id = baseFunctionsOf_[proto]; id != kVoidType; id = nextOfSameTarget_[id]) {
            auto f = graph_.getAs<FuncType>(id);
            if (f.linkage == linkage && graph_.str(f.name) == name)
                return id;
        }
    }
    return graph_.add(FuncType{graph_.intern(name), proto, linkage, address});
}

TypeId FunctionAppender::addTag(std::string_view value, TypeId target, int32_t componentIndex) {
    if (target < baseTagsOf_.size()) {
        for (TypeId id = baseTagsOf_[target]; id != kVoidType; id = nextOfSameTarget_[id]) {
            auto t = graph_.getAs<DeclTagType>(id);
            if (t.componentIndex == componentIndex && graph_.str(t.name) == value)
                return id;
        }
    }
    return graph_.add(DeclTagType{graph_.intern(value), target, componentIndex});
}

} // namespace btforge::ir
