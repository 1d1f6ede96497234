#include "btforge/ir/FunctionAppender.h"

#include "support/Hash.h"

#include <charconv>

namespace btforge::ir {

FunctionAppender::FunctionAppender(TypeGraph& graph) : graph_(graph) {
    // One pass over the graph and its base: prototypes to share, and the base's FUNCs and
    // DECL_TAGs that new ones may turn out to be.
    for (TypeId id = 1; id < graph.endId(); ++id) {
        const Kind kind = graph.kind(id);
        if (kind == Kind::FuncProto) {
            auto p = graph.getAs<FuncProtoType>(id);
            protos_.emplace(key(p.returnType, p.params), id);
        } else if (kind == Kind::Func && id < graph.firstId()) {
            auto f = graph.getAs<FuncType>(id);
            if (!f.address)
                baseFunctions_.emplace(BaseKey{graph.str(f.name), f.proto, int64_t(f.linkage)}, id);
        } else if (kind == Kind::DeclTag && id < graph.firstId()) {
            auto t = graph.getAs<DeclTagType>(id);
            if (!t.kindFlag)
                baseTags_.emplace(BaseKey{graph.str(t.name), t.type, t.componentIndex}, id);
        }
    }
}

TypeId FunctionAppender::proto(TypeId returnType, std::span<const Param> params) {
    auto [it, added] = protos_.emplace(key(returnType, params), 0);
    if (added)
        it->second = graph_.add(FuncProtoType{kNoName, returnType, params});
    return it->second;
}

size_t FunctionAppender::BaseKeyHash::operator()(const BaseKey& key) const {
    return hashing::combine(hashing::combineText(key.target, key.name),
                            static_cast<uint64_t>(key.detail));
}

TypeId FunctionAppender::addFunction(std::string_view name, TypeId proto, FuncLinkage linkage,
                                     std::optional<uint64_t> address) {
    if (!address && proto < graph_.firstId()) {
        auto it = baseFunctions_.find(BaseKey{name, proto, int64_t(linkage)});
        if (it != baseFunctions_.end())
            return it->second;
    }
    return graph_.add(FuncType{graph_.intern(name), proto, linkage, address});
}

TypeId FunctionAppender::addTag(std::string_view value, TypeId target, int32_t componentIndex) {
    if (target < graph_.firstId()) {
        auto it = baseTags_.find(BaseKey{value, target, componentIndex});
        if (it != baseTags_.end())
            return it->second;
    }
    return graph_.add(DeclTagType{graph_.intern(value), target, componentIndex});
}

std::string FunctionAppender::key(TypeId returnType, std::span<const Param> params) const {
    // Built in place: one allocation per key, where temporaries made one per part.
    std::string k;
    k.reserve(16 + params.size() * 24);
    auto number = [&](TypeId id) {
        char digits[16];
        auto end = std::to_chars(digits, digits + sizeof digits, id).ptr;
        k.append(digits, end);
    };
    number(returnType);
    for (const Param& param : params) {
        k += ',';
        number(param.type);
        k += ':';
        k += graph_.str(param.name);
    }
    return k;
}

} // namespace btforge::ir
