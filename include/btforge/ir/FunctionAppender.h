// Appends FUNCs to a graph, each FUNC_PROTO shared by every FUNC (and function pointer) of the
// same prototype: the DWARF pipeline and the FUNC address conversions build functions alike.
#pragma once

#include "btforge/Export.h"
#include "btforge/ir/TypeGraph.h"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>

namespace btforge::ir {

class BTFORGE_API FunctionAppender {
public:
    // Indexes the FUNC_PROTOs the graph and its base already have, so they are reused.
    explicit FunctionAppender(TypeGraph& graph);

    // The id of a FUNC_PROTO with this prototype (parameter names included), added if new.
    TypeId proto(TypeId returnType, std::span<const Param> params);
    TypeId addFunction(std::string_view name, TypeId proto, FuncLinkage linkage,
                       std::optional<uint64_t> address = std::nullopt);

private:
    std::string key(TypeId returnType, std::span<const Param> params) const;

    TypeGraph& graph_;
    std::unordered_map<std::string, TypeId> protos_;
};

} // namespace btforge::ir
