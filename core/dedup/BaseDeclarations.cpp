#include "BaseDeclarations.h"

#include <unordered_map>

namespace btforge::dedup {

using ir::Kind;
using ir::TypeId;

bool EarlyResolution::narrow(const GraphMerger::Result& result) {
    if (!result.earlyEnumRedefined && !result.earlyDeclarationRedefined)
        return false;
    enums = enums && !result.earlyEnumRedefined;
    structs = structs && !result.earlyDeclarationRedefined;
    return true;
}

BaseDeclarations::BaseDeclarations(const ir::TypeGraph& base, const BaseIndex& index, bool structs)
    : base_(base), index_(index), structs_(structs) {}

TypeId BaseDeclarations::onlyDefinition(Kind family, std::string_view name) const {
    TypeId found = ir::kVoidType;
    bool several = false;
    index_.forEachNamed(family, name, [&](TypeId id) {
        several = found != ir::kVoidType;
        found = id;
        return several;
    });
    return several ? ir::kVoidType : found;
}

TypeId BaseDeclarations::onlyEnumDefinition(std::string_view name, uint32_t size) const {
    TypeId found = ir::kVoidType;
    bool refused = false;
    auto visit = [&](TypeId id) {
        const auto [baseSize, isDeclaration] = enumShape(base_, id);
        if (baseSize != size)
            return false;
        refused = isDeclaration || found != ir::kVoidType;
        found = id;
        return refused;
    };
    index_.forEachNamed(Kind::Enum, name, visit);
    if (!refused)
        index_.forEachNamed(Kind::Enum64, name, visit);
    return refused ? ir::kVoidType : found;
}

void BaseDeclarations::resolveDeclarations(const ir::TypeGraph& unit,
                                           std::vector<TypeId>& preMapped,
                                           std::vector<TypeId>& placeholders) const {
    for (TypeId id = 1; structs_ && id < unit.endId(); ++id) {
        if (unit.kind(id) != Kind::Fwd || preMapped[id - 1] != kNotPreMapped)
            continue;
        const TypeId definition = onlyDefinition(
            unit.getAs<ir::FwdType>(id).isUnion ? Kind::Union : Kind::Struct, unit.name(id));
        if (definition == ir::kVoidType)
            continue;
        placeholders.push_back(id);
        preMapped[id - 1] = definition;
    }
}

void BaseDeclarations::resolveEnumDeclarations(const ir::TypeGraph& unit,
                                               std::vector<TypeId>& preMapped,
                                               std::vector<TypeId>& placeholders) const {
    for (TypeId id = 1; id < unit.endId(); ++id) {
        const Kind kind = unit.kind(id);
        if ((kind != Kind::Enum && kind != Kind::Enum64) || preMapped[id - 1] != kNotPreMapped ||
            unit.name(id).empty())
            continue;
        const auto [size, isDeclaration] = enumShape(unit, id);
        if (!isDeclaration)
            continue;
        const TypeId definition = onlyEnumDefinition(unit.name(id), size);
        if (definition == ir::kVoidType)
            continue;
        placeholders.push_back(id);
        preMapped[id - 1] = definition;
    }
}

void BaseDeclarations::referToDeclarations(ir::TypeGraph& unit, std::vector<TypeId>& preMapped,
                                           std::vector<TypeId>& placeholders) const {
    std::unordered_map<TypeId, TypeId> declarationOf; // unit definition -> its declaration
    const TypeId end = unit.endId();
    for (TypeId id = 1; id < end; ++id) {
        const Kind kind = unit.kind(id);
        if ((kind != Kind::Struct && kind != Kind::Union) || unit.name(id).empty())
            continue;
        const bool isUnion = kind == Kind::Union;
        bool defined = false;
        index_.forEachNamed(kind, unit.name(id), [&](TypeId) { return defined = true; });
        if (defined)
            continue;
        TypeId baseDeclaration = ir::kVoidType;
        index_.forEachNamed(Kind::Fwd, unit.name(id), [&](TypeId fwd) {
            if (base_.getAs<ir::FwdType>(fwd).isUnion == isUnion)
                baseDeclaration = fwd;
            return baseDeclaration != ir::kVoidType;
        });
        if (baseDeclaration == ir::kVoidType)
            continue;
        const TypeId declaration = unit.add(ir::FwdType{unit.nameId(id), isUnion});
        preMapped.push_back(baseDeclaration);
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
