#include "dwarf/Observations.h"

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

} // namespace btforge::dwarf
