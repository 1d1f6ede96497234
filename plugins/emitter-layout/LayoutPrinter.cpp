#include "LayoutPrinter.h"

#include "StructSums.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <variant>
#include <vector>

namespace btforge::layout {
namespace {

constexpr size_t kMaxIndent = 16; // pahole indents no deeper

void appendIndent(std::string& out, int depth) {
    out.append(std::min<size_t>(static_cast<size_t>(std::max(depth, 0)), kMaxIndent), '\t');
}

// printf's "%*s" of a blank: |width| columns, at least one.
void appendSpacing(std::string& out, int width) {
    out.append(static_cast<size_t>(std::max(std::abs(width), 1)), ' ');
}

// pahole's "Bitfield combined with ..." comments, between members that share storage: a member
// after the start of the previous one's unit but inside it (the unit of the first bitfield at
// that offset, or else of the first member there) combines with the next fields; a bitfield
// whose unit starts before the previous member, or at a plain one, with the previous fields.
class BitfieldNeighbours {
public:
    const char* commentBefore(const MemberLayout* last, const MemberLayout& m) {
        const char* comment = nullptr;
        if (last && m.byteOffset > last->byteOffset && m.byteOffset < groupEnd_)
            comment = "Bitfield combined with next fields";
        else if (last && m.member.bitfieldSize &&
                 m.byteOffset < last->byteOffset + last->byteSize &&
                 (m.byteOffset < last->byteOffset || !last->member.bitfieldSize))
            comment = "Bitfield combined with previous fields";
        const bool newOffset = !last || m.byteOffset != last->byteOffset;
        if (newOffset || (m.member.bitfieldSize && !groupBitfield_))
            groupEnd_ = uint64_t{m.byteOffset} + m.byteSize;
        groupBitfield_ = (!newOffset && groupBitfield_) || m.member.bitfieldSize;
        return comment;
    }

private:
    uint64_t groupEnd_ = 0;
    bool groupBitfield_ = false;
};

bool isTagged(ir::Kind kind) {
    return kind == ir::Kind::Struct || kind == ir::Kind::Union || kind == ir::Kind::Enum ||
           kind == ir::Kind::Enum64;
}

} // namespace

LayoutPrinter::LayoutPrinter(const ir::TypeGraph& graph, const LayoutOptions& options,
                             bool declared)
    : graph_(graph), options_(options), names_(graph, !declared),
      analyzer_(graph, options.cacheline, declared), declared_(declared) {}

void LayoutPrinter::appendNumber(std::string& out, uint64_t value, int width) const {
    char buffer[32];
    if (options_.hex)
        std::snprintf(buffer, sizeof buffer, "%#*llx", width,
                      static_cast<unsigned long long>(value));
    else
        std::snprintf(buffer, sizeof buffer, "%*llu", width,
                      static_cast<unsigned long long>(value));
    out += buffer;
}

void LayoutPrinter::printDefinition(ir::TypeId id, std::string& out) {
    Context context;
    context.stats = true;
    context.expandTypes = options_.expand;
    switch (graph_.kind(id)) {
    case ir::Kind::Struct:
        context.nameSpacing = options_.expand ? 55 : 23;
        printStruct(id, context, "", out);
        break;
    case ir::Kind::Union:
        context.nameSpacing = options_.expand ? 55 : 21;
        printUnion(id, context, "", out);
        break;
    case ir::Kind::Enum:
    case ir::Kind::Enum64:
        printEnum(id, context, "", out);
        break;
    case ir::Kind::Typedef:
        context.nameSpacing = options_.expand ? 55 : 23;
        printTypedef(id, context, out);
        break;
    default:
        break;
    }
}

void LayoutPrinter::printOpening(std::string_view keyword, ir::TypeId id, std::string& out) {
    out += keyword;
    if (std::string_view name = graph_.name(id); !name.empty()) {
        out += ' ';
        out += name;
    }
    out += " {\n";
}

void LayoutPrinter::printCachelineBoundary(uint32_t offset, const Context& context,
                                           std::string& out) {
    const uint32_t line = offset / options_.cacheline;
    if (line <= *context.cacheline)
        return;
    const uint32_t into = offset % options_.cacheline;
    out += "/* --- cacheline " + std::to_string(line) + " boundary (" +
           std::to_string(offset - into) + " bytes) ";
    if (into) {
        out += "was " + counted(into, "byte") + " ago ";
    }
    out += "--- */\n";
    appendIndent(out, context.indent);
    *context.cacheline = line;
}

void LayoutPrinter::printStruct(ir::TypeId id, Context context, std::string_view suffix,
                                std::string& out) {
    const ClassLayout& layout = analyzer_.of(id);
    analyzer_.inferPacked(id);
    printOpening("struct", id, out);
    Context inner = context;
    inner.indent = context.indent + 1;
    uint32_t cacheline = 0;
    if (!inner.cacheline)
        inner.cacheline = &cacheline;

    // pahole's blank lines: comments after a member are set off from it by one, and the next
    // member from them by another.
    bool newline = false;
    auto comment = [&](const std::string& text) {
        appendIndent(out, inner.indent);
        out += "/* " + text + " */\n";
    };
    auto spacedComment = [&](const std::string& text) {
        if (!newline)
            out += '\n';
        newline = true;
        comment(text);
    };
    // An unnamed bitfield of `type`, `bits` wide (pahole shows unused bits so).
    auto unnamedBitfield = [&](ir::TypeId type, uint32_t bits) {
        appendIndent(out, inner.indent);
        std::string width(1, ':'); // not ":" + ...: GCC 12 warns of overlap there (-Wrestrict)
        width += std::to_string(bits);
        printDeclaration(type, width, inner, out);
        out += ";\n";
    };

    StructSums sums;
    if (layout.preBitHole) {
        spacedComment("XXX " + counted(layout.preBitHole, "bit") + " hole, try to pack");
        sums.addBitHole(layout.preBitHole);
    }
    if (layout.preHole) {
        spacedComment("XXX " + counted(layout.preHole, "byte") + " hole, try to pack");
        sums.addHole(layout.preHole);
    }
    BitfieldNeighbours neighbours;
    const MemberLayout* last = nullptr;
    for (size_t i = 0; i < layout.members.size(); ++i) {
        const MemberLayout& m = layout.members[i];
        sums.addMember(m, last ? last->hole : layout.preHole);
        // Bits left in the previous unit before a bitfield in the next one.
        if (last && m.member.bitfieldSize && m.byteOffset != last->byteOffset && last->bitHole) {
            if (newline)
                out += '\n';
            comment("Force alignment to the next boundary:");
            unnamedBitfield(m.member.type, 0);
            newline = true;
        }
        if (const char* combined = neighbours.commentBefore(last, m))
            spacedComment(combined);
        if (newline) {
            out += '\n';
            newline = false;
        }
        appendIndent(out, inner.indent);
        inner.firstMember = i == 0;
        // A type clang declares after the member in the struct's DIE comes last in pahole's
        // list: then a flexible array is "[0]".
        const bool nestedTypeAfter = analyzer_.declaresNestedType(id, static_cast<uint32_t>(i));
        inner.lastMember = i + 1 == layout.members.size() && !nestedTypeAfter;
        printMember(m, inner, out);
        out += '\n';

        if (graph_.kind(m.member.type) == ir::Kind::Struct) {
            analyzer_.inferPacked(m.member.type); // as pahole, looking for its holes
            std::string parts = sums.addMemberStruct(analyzer_.of(m.member.type));
            if (!parts.empty())
                spacedComment("XXX last struct has " + parts);
        }
        if (m.bitHole) {
            spacedComment("XXX " + counted(m.bitHole, "bit") + " hole, try to pack");
            sums.addBitHole(m.bitHole);
            const MemberLayout* next =
                i + 1 < layout.members.size() ? &layout.members[i + 1] : nullptr;
            if (next && next->member.bitfieldSize && next->byteOffset == m.byteOffset)
                unnamedBitfield(m.member.type, m.bitHole);
        }
        if (m.hole) {
            spacedComment("XXX " + counted(m.hole, "byte") + " hole, try to pack");
            sums.addHole(m.hole);
        }
        if (!options_.dataMembers && nestedTypeAfter)
            printNestedType(m.member.type, inner, suffix, out);
        last = &m;
    }

    // DWARF's padding of more than a pointer that no alignment attribute explains is shown as
    // the unnamed bitfields of the last member's type (when its size is a power of two) that
    // would make it, as many as cover it. BTF says nothing of alignment: its padding is not.
    const uint32_t unit = last ? analyzer_.sizeOf(last->member.type) : 0;
    if (analyzer_.declaresAlignment() && layout.padding > graph_.pointerSize() &&
        !layout.alignment && std::has_single_bit(unit)) {
        out += '\n'; // set off even from a comment before it
        comment("Force padding:");
        for (uint32_t filled = 0; filled < layout.padding; filled += unit)
            unnamedBitfield(last->member.type, unit * 8);
    }
    if (context.stats) {
        out += '\n';
        // Cachelines count from where the struct lies (one written in place starts at its
        // member's offset).
        const uint64_t start = context.relativeOffsets ? 0 : context.baseOffset;
        for (const std::string& line : sums.lines(layout, start, options_.cacheline))
            comment(line);
    }
    appendIndent(out, context.indent);
    out += '}';
    if (layout.packed)
        out += " __attribute__((__packed__))";
    if (!suffix.empty()) {
        out += ' ';
        out += suffix;
    }
    if (layout.alignment && !layout.packed) // packed says it all
        out += " __attribute__((__aligned__(" + std::to_string(layout.alignment) + ")))";
}

void LayoutPrinter::printUnion(ir::TypeId id, Context context, std::string_view suffix,
                               std::string& out) {
    analyzer_.inferPacked(id); // before its struct members are printed
    const ClassLayout& layout = analyzer_.of(id);
    printOpening("union", id, out);
    Context inner = context;
    inner.indent = context.indent + 1;
    inner.unionMember = true;
    uint32_t cacheline = 0;
    if (!inner.cacheline)
        inner.cacheline = &cacheline;
    // Each member starts where the union does.
    const uint32_t entryLine = *inner.cacheline;
    for (size_t i = 0; i < layout.members.size(); ++i) {
        appendIndent(out, inner.indent);
        inner.firstMember = i == 0;
        inner.lastMember = i + 1 == layout.members.size();
        printMember(layout.members[i], inner, out);
        out += '\n';
        *inner.cacheline = entryLine;
    }
    appendIndent(out, context.indent);
    out += '}';
    if (!suffix.empty()) {
        out += ' ';
        out += suffix;
    }
}

void LayoutPrinter::printEnum(ir::TypeId id, const Context& context, std::string_view suffix,
                              std::string& out) {
    out += "enum";
    if (std::string_view name = graph_.name(id); !name.empty()) {
        out += ' ';
        out += name;
    }
    const bool declaration = graph_.visit(id, [](const auto& type) {
        if constexpr (requires { type.values; })
            return type.values.empty();
        else
            return true;
    });
    if (declaration) // an enum of no values: its declaration
        return;
    out += " {\n";
    graph_.visit(id, [&](const auto& type) {
        if constexpr (requires { type.values; }) {
            size_t width = 0;
            for (const ir::Enumerator& e : type.values)
                width = std::max(width, graph_.str(e.name).size());
            const bool is64 = ir::kindOf(ir::TypeView(type)) == ir::Kind::Enum64;
            for (const ir::Enumerator& e : type.values) {
                appendIndent(out, context.indent);
                out += '\t'; // beyond the deepest indentation, unlike members
                appendPadded(out, graph_.str(e.name), static_cast<int>(width));
                out += " = ";
                // A signed value, sign-extended; in hexadecimal, its 64 bits.
                uint64_t value = e.value;
                if (type.isSigned && !is64)
                    value = static_cast<uint64_t>(int64_t{static_cast<int32_t>(value)});
                if (options_.hex)
                    appendNumber(out, value, 0);
                else if (type.isSigned)
                    out += std::to_string(static_cast<int64_t>(value));
                else
                    out += std::to_string(value);
                out += ",\n";
            }
        }
    });
    appendIndent(out, context.indent);
    out += '}';
    if (analyzer_.sizeOf(id) != 4) // not the size of an int
        out += " __attribute__((__packed__))";
    if (!suffix.empty()) {
        out += ' ';
        out += suffix;
    }
}

void LayoutPrinter::printNestedType(ir::TypeId member, const Context& context,
                                    std::string_view suffix, std::string& out) {
    ir::TypeId type = member;
    while (type != ir::kVoidType && !isTagged(graph_.kind(type))) {
        ir::Kind kind = graph_.kind(type);
        if (kind != ir::Kind::Ptr && kind != ir::Kind::Array && !ir::isReferenceKind(kind))
            return;
        type = graph_.target(type);
    }
    if (type == ir::kVoidType)
        return;
    appendIndent(out, context.indent);
    Context nested = context;
    nested.firstMember = nested.lastMember = nested.unionMember = false;
    // pahole closes it as the struct it is printed in: "} member;" where that struct is a
    // member's type, expanded (-E).
    switch (graph_.kind(type)) {
    case ir::Kind::Struct:
        printStruct(type, nested, suffix, out);
        break;
    case ir::Kind::Union:
        printUnion(type, nested, suffix, out);
        break;
    default:
        printEnum(type, nested, suffix, out);
        break;
    }
    out += ";\n\n";
}

void LayoutPrinter::printTypedef(ir::TypeId id, const Context& context, std::string& out) {
    const std::string_view name = graph_.name(id);
    const ir::TypeId target = graph_.target(id);
    out += "typedef ";
    if (target == ir::kVoidType) {
        out += "void ";
        out += name;
        return;
    }
    const ir::Kind kind = graph_.kind(target);
    const bool declaredUnion = kind == ir::Kind::Fwd && graph_.getAs<ir::FwdType>(target).isUnion;
    switch (declaredUnion ? ir::Kind::Union : kind) {
    case ir::Kind::Struct:
    case ir::Kind::Fwd:
        // A struct written out (always with -E, a declaration as an empty struct) has its sums.
        if (!graph_.name(target).empty() && !context.expandTypes) {
            names_.appendName(target, out);
            out += ' ';
            out += name;
        } else {
            Context inner = context;
            inner.typeSpacing -= 8;
            printStruct(target, inner, name, out);
        }
        return;
    case ir::Kind::Union:
        printDeclaration(target, name, context, out);
        return;
    case ir::Kind::Enum:
    case ir::Kind::Enum64:
        if (!graph_.name(target).empty()) {
            out += "enum ";
            out += graph_.name(target);
            out += ' ';
            out += name;
        } else {
            printEnum(target, context, name, out);
        }
        return;
    case ir::Kind::Array:
        printArray(target, name, context, out);
        return;
    case ir::Kind::FuncProto:
        names_.appendFunction(graph_.getAs<ir::FuncProtoType>(target), name, 0, false, out);
        return;
    case ir::Kind::Ptr: {
        ir::TypeId pointee = names_.pointee(target);
        if (pointee != ir::kVoidType && graph_.kind(pointee) == ir::Kind::FuncProto) {
            names_.appendFunction(graph_.getAs<ir::FuncProtoType>(pointee), name, 0, true, out);
            return;
        }
        break;
    }
    default:
        break;
    }
    names_.appendName(target, out);
    out += ' ';
    out += name;
}

void LayoutPrinter::printMember(const MemberLayout& m, const Context& context, std::string& out) {
    const uint32_t offset =
        context.relativeOffsets ? m.byteOffset : context.baseOffset + m.byteOffset;
    printCachelineBoundary(offset, context, out);
    const size_t start = out.size();
    Context inner = context;
    inner.baseOffset = offset;
    const std::string_view name = graph_.str(m.member.name);
    const ir::TypeId type = m.member.type;
    const ir::Kind kind = graph_.kind(type);
    const bool tagged = isTagged(kind);
    const bool inPlace = tagged && graph_.name(type).empty(); // anonymous, written here
    if (tagged) {
        printDeclaration(type, "", inner, out);
        if (!name.empty()) {
            if (inPlace || context.expandTypes)
                out += ' ';
            out += name;
        }
    } else {
        printDeclaration(type, name, inner, out);
    }
    if (m.member.bitfieldSize)
        out += ':' + std::to_string(m.member.bitfieldSize);
    size_t alignmentLength = 0;
    if (m.alignment) {
        std::string attribute =
            " __attribute__((__aligned__(" + std::to_string(m.alignment) + ")))";
        alignmentLength = attribute.size();
        out += attribute;
    }
    out += ';';
    // The comment's column: after a type written in place, pahole counts from the name's length
    // alone (the packed attribute included, an alignment's too), so the column can be off;
    // otherwise from all that was printed, at least one blank.
    if (inPlace) {
        int length =
            static_cast<int>(alignmentLength) + (name.empty() ? -1 : static_cast<int>(name.size()));
        if (kind == ir::Kind::Struct && analyzer_.of(type).packed)
            length += static_cast<int>(sizeof("__attribute__((__packed__))"));
        appendSpacing(out, context.typeSpacing + context.nameSpacing - length - 3);
    } else {
        int spacing =
            context.typeSpacing + context.nameSpacing - static_cast<int>(out.size() - start);
        appendSpacing(out, std::max(spacing, 0));
    }
    out += "/* ";
    appendNumber(out, offset, 5);
    if (m.member.bitfieldSize) {
        out += ':';
        appendNumber(out, m.bitfieldOffset, 2);
        out += ' ';
        appendNumber(out, m.byteSize, 2);
    } else {
        out += ' ';
        appendNumber(out, m.byteSize, 5);
    }
    out += " */";
}

void LayoutPrinter::printDeclaration(ir::TypeId type, std::string_view name, Context context,
                                     std::string& out) {
    std::string declarator(name);
    if (context.expandTypes && type != ir::kVoidType && graph_.kind(type) == ir::Kind::Typedef) {
        out += "/* typedef ";
        out += graph_.name(type);
        type = graph_.target(type);
        while (type != ir::kVoidType && graph_.kind(type) == ir::Kind::Typedef) {
            out += " -> ";
            out += graph_.name(type);
            type = graph_.target(type);
        }
        out += " */ ";
    }
    // Sums are for the top level and for types reached through qualifiers or pointers; the name
    // follows a type written in place only when that type is the member's own.
    std::string suffix;
    if (isTagged(graph_.kind(type)) || graph_.kind(type) == ir::Kind::Fwd) {
        context.stats = false;
        suffix = declarator;
    }
    while (true) {
        const ir::Kind kind = graph_.kind(type);
        switch (kind) {
        case ir::Kind::Ptr: {
            ir::TypeId target = names_.pointee(type);
            if (target != ir::kVoidType) {
                ir::Kind targetKind = graph_.kind(target);
                if (targetKind == ir::Kind::FuncProto) {
                    names_.appendFunction(graph_.getAs<ir::FuncProtoType>(target), declarator,
                                          context.typeSpacing, true, out);
                    return;
                }
                if (isTagged(targetKind) && graph_.name(target).empty()) {
                    // Written in place, with offsets relative to it and no sums.
                    suffix = "* " + declarator;
                    type = target;
                    context.typeSpacing -= 8;
                    context.stats = false;
                    context.relativeOffsets = true;
                    continue;
                }
            }
            break;
        }
        case ir::Kind::FuncProto:
            names_.appendFunction(graph_.getAs<ir::FuncProtoType>(type), declarator,
                                  context.typeSpacing, false, out);
            return;
        case ir::Kind::Const:
            // "const " then the type it qualifies, in what is left of the columns (a volatile
            // type is named whole, as any other).
            out += "const ";
            context.typeSpacing -= 6;
            if (graph_.target(type) == ir::kVoidType)
                break;
            type = graph_.target(type);
            continue;
        case ir::Kind::Array:
            printArray(type, declarator, context, out);
            return;
        case ir::Kind::Struct:
        case ir::Kind::Union:
        case ir::Kind::Fwd: // with -E, a declaration is written as an empty struct or union
            if ((!graph_.name(type).empty() || kind == ir::Kind::Fwd) && !context.expandTypes)
                break;
            context.typeSpacing -= 8;
            if (kind == ir::Kind::Union ||
                (kind == ir::Kind::Fwd && graph_.getAs<ir::FwdType>(type).isUnion))
                printUnion(type, context, suffix, out);
            else
                printStruct(type, context, suffix, out);
            return;
        case ir::Kind::Enum:
        case ir::Kind::Enum64:
            if (!graph_.name(type).empty() && !context.expandTypes)
                break;
            printEnum(type, context, suffix, out);
            return;
        default:
            break;
        }
        // A tagged type pads its name alone, which differs once the spacing is negative.
        ir::TypeView view = graph_.get(type);
        if (std::string_view keyword = TypeNames::keyword(view); !keyword.empty()) {
            out += keyword;
            out += ' ';
            appendPadded(out, graph_.name(type),
                         context.typeSpacing - static_cast<int>(keyword.size()) - 1);
        } else {
            appendPadded(out, names_.name(type), context.typeSpacing);
        }
        out += ' ';
        out += declarator;
        return;
    }
}

void LayoutPrinter::printArray(ir::TypeId array, std::string_view name, const Context& context,
                               std::string& out) {
    // pahole writes BTF's ARRAY of ARRAY as an array of arrays (its dimensions innermost first),
    // DWARF's as one array of several dimensions.
    std::vector<uint32_t> dimensions{graph_.getAs<ir::ArrayType>(array).count};
    ir::TypeId element = graph_.target(array);
    while (declared_ && graph_.kind(element) == ir::Kind::Array) {
        dimensions.push_back(graph_.getAs<ir::ArrayType>(element).count);
        element = graph_.target(element);
    }
    if (dimensions.front() == 0 && graph_.kind(element) == ir::Kind::Const)
        element = graph_.target(element);
    std::string suffix;
    for (uint32_t count : dimensions) {
        if (count != 0 || !context.lastMember || context.firstMember || context.unionMember)
            suffix += '[' + std::to_string(count) + ']';
        else
            suffix += "[]";
    }
    // The unnamed bitfields that show padding (":64") have the dimensions before the width, a
    // struct written in place closing "} [1]:64"; other declarators have them after.
    if (name.starts_with(':')) {
        suffix += name;
        printDeclaration(element, suffix, context, out);
        return;
    }
    printDeclaration(element, name, context, out);
    out += suffix;
}

} // namespace btforge::layout
