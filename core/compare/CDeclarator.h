// Types as C spells them, for people: "const char *", "int (*)[4]", "struct {int a; long b;}",
// "int foo(struct sk_buff *skb, int len)", and one line for a type present on one side only.
#pragma once

#include "ComparedGraph.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace btforge::compare::detail {

std::string quoted(std::string_view name);
std::string_view funcLinkageName(ir::FuncLinkage linkage);
std::string_view varLinkageName(ir::VarLinkage linkage);
// "signed char", "bool", "unsigned": the INT encoding bits in words.
std::string intEncodingName(uint8_t encoding);

// How far a rendering for people goes: anonymous types spelled out this many levels deep, and a
// bound on reference chains so that no graph can make it run away.
struct Budget {
    unsigned expansions = 2;
    unsigned links = 64;
};

class CDeclarator {
public:
    explicit CDeclarator(const ComparedGraph& view) : view_(view), graph_(view.graph()) {}

    // C's spelling of `id` around `declarator`: spell(ptr-to-char, "p") is "char *p".
    std::string spell(TypeId id, std::string declarator = {}, Budget budget = {}) const;
    // "int foo(struct sk_buff *skb, int len)".
    std::string spellFunction(TypeId func) const;
    std::string spellMember(const ir::Member& m) const;
    // One line for a type present on one side only.
    std::string describe(TypeId id) const;
    // A DECL_TAG is known by its value and what it tags: "'bpf_kfunc' on func bpf_obj_new".
    std::string declTagKey(TypeId id) const;

private:
    std::string tagged(TypeId id) const;
    std::string qualifierOf(TypeId id) const;
    // "struct {int a; long b;}", "enum {A = 0, B = 1, ...}": anonymous types spelled by their
    // contents, a few items and levels deep.
    std::string spellAnonymous(TypeId id, Budget budget) const;
    std::string spellPrototype(const Prototype& proto, std::string declarator, bool withNames,
                               Budget budget) const;
    std::string componentName(TypeId id, uint32_t index) const;
    const ComparedGraph& view_;
    const TypeGraph& graph_;
};

} // namespace btforge::compare::detail
