// Appends FUNCs to a graph, each FUNC_PROTO shared by every FUNC (and function pointer) of the
// same prototype. Over a base (a module over vmlinux), a FUNC or DECL_TAG the base already has is
// the base's, as libbpf's btf__dedup resolves split BTF: the split graph repeats none of them.
#pragma once

#include "btforge/Export.h"
#include "btforge/ir/TypeGraph.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>

namespace btforge::ir {

struct BaseFunctions; // the base's part, built once per base (core)

class BTFORGE_API FunctionAppender {
public:
    // Indexes the FUNC_PROTOs the graph and its base already have, so they are reused, and the
    // base's FUNCs and DECL_TAGs.
    explicit FunctionAppender(TypeGraph& graph);
    ~FunctionAppender();
    FunctionAppender(const FunctionAppender&) = delete;
    FunctionAppender& operator=(const FunctionAppender&) = delete;

    // The id of a FUNC_PROTO with this prototype (parameter names included), added if new.
    TypeId proto(TypeId returnType, std::span<const Param> params);
    // A FUNC with an address (the extension) is never the base's: the base's carry their own.
    TypeId addFunction(std::string_view name, TypeId proto, FuncLinkage linkage,
                       std::optional<uint64_t> address = std::nullopt);
    // A DECL_TAG `value` on `target` (componentIndex -1: on the type itself).
    TypeId addTag(std::string_view value, TypeId target, int32_t componentIndex);
    // A PTR to a TYPE_TAG `attribute` in its attribute form (kind_flag 1) on `pointee`; the
    // first such pair the graph or its base has, as deduplication would leave one.
    TypeId attributedPointer(std::string_view attribute, TypeId pointee);

private:
    // Prototypes are found by a hash of their types and compared whole on a hit (names by text:
    // the base's and the graph's are interned apart); the first of equal ones is shared.
    TypeGraph& graph_;
    // What the base below the graph has, derived from it alone and so built once per base:
    // its prototypes, and its FUNCs without address by their FUNC_PROTO and DECL_TAGs by their
    // target (a FUNC or tag can only be the base's if it refers to the same base type).
    std::shared_ptr<const BaseFunctions> base_;
    struct Prototypes; // the graph's own, by protoHash: a flat table of the core's
    std::unique_ptr<Prototypes> protos_;
};

} // namespace btforge::ir
