#include "amend/FeatureDowngrade.h"

#include "Rebuild.h"

#include "btforge/btf/FuncAddrExtension.h"

namespace btforge::amend {
namespace {

using ir::Kind;
using ir::TypeId;

// The tags pahole writes from .BTF_ids set8 flags; decl_tag_kfuncs off removes them.
bool isKfuncTag(const ir::TypeGraph& graph, TypeId tag) {
    const std::string_view name = graph.name(tag);
    return (name == "bpf_kfunc" || name == "bpf_fastcall") &&
           graph.kind(graph.target(tag)) == Kind::Func;
}

} // namespace

std::optional<ir::TypeGraph> downgrade(const ir::TypeGraph& graph, const FeatureSet& features) {
    const bool declTags = features.has(Feature::DeclTag);
    const bool kfuncTags = features.has(Feature::DeclTagKfuncs);
    const bool typeTags = features.has(Feature::TypeTag);
    const bool enum64 = features.has(Feature::Enum64);
    const bool floats = features.has(Feature::Float);

    detail::RebuildPlan plan(graph);
    bool changes = false;
    for (TypeId id = graph.firstId(); id < graph.endId(); ++id) {
        const uint32_t i = id - graph.firstId();
        switch (graph.kind(id)) {
        case Kind::DeclTag:
            // The extension's markers are part of its encoding, not tags a feature governs.
            plan.removed[i] = !btf::isFuncAddrMarker(graph.name(id)) &&
                              (!declTags || (!kfuncTags && isKfuncTag(graph, id)));
            break;
        case Kind::TypeTag:
            plan.removed[i] = !typeTags;
            plan.redirect[i] = graph.target(id);
            break;
        case Kind::Enum:
            changes |= !enum64 && graph.getAs<ir::EnumType>(id).isSigned;
            break;
        case Kind::Enum64:
            changes |= !enum64;
            break;
        case Kind::Float:
            changes |= !floats;
            break;
        default:
            break;
        }
        changes |= plan.removed[i];
    }
    if (!changes)
        return std::nullopt;

    auto change = [&](TypeId, const ir::TypeView& view, ir::ListScratch& scratch) -> ir::TypeView {
        if (auto* f = std::get_if<ir::FloatType>(&view); f && !floats)
            return ir::IntType{f->name, f->size, 0, 0, static_cast<uint8_t>(f->size * 8)};
        if (auto* e = std::get_if<ir::EnumType>(&view); e && !enum64)
            return ir::EnumType{e->name, e->size, e->values, false};
        if (auto* e = std::get_if<ir::Enum64Type>(&view); e && !enum64) {
            scratch.enumerators.clear();
            for (const ir::Enumerator& v : e->values)
                scratch.enumerators.push_back({v.name, v.value & UINT32_MAX});
            return ir::EnumType{e->name, e->size, scratch.enumerators, false};
        }
        return view;
    };
    return detail::rebuild(graph, plan, change);
}

} // namespace btforge::amend
