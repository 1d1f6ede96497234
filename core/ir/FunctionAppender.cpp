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

namespace {

// Keys of the base's FUNCs and DECL_TAGs: the fields libbpf's dedup compares.
std::string functionKey(std::string_view name, TypeId proto, FuncLinkage linkage) {
    std::string k(name);
    k += '\0';
    k += std::to_string(proto);
    k += '/';
    k += std::to_string(static_cast<unsigned>(linkage));
    return k;
}

std::string tagKey(std::string_view value, TypeId target, int32_t componentIndex) {
    std::string k(value);
    k += '\0';
    k += std::to_string(target);
    k += '/';
    k += std::to_string(componentIndex);
    return k;
}

} // namespace

void FunctionAppender::indexBase() {
    baseIndexed_ = true;
    const TypeGraph* base = graph_.base();
    if (!base)
        return;
    for (TypeId id = 1; id < base->endId(); ++id) {
        if (base->kind(id) == Kind::Func) {
            auto f = base->getAs<FuncType>(id);
            if (!f.address)
                baseFunctions_.emplace(functionKey(base->str(f.name), f.proto, f.linkage), id);
        } else if (base->kind(id) == Kind::DeclTag) {
            auto t = base->getAs<DeclTagType>(id);
            if (!t.kindFlag)
                baseTags_.emplace(tagKey(base->str(t.name), t.type, t.componentIndex), id);
        }
    }
}

TypeId FunctionAppender::addFunction(std::string_view name, TypeId proto, FuncLinkage linkage,
                                     std::optional<uint64_t> address) {
    if (!baseIndexed_)
        indexBase();
    if (!address && proto < graph_.firstId()) {
        auto it = baseFunctions_.find(functionKey(name, proto, linkage));
        if (it != baseFunctions_.end())
            return it->second;
    }
    return graph_.add(FuncType{graph_.intern(name), proto, linkage, address});
}

TypeId FunctionAppender::addTag(std::string_view value, TypeId target, int32_t componentIndex) {
    if (!baseIndexed_)
        indexBase();
    if (target < graph_.firstId()) {
        auto it = baseTags_.find(tagKey(value, target, componentIndex));
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
