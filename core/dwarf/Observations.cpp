#include "btforge/dwarf/Observations.h"

namespace btforge::dwarf {

void UnitObservations::remapTypes(std::span<const ir::TypeId> map, ir::TypeId firstId) {
    auto remap = [&](ir::TypeId& id) {
        if (id != ir::kVoidType)
            id = map[id - firstId];
    };
    for (FunctionObservation& f : functions)
        remap(f.returnType);
    for (ParamObservation& p : params)
        remap(p.type);
    for (VariableObservation& v : variables)
        remap(v.type);
}

void UnitObservations::append(UnitObservations&& other) {
    text.adopt(other.text);
    auto paramBase = static_cast<uint32_t>(params.size());
    auto tagBase = static_cast<uint32_t>(tags.size());
    for (FunctionObservation f : other.functions) {
        f.paramFirst += paramBase;
        f.tagFirst += tagBase;
        functions.push_back(f);
    }
    for (VariableObservation v : other.variables) {
        v.tagFirst += tagBase;
        variables.push_back(v);
    }
    params.insert(params.end(), other.params.begin(), other.params.end());
    tags.insert(tags.end(), other.tags.begin(), other.tags.end());
}

void UnitObservations::retainFunctions(
    const std::function<bool(const FunctionObservation&)>& keep) {
    std::vector<FunctionObservation> keptFunctions;
    std::vector<ParamObservation> keptParams;
    std::vector<TagObservation> keptTags;
    for (const FunctionObservation& f : functions) {
        if (!keep(f))
            continue;
        FunctionObservation copy = f;
        copy.paramFirst = static_cast<uint32_t>(keptParams.size());
        copy.tagFirst = static_cast<uint32_t>(keptTags.size());
        auto p = paramsOf(f);
        auto t = tagsOf(f);
        keptParams.insert(keptParams.end(), p.begin(), p.end());
        keptTags.insert(keptTags.end(), t.begin(), t.end());
        keptFunctions.push_back(copy);
    }
    // Variables' tags stay where they are: they follow the functions' in the new list.
    for (VariableObservation& v : variables) {
        auto t = tagsOf(v);
        v.tagFirst = static_cast<uint32_t>(keptTags.size());
        keptTags.insert(keptTags.end(), t.begin(), t.end());
    }
    functions = std::move(keptFunctions);
    params = std::move(keptParams);
    tags = std::move(keptTags);
}

} // namespace btforge::dwarf
