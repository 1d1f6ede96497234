#include "BaseDeclarations.h"

#include "dedup/GraphMerger.h"
#include "support/Hash.h"

namespace btforge::dedup {

using ir::TypeId;

BaseDeclarations::BaseDeclarations(const ir::TypeGraph& base) {
    for (TypeId id = 1; id < base.endId(); ++id) {
        const ir::Kind kind = base.kind(id);
        if (base.name(id).empty())
            continue;
        if (kind == ir::Kind::Fwd) {
            declarations_.try_emplace(Key{base.getAs<ir::FwdType>(id).isUnion, base.name(id)}, id);
            continue;
        }
        if (kind != ir::Kind::Struct && kind != ir::Kind::Union)
            continue;
        auto [it, added] =
            definitions_.try_emplace(Key{kind == ir::Kind::Union, base.name(id)}, id);
        if (!added)
            it->second = ir::kVoidType; // two of one name: the declaration stays
    }
    std::erase_if(declarations_,
                  [&](const auto& entry) { return definitions_.contains(entry.first); });
}

size_t BaseDeclarations::KeyHash::operator()(const Key& key) const {
    return hashing::combineText(key.isUnion, key.name);
}

void BaseDeclarations::resolveDeclarations(const ir::TypeGraph& unit,
                                           std::vector<TypeId>& preMapped,
                                           std::vector<TypeId>& placeholders) const {
    if (definitions_.empty())
        return;
    for (TypeId id = 1; id < unit.endId(); ++id) {
        if (unit.kind(id) != ir::Kind::Fwd || preMapped[id - 1] != kNotPreMapped)
            continue;
        auto it = definitions_.find(Key{unit.getAs<ir::FwdType>(id).isUnion, unit.name(id)});
        if (it == definitions_.end() || it->second == ir::kVoidType)
            continue;
        placeholders.push_back(id);
        preMapped[id - 1] = it->second;
    }
}

void BaseDeclarations::referToDeclarations(ir::TypeGraph& unit, std::vector<TypeId>& preMapped,
                                           std::vector<TypeId>& placeholders) const {
    if (declarations_.empty())
        return;
    std::unordered_map<TypeId, TypeId> declarationOf; // unit definition -> its declaration
    const TypeId end = unit.endId();
    for (TypeId id = 1; id < end; ++id) {
        const ir::Kind kind = unit.kind(id);
        if ((kind != ir::Kind::Struct && kind != ir::Kind::Union) || unit.name(id).empty())
            continue;
        const bool isUnion = kind == ir::Kind::Union;
        auto it = declarations_.find(Key{isUnion, unit.name(id)});
        if (it == declarations_.end())
            continue;
        const TypeId declaration = unit.add(ir::FwdType{unit.nameId(id), isUnion});
        preMapped.push_back(it->second);
        placeholders.push_back(declaration);
        declarationOf.emplace(id, declaration);
    }
    if (declarationOf.empty())
        return;
    for (TypeId id = 1; id < end; ++id) {
        unit.visit(id, [&](const auto& t) {
            using T = std::decay_t<decltype(t)>;
            if constexpr (ir::isReferenceKind(T::kKind)) {
                auto it = declarationOf.find(t.type);
                if (it == declarationOf.end())
                    return;
                T redirected = t;
                redirected.type = it->second;
                unit.replace(id, redirected);
            }
        });
    }
}

} // namespace btforge::dedup
