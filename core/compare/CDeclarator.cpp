#include "CDeclarator.h"

#include <utility>

namespace btforge::compare::detail {
namespace {

std::string join(std::string_view base, std::string_view declarator) {
    std::string out(base);
    if (!declarator.empty())
        out.append(" ").append(declarator);
    return out;
}

// A pointer declarator binds looser than [] and (): "int (*)[4]", "void (*)(int)".
std::string grouped(const std::string& declarator) {
    return declarator.starts_with('*') ? "(" + declarator + ")" : declarator;
}

std::string counted(size_t count, std::string_view noun) {
    return std::to_string(count) + " " + std::string(noun) + (count == 1 ? "" : "s");
}

} // namespace

std::string quoted(std::string_view name) {
    return "'" + std::string(name) + "'";
}

std::string_view funcLinkageName(ir::FuncLinkage linkage) {
    switch (linkage) {
    case ir::FuncLinkage::Static:
        return "static";
    case ir::FuncLinkage::Global:
        return "global";
    case ir::FuncLinkage::Extern:
        return "extern";
    }
    return "unknown";
}

std::string_view varLinkageName(ir::VarLinkage linkage) {
    switch (linkage) {
    case ir::VarLinkage::Static:
        return "static";
    case ir::VarLinkage::GlobalAllocated:
        return "global";
    case ir::VarLinkage::GlobalExtern:
        return "extern";
    }
    return "unknown";
}

std::string intEncodingName(uint8_t encoding) {
    std::string out;
    for (auto [bit, word] :
         {std::pair{ir::int_encoding::kSigned, "signed"},
          std::pair{ir::int_encoding::kChar, "char"}, std::pair{ir::int_encoding::kBool, "bool"}}) {
        if (encoding & bit)
            out += (out.empty() ? "" : " ") + std::string(word);
    }
    return out.empty() ? "unsigned" : out;
}

std::string CDeclarator::spell(TypeId id, std::string declarator, Budget budget) const {
    if (budget.links == 0)
        return join("...", declarator);
    --budget.links;
    Kind kind = graph_.kind(id);
    std::string_view name = graph_.name(id);
    switch (kind) {
    case Kind::Void:
        return join("void", declarator);
    case Kind::Ptr:
        return spell(graph_.target(id), "*" + declarator, budget);
    case Kind::Const:
    case Kind::Volatile:
    case Kind::Restrict:
    case Kind::TypeTag: {
        std::string qualifier = qualifierOf(id);
        TypeId target = graph_.target(id);
        if (graph_.kind(target) == Kind::Ptr) // the pointer itself is qualified: "char *const"
            return spell(target, join(qualifier, declarator), budget);
        return qualifier + " " + spell(target, std::move(declarator), budget);
    }
    case Kind::Array: {
        auto [count, element] = view_.arrayShape(id);
        return spell(element, grouped(declarator) + "[" + std::to_string(count) + "]", budget);
    }
    case Kind::FuncProto:
        return spellPrototype(view_.prototype(id), grouped(declarator), false, budget);
    case Kind::Struct:
    case Kind::Union:
    case Kind::Enum:
    case Kind::Enum64:
    case Kind::Fwd:
        if (name.empty() && kind != Kind::Fwd)
            return join(spellAnonymous(id, budget), declarator);
        return join(kind == Kind::Fwd && view_.strictForwards() ? "fwd " + tagged(id) : tagged(id),
                    declarator);
    case Kind::Func:
        return join("func " + std::string(name), declarator);
    case Kind::Var:
        return join("var " + std::string(name), declarator);
    case Kind::Datasec:
        return join("datasec " + std::string(name), declarator);
    case Kind::DeclTag:
        return join("decl_tag " + std::string(name), declarator);
    default: // INT, FLOAT, TYPEDEF: the name says it
        return join(name, declarator);
    }
}

std::string CDeclarator::spellFunction(TypeId func) const {
    auto f = graph_.getAs<ir::FuncType>(func);
    return spellPrototype(view_.prototype(f.proto), std::string(graph_.str(f.name)), true, {});
}

std::string CDeclarator::spellMember(const ir::Member& m) const {
    std::string text = spell(m.type, std::string(graph_.str(m.name)));
    if (m.bitfieldSize)
        text += ":" + std::to_string(m.bitfieldSize);
    return text + " at bit " + std::to_string(m.bitOffset);
}

std::string CDeclarator::describe(TypeId id) const {
    std::string_view name = graph_.name(id);
    switch (graph_.kind(id)) {
    case Kind::Struct:
    case Kind::Union: {
        Composite c = view_.composite(id);
        return spell(id) + ": " + counted(c.size, "byte") + ", " +
               counted(c.members.size(), "member");
    }
    case Kind::Enum:
    case Kind::Enum64: {
        Enumeration e = view_.enumeration(id);
        return spell(id) + ": " + counted(e.size, "byte") + ", " +
               counted(e.values.size(), "value");
    }
    case Kind::Fwd:
        return tagged(id) + " (forward declaration)";
    case Kind::Typedef:
        return "typedef " + spell(graph_.target(id), std::string(name));
    case Kind::Int: {
        auto i = graph_.getAs<ir::IntType>(id);
        return std::string(name) + ": " + counted(i.size, "byte") + ", " +
               intEncodingName(i.encoding);
    }
    case Kind::Float:
        return std::string(name) + ": " + counted(graph_.getAs<ir::FloatType>(id).size, "byte");
    case Kind::Func:
        return std::string(funcLinkageName(graph_.getAs<ir::FuncType>(id).linkage)) + " " +
               spellFunction(id);
    case Kind::Var: {
        auto v = graph_.getAs<ir::VarType>(id);
        return std::string(varLinkageName(v.linkage)) + " " + spell(v.type, std::string(name));
    }
    case Kind::Datasec: {
        auto d = graph_.getAs<ir::DatasecType>(id);
        return "section " + std::string(name) + ": " + counted(d.size, "byte") + ", " +
               counted(d.entries.size(), "variable");
    }
    default:
        return spell(id);
    }
}

std::string CDeclarator::declTagKey(TypeId id) const {
    auto tag = graph_.getAs<ir::DeclTagType>(id);
    std::string key = quoted(graph_.str(tag.name)) + " on ";
    if (tag.componentIndex >= 0)
        key += componentName(tag.type, static_cast<uint32_t>(tag.componentIndex)) + " of ";
    return key + spell(tag.type);
}

std::string CDeclarator::tagged(TypeId id) const {
    std::string name(graph_.name(id));
    switch (graph_.kind(id)) {
    case Kind::Struct:
        return "struct " + name;
    case Kind::Union:
        return "union " + name;
    case Kind::Fwd:
        return (graph_.getAs<ir::FwdType>(id).isUnion ? "union " : "struct ") + name;
    default:
        return "enum " + name;
    }
}

std::string CDeclarator::qualifierOf(TypeId id) const {
    switch (graph_.kind(id)) {
    case Kind::Const:
        return "const";
    case Kind::Volatile:
        return "volatile";
    case Kind::Restrict:
        return "restrict";
    default: {
        auto tag = graph_.getAs<ir::TypeTagType>(id);
        std::string value(graph_.str(tag.name));
        return tag.kindFlag ? "__attribute__((" + value + "))" : "__tag(" + value + ")";
    }
    }
}

std::string CDeclarator::spellAnonymous(TypeId id, Budget budget) const {
    constexpr size_t kMembersShown = 8;
    constexpr size_t kValuesShown = 4;
    Kind kind = graph_.kind(id);
    std::string keyword = kind == Kind::Struct ? "struct" : kind == Kind::Union ? "union" : "enum";
    if (budget.expansions == 0)
        return keyword + " {...}";
    --budget.expansions;
    std::string body;
    if (kind == Kind::Struct || kind == Kind::Union) {
        Composite c = view_.composite(id);
        for (size_t i = 0; i < c.members.size() && i < kMembersShown; ++i) {
            const ir::Member& m = c.members[i];
            body += spell(m.type, std::string(graph_.str(m.name)), budget);
            body += m.bitfieldSize ? ":" + std::to_string(m.bitfieldSize) + "; " : "; ";
        }
        if (c.members.size() > kMembersShown)
            body += "...; ";
    } else {
        Enumeration e = view_.enumeration(id);
        for (size_t i = 0; i < e.values.size() && i < kValuesShown; ++i)
            body +=
                std::string(graph_.str(e.values[i].name)) + " = " + e.textOf(e.values[i]) + ", ";
        if (e.values.size() > kValuesShown)
            body += "..., ";
    }
    // Drop the last separator, keeping the ";" that C ends every member with.
    if (!body.empty())
        body.resize(body.size() - (body.ends_with("; ") ? 1 : 2));
    return keyword + " {" + body + "}";
}

std::string CDeclarator::spellPrototype(const Prototype& proto, std::string declarator,
                                        bool withNames, Budget budget) const {
    std::string params;
    for (const ir::Param& p : proto.params) {
        std::string name = withNames ? std::string(graph_.str(p.name)) : std::string();
        params += (params.empty() ? "" : ", ") + spell(p.type, std::move(name), budget);
    }
    if (proto.varargs)
        params += params.empty() ? "..." : ", ...";
    return spell(proto.returnType, declarator + "(" + (params.empty() ? "void" : params) + ")",
                 budget);
}

std::string CDeclarator::componentName(TypeId id, uint32_t index) const {
    Kind kind = graph_.kind(id);
    if (kind == Kind::Struct || kind == Kind::Union) {
        Composite c = view_.composite(id);
        if (index < c.members.size())
            return "member " + quoted(graph_.str(c.members[index].name));
    } else if (kind == Kind::Func) {
        Prototype proto = view_.prototype(graph_.getAs<ir::FuncType>(id).proto);
        if (index < proto.params.size())
            return "param " + quoted(graph_.str(proto.params[index].name));
    }
    return "component " + std::to_string(index);
}

} // namespace btforge::compare::detail
