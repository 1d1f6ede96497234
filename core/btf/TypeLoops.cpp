#include "TypeLoops.h"

#include "../ir/TypeWalk.h"
#include "support/Cycles.h"

#include <type_traits>

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

namespace {

// The one type a chain kind stands for; void for other kinds.
template <typename T> TypeId chainTarget(const T& t) {
    if constexpr (ir::hasTarget<T>)
        return t.type;
    else if constexpr (std::is_same_v<T, ir::ArrayType>)
        return t.elemType;
    else
        return ir::kVoidType;
}

template <typename T>
constexpr bool isChainKind = ir::hasTarget<T> || std::is_same_v<T, ir::ArrayType>;

} // namespace

void chainEdges(const ir::TypeGraph& graph, TypeId id, std::vector<TypeId>& out) {
    graph.visit(id, [&](const auto& t) {
        if constexpr (isChainKind<std::decay_t<decltype(t)>>)
            out.push_back(chainTarget(t));
    });
}

void valueEdges(const ir::TypeGraph& graph, TypeId id, std::vector<TypeId>& out) {
    graph.visit(id, [&](const auto& t) {
        using T = std::decay_t<decltype(t)>;
        if constexpr (requires { t.members; }) {
            for (const ir::Member& member : t.members)
                out.push_back(member.type);
        } else if constexpr (isChainKind<T> && !std::is_same_v<T, ir::PtrType>) {
            out.push_back(chainTarget(t));
        }
    });
}

bool anyLoop(const ir::TypeGraph& graph) {
    const TypeId first = graph.firstId();
    const uint32_t count = graph.ownCount();
    auto own = [&](TypeId id) { return id - first < count; }; // wraps below first
    // Each type's chain target (void for none), whether it is a pointer, and a composite's
    // member types (from memberStart[i] to memberStart[i + 1]).
    std::vector<TypeId> chain(count, ir::kVoidType);
    std::vector<uint8_t> pointer(count, 0), composite(count, 0);
    std::vector<uint32_t> memberStart(count + 1, 0);
    std::vector<TypeId> members;
    for (uint32_t i = 0; i < count; ++i) {
        memberStart[i] = static_cast<uint32_t>(members.size());
        graph.visit(first + i, [&](const auto& t) {
            using T = std::decay_t<decltype(t)>;
            if constexpr (isChainKind<T>)
                chain[i] = chainTarget(t);
            pointer[i] = std::is_same_v<T, ir::PtrType>;
            if constexpr (requires { t.members; }) {
                composite[i] = 1;
                for (const ir::Member& m : t.members)
                    members.push_back(m.type);
            }
        });
    }
    memberStart[count] = static_cast<uint32_t>(members.size());
    // Chains: each type has at most one edge, so following them from every type, marking the
    // way, meets a type on the current way only on a loop.
    enum : uint8_t { kUnvisited, kOnPath, kDone };
    std::vector<uint8_t> state(count, kUnvisited);
    std::vector<uint32_t> way;
    for (uint32_t root = 0; root < count; ++root) {
        way.clear();
        TypeId at = first + root;
        while (own(at) && state[at - first] == kUnvisited) {
            state[at - first] = kOnPath;
            way.push_back(at - first);
            at = chain[at - first];
        }
        if (own(at) && state[at - first] == kOnPath)
            return true;
        for (uint32_t i : way)
            state[i] = kDone;
    }
    // By value, chains (but pointers) end at a struct or union, or nowhere: a loop goes through
    // composites only, each holding the composites its members' chains end at. Each chain is
    // walked once: the way to a type whose end is known takes that end.
    constexpr uint32_t kNowhere = UINT32_MAX;
    std::vector<uint32_t> endOf(count, kNowhere);
    std::vector<uint8_t> ended(count, 0);
    for (uint32_t i = 0; i < count; ++i) {
        way.clear();
        TypeId at = first + i;
        while (own(at) && !ended[at - first] && !composite[at - first] && !pointer[at - first]) {
            way.push_back(at - first);
            at = chain[at - first];
        }
        uint32_t end = kNowhere;
        if (own(at))
            end = ended[at - first] ? endOf[at - first] : composite[at - first] ? at - first : end;
        way.push_back(i);
        for (uint32_t j : way) {
            endOf[j] = end;
            ended[j] = 1;
        }
    }
    // Each composite holds what its members' chains end at.
    for (TypeId& member : members)
        member = own(member) ? endOf[member - first] : kNowhere;
    return support::hasCycle(memberStart, members, [&](uint32_t node) { return composite[node]; });
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
