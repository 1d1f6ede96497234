#include "TypeNames.h"

#include <cstdlib>
#include <variant>

namespace btforge::layout {

void appendPadded(std::string& out, std::string_view text, int width) {
    out += text;
    // As printf's "%-*s": a negative width is a width too.
    const size_t columns = static_cast<size_t>(std::abs(width));
    if (text.size() < columns)
        out.append(columns - text.size(), ' ');
}

std::string_view TypeNames::keyword(const ir::TypeView& view) {
    switch (ir::kindOf(view)) {
    case ir::Kind::Struct:
        return "struct";
    case ir::Kind::Union:
        return "union";
    case ir::Kind::Enum:
    case ir::Kind::Enum64:
        return "enum";
    case ir::Kind::Fwd:
        return std::get<ir::FwdType>(view).isUnion ? "union" : "struct";
    default:
        return {};
    }
}

ir::TypeId TypeNames::pointee(ir::TypeId pointer) const {
    ir::TypeId target = graph_.target(pointer);
    while (target != ir::kVoidType && graph_.kind(target) == ir::Kind::TypeTag)
        target = graph_.target(target);
    return target;
}

std::string TypeNames::name(ir::TypeId id) const {
    std::string out;
    appendName(id, out);
    return out;
}

void TypeNames::appendName(ir::TypeId id, std::string& out) const {
    if (id == ir::kVoidType) {
        out += "void";
        return;
    }
    ir::TypeView view = graph_.get(id);
    switch (ir::kindOf(view)) {
    case ir::Kind::Ptr: {
        // Not pointee(): pahole sees "T * const *" only where no type tag comes between.
        ir::TypeId target = graph_.target(id);
        if (target == ir::kVoidType) {
            out += "void *";
            return;
        }
        // A pointer to a const pointer: "T * const *".
        bool constPointer = false;
        if (graph_.kind(target) == ir::Kind::Const) {
            ir::TypeId next = graph_.target(target);
            if (next != ir::kVoidType && graph_.kind(next) == ir::Kind::Ptr) {
                constPointer = true;
                target = next;
            }
        }
        appendName(target, out);
        out += constPointer ? " const *" : " *";
        return;
    }
    case ir::Kind::TypeTag:
        // pahole prints no type tag, from BTF or DWARF (the kernel's __user: "char *").
        appendName(graph_.target(id), out);
        return;
    case ir::Kind::Const:
    case ir::Kind::Volatile:
    case ir::Kind::Restrict: {
        ir::Kind kind = ir::kindOf(view);
        if (kind == ir::Kind::Const)
            out += "const ";
        else if (kind == ir::Kind::Volatile)
            out += "volatile ";
        appendName(graph_.target(id), out);
        if (kind == ir::Kind::Restrict)
            out += " restrict";
        out += ' ';
        return;
    }
    case ir::Kind::Array:
        appendName(graph_.target(id), out);
        return;
    case ir::Kind::FuncProto:
        appendFunction(std::get<ir::FuncProtoType>(view), "", 0, false, out);
        return;
    default:
        break;
    }
    if (std::string_view tag = keyword(view); !tag.empty()) {
        out += tag;
        out += ' ';
    }
    if (fromBtf_ && ir::kindOf(view) == ir::Kind::Float)
        out += "single ";
    out += graph_.name(id);
}

void TypeNames::appendParameters(const ir::FuncProtoType& proto, std::string& out) const {
    out += '(';
    bool first = true;
    for (const ir::Param& param : proto.params) {
        if (param.type == ir::kVoidType) { // varargs, shown after a parameter only
            if (!first)
                out += ", ...";
            continue;
        }
        if (!first)
            out += ", ";
        first = false;
        std::string_view paramName = graph_.str(param.name);
        // Not pointee(): behind a type tag, pahole names a parameter's function type whole.
        ir::TypeId target = graph_.target(param.type);
        if (graph_.kind(param.type) == ir::Kind::Ptr && target != ir::kVoidType &&
            graph_.kind(target) == ir::Kind::FuncProto) {
            appendFunction(graph_.getAs<ir::FuncProtoType>(target), paramName, 0, true, out);
            continue;
        }
        appendName(param.type, out);
        if (!paramName.empty()) {
            out += ' ';
            out += paramName;
        }
    }
    if (first)
        out += "void";
    out += ')';
}

void TypeNames::appendFunction(const ir::FuncProtoType& proto, std::string_view declarator,
                               int spacing, bool pointer, std::string& out) const {
    appendPadded(out, name(proto.returnType), spacing);
    out += " (";
    if (pointer)
        out += '*';
    out += declarator;
    out += ')';
    appendParameters(proto, out);
}

} // namespace btforge::layout
