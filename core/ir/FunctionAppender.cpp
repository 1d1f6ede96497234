#include "btforge/ir/FunctionAppender.h"

#include "support/Hash.h"

#include <algorithm>

namespace btforge::ir {

FunctionAppender::FunctionAppender(TypeGraph& graph) : graph_(graph) {
    const TypeId firstOwn = graph.firstId();
    if (firstOwn > 1) {
        baseFunctionsOf_.assign(firstOwn, kVoidType);
        baseTagsOf_.assign(firstOwn, kVoidType);
        nextOfSameTarget_.assign(firstOwn, kVoidType);
    }
    // One pass over the graph and its base, last id first so that each chain is in id order:
    // prototypes to share, and the base's FUNCs and DECL_TAGs that new ones may turn out to be.
    for (TypeId id = graph.endId() - 1; id > kVoidType; --id) {
        const Kind kind = graph.kind(id);
        if (kind == Kind::FuncProto) {
            auto p = graph.getAs<FuncProtoType>(id);
            protos_.emplace(protoHash(p.returnType, p.params), id);
        } else if (kind == Kind::Func && id < firstOwn) {
            auto f = graph.getAs<FuncType>(id);
            if (!f.address && f.proto < firstOwn) {
                nextOfSameTarget_[id] = baseFunctionsOf_[f.proto];
                baseFunctionsOf_[f.proto] = id;
            }
        } else if (kind == Kind::DeclTag && id < firstOwn) {
            auto t = graph.getAs<DeclTagType>(id);
            if (!t.kindFlag && t.type < firstOwn) {
                nextOfSameTarget_[id] = baseTagsOf_[t.type];
                baseTagsOf_[t.type] = id;
            }
        }
    }
}

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
    for (auto [it, end] = protos_.equal_range(h); it != end; ++it) {
        if ((found == kVoidType || it->second < found) && sameProto(it->second, returnType, params))
            found = it->second;
    }
    if (found != kVoidType)
        return found;
    const TypeId added = graph_.add(FuncProtoType{kNoName, returnType, params});
    protos_.emplace(h, added);
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
