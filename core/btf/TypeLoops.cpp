#include "TypeLoops.h"

#include "../ir/TypeWalk.h"
#include "support/Cycles.h"

#include <type_traits>

namespace btforge::btf::detail {

using ir::Kind;
using ir::TypeId;

std::span<const ir::Member> membersOf(const ir::TypeGraph& graph, TypeId id) {
    return graph.visit(id, [](const auto& t) -> std::span<const ir::Member> {
        if constexpr (requires { t.members; })
            return t.members;
        else
            return {};
    });
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
    constexpr uint32_t kNone = UINT32_MAX;
    // Own types by index from the first; an edge to void or the base is kNone (base types never
    // lead to own ones, so no loop passes through them).
    auto local = [&](TypeId id) { return id - first < count ? id - first : kNone; };
    // One walk along the chains from each type not yet met: each type has at most one chain
    // edge, so a walk meets a type on its own way only on a loop. Unwinding the way gives each
    // type its value end: the struct or union (numbered apart, as only they can be on a by-value
    // loop) its chain reaches before any pointer, or kNone.
    enum : uint8_t { kUnvisited, kOnPath, kDone };
    enum class Step : uint8_t { Composite, Pointer, Chain, End };
    std::vector<uint8_t> state(count, kUnvisited);
    std::vector<uint32_t> valueEnd(count, kNone);
    std::vector<TypeId> composites;
    std::vector<std::pair<uint32_t, Step>> way;
    auto stepOf = [](Kind kind) {
        if (kind == Kind::Struct || kind == Kind::Union)
            return Step::Composite;
        if (kind == Kind::Ptr)
            return Step::Pointer;
        if (ir::isReferenceKind(kind) || kind == Kind::Var || kind == Kind::DeclTag ||
            kind == Kind::Array)
            return Step::Chain;
        return Step::End;
    };
    for (uint32_t root = 0; root < count; ++root) {
        if (state[root] != kUnvisited)
            continue;
        // Most types lead nowhere, or to a type already done: taken without the walk.
        const Step step = stepOf(graph.kind(first + root));
        if (step == Step::Composite || step == Step::End) {
            if (step == Step::Composite) {
                valueEnd[root] = static_cast<uint32_t>(composites.size());
                composites.push_back(first + root);
            }
            state[root] = kDone;
            continue;
        }
        if (const uint32_t to = local(graph.target(first + root));
            to == kNone || state[to] == kDone) {
            valueEnd[root] = step == Step::Chain && to != kNone ? valueEnd[to] : kNone;
            state[root] = kDone;
            continue;
        }
        uint32_t at = root;
        uint32_t end = kNone; // the value end of what the way leads to
        way.clear();
        while (at != kNone) {
            if (state[at] == kOnPath)
                return true;
            if (state[at] == kDone) {
                end = valueEnd[at];
                break;
            }
            state[at] = kOnPath;
            const Step step = stepOf(graph.kind(first + at));
            way.emplace_back(at, step);
            at = step == Step::Chain || step == Step::Pointer ? local(graph.target(first + at))
                                                              : kNone;
        }
        for (auto it = way.rbegin(); it != way.rend(); ++it) {
            const auto [node, step] = *it;
            if (step == Step::Composite) {
                end = static_cast<uint32_t>(composites.size());
                composites.push_back(first + node);
            } else if (step != Step::Chain) {
                end = kNone;
            }
            valueEnd[node] = end;
            state[node] = kDone;
        }
    }
    // The composites' graph: each holds the value ends of its members.
    std::vector<uint32_t> starts;
    std::vector<uint32_t> held;
    starts.reserve(composites.size() + 1);
    for (TypeId id : composites) {
        starts.push_back(static_cast<uint32_t>(held.size()));
        for (const ir::Member& m : membersOf(graph, id)) {
            const uint32_t member = local(m.type);
            if (member != kNone && valueEnd[member] != kNone)
                held.push_back(valueEnd[member]);
        }
    }
    starts.push_back(static_cast<uint32_t>(held.size()));
    return support::hasCycle(starts, held, [](uint32_t) { return true; });
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
