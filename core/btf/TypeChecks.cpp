#include "btforge/btf/TypeChecks.h"

#include "BtfCommon.h"
#include "TypeLoops.h"

#include <algorithm>
#include <vector>

namespace btforge::btf {
namespace {

using detail::membersOf;
using ir::Kind;
using ir::TypeId;

constexpr size_t kMaxLoopShown = 8;

// The graph and the ids its messages show.
struct Checked {
    const ir::TypeGraph& graph;
    std::span<const TypeId> shownIds;

    std::string id(TypeId id) const {
        const bool renamed = !shownIds.empty() && graph.isOwn(id);
        return "[" + std::to_string(renamed ? shownIds[id - graph.firstId()] : id) + "]";
    }
    std::string describe(TypeId type) const {
        if (type == ir::kVoidType)
            return "type [0] (void)";
        std::string out = "type " + id(type) + " " + std::string(ir::kindName(graph.kind(type)));
        if (std::string_view s = graph.name(type); !s.empty())
            out += " " + quoted(s);
        return out;
    }
    std::string describeLoop(const std::vector<TypeId>& loop) const {
        std::string out;
        for (size_t i = 0; i < loop.size() && i < kMaxLoopShown; ++i)
            out += id(loop[i]) + " " + std::string(ir::kindName(graph.kind(loop[i]))) + " -> ";
        if (loop.size() > kMaxLoopShown)
            out += "... -> ";
        return out + id(loop.front());
    }
};

// A FUNC's type must be a FUNC_PROTO.
std::optional<TypeFault> funcTargetFault(const Checked& c, TypeId id) {
    const ir::TypeGraph& graph = c.graph;
    const TypeId proto = graph.target(id);
    if (graph.kind(proto) == Kind::FuncProto)
        return std::nullopt;
    return TypeFault{id, TypeFault::Field::Target,
                     c.describe(id) + ": refers to " + c.describe(proto) + ", not a FUNC_PROTO"};
}

// How many members or parameters a tag's target has; nothing for kinds without components.
std::optional<size_t> componentCount(const ir::TypeGraph& graph, TypeId target) {
    switch (graph.kind(target)) {
    case Kind::Struct:
    case Kind::Union:
        return membersOf(graph, target).size();
    case Kind::Func:
        target = graph.target(target); // a FUNC_PROTO unless the FUNC is itself the fault
        if (graph.kind(target) != Kind::FuncProto)
            return std::nullopt;
        [[fallthrough]];
    case Kind::FuncProto:
        return graph.getAs<ir::FuncProtoType>(target).params.size();
    default:
        return std::nullopt;
    }
}

// A DECL_TAG's component_idx must name a member or parameter of its target.
std::optional<TypeFault> declTagFault(const Checked& c, TypeId id) {
    const ir::TypeGraph& graph = c.graph;
    const auto tag = graph.getAs<ir::DeclTagType>(id);
    if (tag.componentIndex < 0)
        return std::nullopt;
    const std::optional<size_t> count = componentCount(graph, tag.type);
    if (count && static_cast<size_t>(tag.componentIndex) < *count)
        return std::nullopt;
    return TypeFault{id, TypeFault::Field::ComponentIndex,
                     c.describe(id) + ": component_idx " + std::to_string(tag.componentIndex) +
                         " is out of range for " + c.describe(tag.type) + " (" +
                         (count ? std::to_string(*count) : "no") + " members or parameters)"};
}

// FUNC targets, then DECL_TAG components, each in id order, in one pass over the kinds: the
// first bad FUNC is the fault even after a bad tag.
std::optional<TypeFault> checkFuncsAndTags(const Checked& c) {
    const ir::TypeGraph& graph = c.graph;
    std::optional<TypeFault> tagFault;
    for (TypeId id = graph.firstId(); id < graph.endId(); ++id) {
        const Kind kind = graph.kind(id);
        if (kind == Kind::Func) {
            if (auto fault = funcTargetFault(c, id))
                return fault;
        } else if (kind == Kind::DeclTag && !tagFault) {
            tagFault = declTagFault(c, id);
        }
    }
    return tagFault;
}

std::optional<TypeFault> checkLoops(const Checked& c) {
    const ir::TypeGraph& graph = c.graph;
    if (!detail::anyLoop(graph))
        return std::nullopt;
    if (std::vector<TypeId> loop = detail::findLoop(graph, detail::chainEdges); !loop.empty())
        return TypeFault{loop.front(), TypeFault::Field::Record,
                         c.describe(loop.front()) +
                             " is on a reference loop that never reaches a type with a size: " +
                             c.describeLoop(loop)};
    if (std::vector<TypeId> loop = detail::findLoop(graph, detail::valueEdges); !loop.empty()) {
        // Name the struct or union: every loop left after the first check has one.
        for (size_t i = 0; i < loop.size(); ++i) {
            Kind kind = graph.kind(loop[i]);
            if (kind == Kind::Struct || kind == Kind::Union) {
                std::rotate(loop.begin(), loop.begin() + static_cast<ptrdiff_t>(i), loop.end());
                break;
            }
        }
        return TypeFault{loop.front(), TypeFault::Field::Record,
                         c.describe(loop.front()) +
                             " contains itself by value: " + c.describeLoop(loop)};
    }
    return std::nullopt;
}

} // namespace

std::optional<TypeFault> findTypeFault(const ir::TypeGraph& graph,
                                       std::span<const TypeId> shownIds) {
    const Checked checked{graph, shownIds};
    for (auto check : {checkFuncsAndTags, checkLoops}) {
        if (auto fault = check(checked))
            return fault;
    }
    return std::nullopt;
}

} // namespace btforge::btf
