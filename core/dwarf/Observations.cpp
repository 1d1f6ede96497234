#include "dwarf/Observations.h"

namespace btforge::dwarf {

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

void UnitObservations::shrinkToFit() {
    functions.shrink_to_fit();
    params.shrink_to_fit();
    tags.shrink_to_fit();
    variables.shrink_to_fit();
}

} // namespace btforge::dwarf
