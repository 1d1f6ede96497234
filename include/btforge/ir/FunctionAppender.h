// Appends FUNCs to a graph, each FUNC_PROTO shared by every FUNC (and function pointer) of the
// same prototype. Over a base (a module over vmlinux), a FUNC or DECL_TAG the base already has is
// the base's, as libbpf's btf__dedup resolves split BTF: the split graph repeats none of them.
#pragma once

#include "btforge/Export.h"
#include "btforge/ir/TypeGraph.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>

namespace btforge::ir {

class BTFORGE_API FunctionAppender {
public:
    // Indexes the FUNC_PROTOs the graph and its base already have, so they are reused, and the
    // base's FUNCs and DECL_TAGs.
    explicit FunctionAppender(TypeGraph& graph);

    // The id of a FUNC_PROTO with this prototype (parameter names included), added if new.
    TypeId proto(TypeId returnType, std::span<const Param> params);
    // A FUNC with an address (the extension) is never the base's: the base's carry their own.
    TypeId addFunction(std::string_view name, TypeId proto, FuncLinkage linkage,
                       std::optional<uint64_t> address = std::nullopt);
    // A DECL_TAG `value` on `target` (componentIndex -1: on the type itself).
    TypeId addTag(std::string_view value, TypeId target, int32_t componentIndex);

private:
    // A base FUNC (name, prototype, linkage) or DECL_TAG (value, target, component): the fields
    // libbpf's dedup compares. Names are views into the base's strings: no copy per base type.
    struct BaseKey {
        std::string_view name;
        TypeId target;
        int64_t detail;
        bool operator==(const BaseKey&) const = default;
    };
    struct BaseKeyHash {
        size_t operator()(const BaseKey& key) const;
    };

    std::string key(TypeId returnType, std::span<const Param> params) const;

    TypeGraph& graph_;
    std::unordered_map<std::string, TypeId> protos_;
    // The base's FUNCs without address, and its DECL_TAGs.
    std::unordered_map<BaseKey, TypeId, BaseKeyHash> baseFunctions_;
    std::unordered_map<BaseKey, TypeId, BaseKeyHash> baseTags_;
};

} // namespace btforge::ir
