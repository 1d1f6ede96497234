#include "TypeLoops.h"

namespace btforge::btf::detail {

using ir::Kind;
using ir::TypeId;

std::span<const ir::Member> membersOf(const ir::TypeView& view) {
    if (const auto* s = std::get_if<ir::StructType>(&view))
        return s->members;
    if (const auto* u = std::get_if<ir::UnionType>(&view))
        return u->members;
    return {};
}

void chainEdges(const ir::TypeGraph& graph, TypeId id, std::vector<TypeId>& out) {
    Kind kind = graph.kind(id);
    if (ir::isReferenceKind(kind) || kind == Kind::Array || kind == Kind::Var ||
        kind == Kind::DeclTag)
        out.push_back(graph.target(id));
}

void valueEdges(const ir::TypeGraph& graph, TypeId id, std::vector<TypeId>& out) {
    Kind kind = graph.kind(id);
    if (kind == Kind::Struct || kind == Kind::Union) {
        for (const ir::Member& member : membersOf(graph.get(id)))
            out.push_back(member.type);
    } else if (kind != Kind::Ptr) {
        chainEdges(graph, id, out);
    }
}

// Iterative depth-first search:
// a kernel's chains are too deep for recursion. Base types never lead to own ones, so only own
// types can be on a loop.
std::vector<TypeId> findLoop(const ir::TypeGraph& graph, EdgeFn edges) {
    enum : uint8_t { kUnvisited, kOnPath, kFinished };
    const TypeId first = graph.firstId();
    std::vector<uint8_t> state(graph.ownCount(), kUnvisited);
    struct Frame {
        TypeId id;
        size_t begin; // its edges in `pending`; they run to pending's end while it is on top
        size_t next;
    };
    std::vector<Frame> path;
    std::vector<TypeId> pending;
    auto enter = [&](TypeId id) {
        state[id - first] = kOnPath;
        size_t begin = pending.size();
        edges(graph, id, pending);
        path.push_back({id, begin, begin});
    };
    for (TypeId root = first; root < graph.endId(); ++root) {
        if (state[root - first] != kUnvisited)
            continue;
        enter(root);
        while (!path.empty()) {
            Frame& top = path.back();
            if (top.next == pending.size()) {
                state[top.id - first] = kFinished;
                pending.resize(top.begin);
                path.pop_back();
                continue;
            }
            TypeId to = pending[top.next++];
            if (!graph.isOwn(to) || state[to - first] == kFinished)
                continue;
            if (state[to - first] == kUnvisited) {
                enter(to);
                continue;
            }
            std::vector<TypeId> loop;
            size_t start = path.size();
            while (path[start - 1].id != to)
                --start;
            for (size_t i = start - 1; i < path.size(); ++i)
                loop.push_back(path[i].id);
            return loop;
        }
    }
    return {};
}

} // namespace btforge::btf::detail
