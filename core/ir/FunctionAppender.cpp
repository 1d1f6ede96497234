#include "btforge/ir/FunctionAppender.h"

#include "BaseFunctions.h"
#include "support/Hash.h"
#include "support/HashIndex.h"
#include "support/PerBase.h"

#include <type_traits>
#include <vector>

namespace btforge::ir {
namespace {

uint64_t protoHash(TypeId returnType, std::span<const Param> params) {
    uint64_t h = hashing::combine(returnType, params.size());
    for (const Param& param : params)
        h = hashing::combine(h, param.type);
    return h;
}

bool sameProto(const TypeGraph& graph, TypeId id, TypeId returnType,
               std::span<const Param> params) {
    auto p = graph.getAs<FuncProtoType>(id);
    if (p.returnType != returnType || p.params.size() != params.size())
        return false;
    for (size_t i = 0; i < params.size(); ++i) {
        if (p.params[i].type != params[i].type ||
            graph.str(p.params[i].name) != graph.str(params[i].name))
            return false;
    }
    return true;
}

// The smallest of `index`'s prototypes equal to this one, else void.
TypeId findProto(const TypeGraph& graph, const support::HashIndex& index, uint64_t hash,
                 TypeId returnType, std::span<const Param> params) {
    TypeId found = kVoidType;
    index.forEach(hash, [&](TypeId id) {
        if ((found == kVoidType || id < found) && sameProto(graph, id, returnType, params))
            found = id;
        return false;
    });
    return found;
}

} // namespace

struct FunctionAppender::Prototypes {
    support::HashIndex index;
};

BaseFunctions::BaseFunctions(const TypeGraph& base)
    : functions_(base.endId(), kVoidType), tags_(base.endId(), kVoidType),
      next_(base.endId(), kVoidType) {
    const std::span<TypeId> functions(functions_), tags(tags_), next(next_);
    // One pass, last id first so that each chain is in id order. Each graph of the chain is
    // walked over its own types: a base's read through the graph above it went through two
    // lookups per type.
    protos.reserve(base.endId() / 4);
    for (const TypeGraph* g = &base; g; g = g->base()) {
        for (TypeId id = g->endId() - 1; id >= g->firstId(); --id) { // firstId() >= 1
            const Kind kind = g->kind(id);
            if (kind != Kind::FuncProto && kind != Kind::Func && kind != Kind::DeclTag)
                continue;
            g->visit(id, [&](const auto& t) {
                using T = std::decay_t<decltype(t)>;
                if constexpr (std::is_same_v<T, FuncProtoType>) {
                    protos.insert(protoHash(t.returnType, t.params), id);
                } else if constexpr (std::is_same_v<T, FuncType>) {
                    if (!t.address) {
                        next[id] = functions[t.proto];
                        functions[t.proto] = id;
                    }
                } else if constexpr (std::is_same_v<T, DeclTagType>) {
                    if (!t.kindFlag) {
                        next[id] = tags[t.type];
                        tags[t.type] = id;
                    }
                }
            });
        }
    }
    functionsOf = functions;
    tagsOf = tags;
    nextOfSameTarget = next;
}

namespace {
support::PerBase<BaseFunctions>& builtBaseFunctions() {
    static support::PerBase<BaseFunctions> built;
    return built;
}
} // namespace

std::shared_ptr<const BaseFunctions>
BaseFunctions::of(const std::shared_ptr<const TypeGraph>& base) {
    return builtBaseFunctions().get(base, [](const TypeGraph& b) { return BaseFunctions(b); });
}

void BaseFunctions::install(const std::shared_ptr<const TypeGraph>& base,
                            std::shared_ptr<const BaseFunctions> functions) {
    builtBaseFunctions().put(base, std::move(functions));
}

void BaseFunctions::writeTo(image::Writer& out) const {
    protos.writeTo(out);
    out.array(functionsOf);
    out.array(tagsOf);
    out.array(nextOfSameTarget);
}

std::shared_ptr<const BaseFunctions> BaseFunctions::readFrom(image::Reader& in) {
    auto functions = std::make_shared<BaseFunctions>();
    functions->protos.readInPlace(in);
    functions->functionsOf = in.array<TypeId>();
    functions->tagsOf = in.array<TypeId>();
    functions->nextOfSameTarget = in.array<TypeId>();
    return functions;
}

FunctionAppender::FunctionAppender(TypeGraph& graph)
    : graph_(graph), protos_(std::make_unique<Prototypes>()) {
    if (const auto& base = graph.sharedBase())
        base_ = BaseFunctions::of(base);
    // The graph's own prototypes, and room for those emission adds (a vmlinux: about a quarter
    // of its types).
    protos_->index.reserve((graph.endId() - graph.firstId()) / 4);
    for (TypeId id = graph.endId() - 1; id >= graph.firstId(); --id) {
        if (graph.kind(id) == Kind::FuncProto) {
            auto p = graph.getAs<FuncProtoType>(id);
            protos_->index.insert(protoHash(p.returnType, p.params), id);
        }
    }
}

FunctionAppender::~FunctionAppender() = default;

TypeId FunctionAppender::proto(TypeId returnType, std::span<const Param> params) {
    const uint64_t h = protoHash(returnType, params);
    // Base ids are below the graph's own: a base prototype is the first of equal ones.
    if (base_) {
        if (TypeId found = findProto(graph_, base_->protos, h, returnType, params))
            return found;
    }
    if (TypeId found = findProto(graph_, protos_->index, h, returnType, params))
        return found;
    const TypeId added = graph_.add(FuncProtoType{kNoName, returnType, params});
    protos_->index.insert(h, added);
    return added;
}

TypeId FunctionAppender::addFunction(std::string_view name, TypeId proto, FuncLinkage linkage,
                                     std::optional<uint64_t> address) {
    if (base_ && !address && proto < base_->functionsOf.size()) {
        for (TypeId id = base_->functionsOf[proto]; id != kVoidType;
             id = base_->nextOfSameTarget[id]) {
            auto f = graph_.getAs<FuncType>(id);
            if (f.linkage == linkage && graph_.str(f.name) == name)
                return id;
        }
    }
    return graph_.add(FuncType{graph_.intern(name), proto, linkage, address});
}

TypeId FunctionAppender::addTag(std::string_view value, TypeId target, int32_t componentIndex) {
    if (base_ && target < base_->tagsOf.size()) {
        for (TypeId id = base_->tagsOf[target]; id != kVoidType; id = base_->nextOfSameTarget[id]) {
            auto t = graph_.getAs<DeclTagType>(id);
            if (t.componentIndex == componentIndex && graph_.str(t.name) == value)
                return id;
        }
    }
    return graph_.add(DeclTagType{graph_.intern(value), target, componentIndex});
}

TypeId FunctionAppender::attributedPointer(std::string_view attribute, TypeId pointee) {
    // A scan of every type, base included: only a handful of kfuncs ask.
    auto first = [&](Kind kind, auto&& matches) {
        for (TypeId id = 1; id < graph_.endId(); ++id) {
            if (graph_.kind(id) == kind && matches(id))
                return id;
        }
        return kVoidType;
    };
    TypeId tag = first(Kind::TypeTag, [&](TypeId id) {
        auto t = graph_.getAs<TypeTagType>(id);
        return t.kindFlag && t.type == pointee && graph_.str(t.name) == attribute;
    });
    if (tag == kVoidType)
        tag = graph_.add(TypeTagType{graph_.intern(attribute), pointee, true});
    else if (TypeId ptr = first(Kind::Ptr, [&](TypeId id) { return graph_.target(id) == tag; }))
        return ptr;
    return graph_.add(PtrType{kNoName, tag});
}

} // namespace btforge::ir
