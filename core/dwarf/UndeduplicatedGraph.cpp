#include "UndeduplicatedGraph.h"

#include "btforge/dwarf/LoaderOptions.h"

namespace btforge::dwarf {

using ir::TypeId;

uint32_t UndeduplicatedGraph::append(size_t index, const MappedUnit& mapped) {
    const ir::TypeGraph& unit = mapped.graph;
    graph_.setTargetAs(unit); // the byte order and pointer size of the input, as every unit's
    std::vector<TypeId> map(unit.ownCount());
    TypeId next = graph_.endId();
    for (TypeId id = 1; id < unit.endId(); ++id) {
        TypeId pre = mapped.preMapped[id - 1];
        map[id - 1] = pre != kNotPreMapped ? pre : next++;
    }
    // References into other units are to those units' types in this graph.
    uint32_t unresolved = 0;
    for (const auto& [placeholder, target] : mapped.externals) {
        auto it = exported_.find(target);
        map[placeholder - 1] = it != exported_.end() ? it->second : ir::kVoidType;
        unresolved += it == exported_.end();
    }
    const TypeId first = graph_.endId();
    auto mapRef = [&](TypeId id) { return id == ir::kVoidType ? id : map[id - 1]; };
    for (TypeId id = 1; id < unit.endId(); ++id) {
        if (mapped.preMapped[id - 1] == kNotPreMapped)
            graph_.add(ir::rewrite(unit, unit.get(id), graph_, mapRef, scratch_));
    }
    for (const auto& [offset, local] : mapped.exportedTypes)
        exported_.emplace(offset, mapRef(local));
    if (markUnits_ && graph_.endId() > first)
        graph_.add(ir::DeclTagType{graph_.intern(kUnitTag), first, -1});
    observations_[index] = mapped.observations;
    observations_[index].remapTypes(mapRef);
    return unresolved;
}

UnitObservations UndeduplicatedGraph::takeObservations() {
    UnitObservations all;
    for (UnitObservations& unit : observations_)
        all.append(std::move(unit));
    return all;
}

} // namespace btforge::dwarf
