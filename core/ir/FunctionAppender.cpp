#include "btforge/ir/FunctionAppender.h"

#include <charconv>

namespace btforge::ir {

FunctionAppender::FunctionAppender(TypeGraph& graph) : graph_(graph) {
    for (TypeId id = 1; id < graph.endId(); ++id) {
        if (graph.kind(id) == Kind::FuncProto) {
            auto p = graph.getAs<FuncProtoType>(id);
            protos_.emplace(key(p.returnType, p.params), id);
        }
    }
}

TypeId FunctionAppender::proto(TypeId returnType, std::span<const Param> params) {
    auto [it, added] = protos_.emplace(key(returnType, params), 0);
    if (added)
        it->second = graph_.add(FuncProtoType{kNoName, returnType, params});
    return it->second;
}

TypeId FunctionAppender::addFunction(std::string_view name, TypeId proto, FuncLinkage linkage,
                                     std::optional<uint64_t> address) {
    return graph_.add(FuncType{graph_.intern(name), proto, linkage, address});
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
