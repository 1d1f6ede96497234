#include "Rebuild.h"

namespace btforge::amend::detail {

ir::TypeGraph rebuild(const ir::TypeGraph& graph, const RebuildPlan& plan,
                      const ChangeType& change) {
    const ir::TypeId first = graph.firstId();
    std::vector<ir::TypeId> newIds(graph.ownCount(), ir::kVoidType);
    ir::TypeId next = first;
    for (uint32_t i = 0; i < graph.ownCount(); ++i) {
        if (!plan.removed[i])
            newIds[i] = next++;
    }
    auto mapRef = [&](ir::TypeId id) {
        // Redirections form chains (TYPE_TAG to TYPE_TAG), never cycles: BtfReader refuses
        // reference loops.
        while (graph.isOwn(id) && plan.removed[id - first])
            id = plan.redirect[id - first];
        return graph.isOwn(id) ? newIds[id - first] : id;
    };

    ir::TypeGraph out(graph.sharedBase());
    out.setTargetAs(graph);
    out.reserve(next - first);
    ir::ListScratch changed, copied;
    for (ir::TypeId id = first; id < graph.endId(); ++id) {
        if (plan.removed[id - first])
            continue;
        ir::TypeView view = graph.get(id);
        if (change)
            view = change(id, view, changed);
        out.add(ir::rewrite(graph, view, out, mapRef, copied));
    }
    return out;
}

} // namespace btforge::amend::detail
