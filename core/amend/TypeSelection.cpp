#include "amend/TypeSelection.h"

#include "Rebuild.h"

#include <algorithm>
#include <unordered_set>

namespace btforge::amend {
namespace {

using ir::Kind;
using ir::TypeId;

// Own types reached from `roots` along "needs" edges. parent[i] is the type that first reached
// own index i (void for a root), for messages.
class Reach {
public:
    explicit Reach(const ir::TypeGraph& graph)
        : graph_(graph), reached_(graph.ownCount(), false),
          parent_(graph.ownCount(), ir::kVoidType) {}

    // `follow(from, to)`: whether to walk that edge.
    template <typename Follow> void from(std::span<const TypeId> roots, Follow&& follow) {
        std::vector<TypeId> work;
        for (TypeId root : roots)
            visit(root, ir::kVoidType, work);
        while (!work.empty()) {
            TypeId id = work.back();
            work.pop_back();
            if (graph_.kind(id) == Kind::DeclTag)
                continue; // a tag goes with its type; it does not need it
            ir::forEachReference(graph_, id, [&](TypeId ref) {
                if (follow(id, ref))
                    visit(ref, id, work);
            });
        }
    }
    bool reached(TypeId id) const { return graph_.isOwn(id) && reached_[index(id)]; }
    TypeId parent(TypeId id) const { return parent_[index(id)]; }

private:
    uint32_t index(TypeId id) const { return id - graph_.firstId(); }
    void visit(TypeId id, TypeId parent, std::vector<TypeId>& work) {
        if (!graph_.isOwn(id) || reached_[index(id)])
            return;
        reached_[index(id)] = true;
        parent_[index(id)] = parent;
        work.push_back(id);
    }

    const ir::TypeGraph& graph_;
    std::vector<bool> reached_;
    std::vector<TypeId> parent_;
};

std::string describe(const ir::TypeGraph& graph, TypeId id) {
    std::string name(graph.name(id));
    return std::string(ir::kindName(graph.kind(id))) + (name.empty() ? "" : " '" + name + "'") +
           " (id " + std::to_string(id) + ")";
}

} // namespace

Expected<ir::TypeGraph> select(const ir::TypeGraph& graph, Selection selection,
                               std::span<const std::string> names) {
    const char* option = selection == Selection::Keep ? "--keep" : "--drop";
    std::unordered_set<std::string_view> wanted(names.begin(), names.end());
    std::unordered_set<std::string_view> found;
    std::vector<TypeId> selected;
    for (TypeId id = graph.firstId(); id < graph.endId(); ++id) {
        auto name = graph.name(id);
        if (graph.kind(id) != Kind::DeclTag && wanted.contains(name)) {
            selected.push_back(id);
            found.insert(name);
        }
    }
    for (const std::string& name : names) {
        if (!found.contains(name))
            return Error::usage(std::string(option) + " " + name + ": no type of that name");
    }
    const auto isSelected = [&](TypeId id) {
        return std::binary_search(selected.begin(), selected.end(), id);
    };

    Reach kept(graph);
    if (selection == Selection::Keep) {
        kept.from(selected, [](TypeId, TypeId) { return true; });
    } else {
        Reach needed(graph); // what the dropped types need
        needed.from(selected, [](TypeId, TypeId) { return true; });
        std::vector<TypeId> roots;
        for (TypeId id = graph.firstId(); id < graph.endId(); ++id) {
            if (!isSelected(id) && !needed.reached(id) && graph.kind(id) != Kind::DeclTag)
                roots.push_back(id);
        }
        // A DATASEC lists a dropped VAR without needing it: the entry goes.
        kept.from(roots, [&](TypeId from, TypeId to) {
            return !(graph.kind(from) == Kind::Datasec && isSelected(to));
        });
        for (TypeId id : selected) {
            if (kept.reached(id))
                return Error::usage(std::string(option) + " " + std::string(graph.name(id)) + ": " +
                                    describe(graph, id) + " is still needed by " +
                                    describe(graph, kept.parent(id)));
        }
    }

    detail::RebuildPlan plan(graph);
    for (TypeId id = graph.firstId(); id < graph.endId(); ++id) {
        const uint32_t i = id - graph.firstId();
        switch (graph.kind(id)) {
        case Kind::DeclTag:
            plan.removed[i] = !kept.reached(graph.target(id)) && graph.isOwn(graph.target(id));
            break;
        case Kind::Datasec: {
            auto entries = graph.getAs<ir::DatasecType>(id).entries;
            plan.removed[i] = (selection == Selection::Drop && isSelected(id)) ||
                              std::none_of(entries.begin(), entries.end(),
                                           [&](const auto& e) { return kept.reached(e.type); });
            break;
        }
        default:
            plan.removed[i] = !kept.reached(id);
        }
    }
    auto trimDatasec = [&](TypeId, const ir::TypeView& view,
                           ir::ListScratch& scratch) -> ir::TypeView {
        auto* datasec = std::get_if<ir::DatasecType>(&view);
        if (!datasec)
            return view;
        scratch.entries.clear();
        for (const ir::VarSecInfo& e : datasec->entries) {
            if (kept.reached(e.type) || !graph.isOwn(e.type))
                scratch.entries.push_back(e);
        }
        return ir::DatasecType{datasec->name, datasec->size, scratch.entries};
    };
    return detail::rebuild(graph, plan, trimDatasec);
}

} // namespace btforge::amend
