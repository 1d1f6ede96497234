// Types spelt as pahole spells them where one type names another (its quirks included): a
// qualifier keeps a trailing space ("const char " inside "const char  *"), a const pointer is
// "T * const", a function type is "RET ()(PARAMS)". The printer spells members with these.
#pragma once

#include "btforge/ir/TypeGraph.h"

#include <string>
#include <string_view>

namespace btforge::layout {

class TypeNames {
public:
    // `fromBtf`: the graph was read from BTF, whose FLOATs pahole spells "single NAME" (its BTF
    // reader makes every FLOAT a single-precision base type whose name lacks its encoding).
    TypeNames(const ir::TypeGraph& graph, bool fromBtf) : graph_(graph), fromBtf_(fromBtf) {}

    // The name of `id` inside another type's name or a parameter list.
    std::string name(ir::TypeId id) const;
    void appendName(ir::TypeId id, std::string& out) const;
    // "(int, char *)", "(void)", "(int, ...)".
    void appendParameters(const ir::FuncProtoType& proto, std::string& out) const;
    // A function type with its declarator: the return type padded to `spacing`, then
    // "(*NAME)(PARAMS)" for a pointer, "(NAME)(PARAMS)" for the function type itself.
    void appendFunction(const ir::FuncProtoType& proto, std::string_view declarator, int spacing,
                        bool pointer, std::string& out) const;

    // What a pointer points to, past the type tags on it: pahole prints none, so a member that
    // is a tagged function pointer (the kernel's `void (__rcu *handler)(...)`) is written as any
    // other. Only for members: inside names and parameter lists pahole does not look past them.
    ir::TypeId pointee(ir::TypeId pointer) const;

    // "struct", "union" or "enum" for the kinds that have a tag, else empty.
    static std::string_view keyword(const ir::TypeView& view);

private:
    const ir::TypeGraph& graph_;
    bool fromBtf_;
};

// Appends `text` left-justified in `width` columns (printf's "%-*s").
void appendPadded(std::string& out, std::string_view text, int width);

} // namespace btforge::layout
