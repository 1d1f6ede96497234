#include "LayoutPrinter.h"

#include <algorithm>
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

void appendCount(std::string& out, uint64_t n, std::string_view unit) {
    out += std::to_string(n);
    out += ' ';
    out += unit;
    if (n != 1)
        out += 's';
}

bool isTagged(ir::Kind kind) {
    return kind == ir::Kind::Struct || kind == ir::Kind::Union || kind == ir::Kind::Enum ||
           kind == ir::Kind::Enum64;
}

} // namespace

LayoutPrinter::LayoutPrinter(const ir::TypeGraph& graph, const LayoutOptions& options,
                             bool declared)
    : graph_(graph), options_(options), names_(graph),
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

void LayoutPrinter::printCachelineBoundary(uint32_t offset, const Context& context,
                                           std::string& out) {
    const uint32_t line = offset / options_.cacheline;
    if (line <= *context.cacheline)
        return;
    const uint32_t into = offset % options_.cacheline;
    out += "/* --- cacheline " + std::to_string(line) + " boundary (" +
           std::to_string(offset - into) + " bytes) ";
    if (into) {
        out += "was ";
        appendCount(out, into, "byte");
        out += " ago ";
    }
    out += "--- */\n";
    appendIndent(out, context.indent);
    *context.cacheline = line;
}

void LayoutPrinter::printStruct(ir::TypeId id, Context context, std::string_view suffix,
                                std::string& out) {
    const ClassLayout& layout = analyzer_.of(id);
    analyzer_.inferPacked(id);
    out += "struct";
    if (std::string_view name = graph_.name(id); !name.empty()) {
        out += ' ';
        out += name;
    }
    out += " {\n";

    Context inner = context;
    inner.indent = context.indent + 1;
    inner.marksMisaligned = !layout.packed;
    uint32_t cacheline = 0;
    if (!inner.cacheline)
        inner.cacheline = &cacheline;

    auto comment = [&](const std::string& text) {
        appendIndent(out, inner.indent);
        out += "/* " + text + " */\n";
    };
    // The sums shown after the members.
    uint64_t sumBytes = 0, sumBits = 0, sumHoles = 0, sumBitHoles = 0;
    uint32_t paddings = 0, sumPaddings = 0;
    uint32_t typesWithHoles = 0, typeHoles = 0, typesWithBitHoles = 0, typeBitHoles = 0;
    uint32_t typesWithBitPadding = 0, typeBitPadding = 0;
    uint32_t forced = 0, forcedHoles = 0, sumForcedHoles = 0;
    uint32_t flexibleAtEnd = 0, flexibleInMiddle = 0;
    bool newline = false;
    auto blankLine = [&] {
        if (!newline)
            out += '\n';
        newline = true;
    };
    auto holeComment = [&](uint32_t n, std::string_view unit) {
        blankLine();
        std::string text = "XXX ";
        appendCount(text, n, unit);
        comment(text + " hole, try to pack");
    };
    if (layout.preBitHole) {
        holeComment(layout.preBitHole, "bit");
        sumBitHoles += layout.preBitHole;
    }
    if (layout.preHole) {
        holeComment(layout.preHole, "byte");
        sumHoles += layout.preHole;
    }
    const MemberLayout* last = nullptr;
    uint64_t groupEnd = 0;
    bool groupBitfield = false;
    for (size_t i = 0; i < layout.members.size(); ++i) {
        const MemberLayout& m = layout.members[i];
        if (m.alignment) {
            ++forced;
            if (uint32_t before = last ? last->hole : layout.preHole) {
                ++forcedHoles;
                sumForcedHoles += before;
            }
        }
        if (last && m.member.bitfieldSize && m.byteOffset != last->byteOffset && last->bitHole) {
            if (newline)
                out += '\n';
            comment("Force alignment to the next boundary:");
            appendIndent(out, inner.indent);
            printDeclaration(m.member.type, ":0", inner, out);
            out += ";\n";
            newline = true;
        }
        if (last && m.byteOffset > last->byteOffset && m.byteOffset < groupEnd) {
            blankLine();
            comment("Bitfield combined with next fields");
        } else if (last && m.member.bitfieldSize &&
                   m.byteOffset < last->byteOffset + last->byteSize &&
                   (m.byteOffset < last->byteOffset || !last->member.bitfieldSize)) {
            blankLine();
            comment("Bitfield combined with previous fields");
        }
        // Where the first bitfield at this one's offset ends, or else the first member there.
        const bool newOffset = !last || m.byteOffset != last->byteOffset;
        if (newOffset || (m.member.bitfieldSize && !groupBitfield))
            groupEnd = uint64_t{m.byteOffset} + m.byteSize;
        groupBitfield = (!newOffset && groupBitfield) || m.member.bitfieldSize;
        if (newline) {
            out += '\n';
            newline = false;
        }
        appendIndent(out, inner.indent);
        inner.firstMember = i == 0;
        inner.lastMember = i + 1 == layout.members.size();
        printMember(m, inner, out);
        out += '\n';

        ir::TypeId type = m.member.type;
        if (type != ir::kVoidType && graph_.kind(type) == ir::Kind::Struct) {
            const ClassLayout& member = analyzer_.of(type);
            std::string parts;
            auto part = [&](const std::string& text) {
                parts += parts.empty() ? "" : ", ";
                parts += text;
            };
            if (member.flexibleArray) {
                part("a flexible array");
                ++flexibleAtEnd;
            }
            if (member.embeddedFlexibleArray) {
                part("embedded flexible array(s)");
                ++flexibleInMiddle;
            }
            std::string text;
            if (member.padding) {
                appendCount(text, member.padding, "byte");
                part(text + " of padding");
                ++paddings;
                sumPaddings += member.padding;
            }
            if (member.bitPadding) {
                text.clear();
                appendCount(text, member.bitPadding, "bit");
                part(text + " of padding");
                ++typesWithBitPadding;
                typeBitPadding += member.bitPadding;
            }
            if (member.holes) {
                text.clear();
                appendCount(text, member.holes, "hole");
                part(text);
                ++typesWithHoles;
                typeHoles += member.holes;
            }
            if (member.bitHoles) {
                text.clear();
                appendCount(text, member.bitHoles, "bit hole");
                part(text);
                ++typesWithBitHoles;
                typeBitHoles += member.bitHoles;
            }
            if (!parts.empty()) {
                blankLine();
                comment("XXX last struct has " + parts);
            }
        }
        if (m.bitHole) {
            holeComment(m.bitHole, "bit");
            sumBitHoles += m.bitHole;
            // The unused bits, as the unnamed bitfield that would fill them.
            if (i + 1 < layout.members.size()) {
                const MemberLayout& next = layout.members[i + 1];
                if (next.member.bitfieldSize && next.byteOffset == m.byteOffset) {
                    appendIndent(out, inner.indent);
                    printDeclaration(m.member.type, ":" + std::to_string(m.bitHole), inner, out);
                    out += ";\n";
                }
            }
        }
        if (m.hole) {
            holeComment(m.hole, "byte");
            sumHoles += m.hole;
        }
        if (!options_.dataMembers && analyzer_.declaresNestedType(id, static_cast<uint32_t>(i)))
            printNestedType(m.member.type, inner, out);
        if (m.member.bitfieldSize)
            sumBits += m.member.bitfieldSize;
        else
            sumBytes += m.byteSize;
        last = &m;
    }

    // Padding of a whole alignment unit or more, which rounding up to the members' alignment
    // does not make, is shown as the unnamed bitfields of the last member's type that would make
    // it, when no attribute explains it.
    if (last && layout.padding && !layout.alignment &&
        layout.padding >= analyzer_.naturalAlignment(id)) {
        blankLine();
        comment("Force padding:");
        const uint32_t unit = analyzer_.sizeOf(last->member.type);
        for (uint32_t filled = 0; unit && filled + unit <= layout.padding; filled += unit) {
            appendIndent(out, inner.indent);
            printDeclaration(last->member.type, ":" + std::to_string(unit * 8), inner, out);
            out += ";\n";
        }
    }
    if (context.stats) {
        out += '\n';
        // Cachelines are counted where the struct lies (a struct written in place, reached
        // through a qualifier, starts at its member's offset).
        const uint64_t start = context.relativeOffsets ? 0 : context.baseOffset;
        const uint64_t end = start + layout.size;
        const uint64_t lines =
            (end + options_.cacheline - 1) / options_.cacheline - start / options_.cacheline;
        std::string text = "size: " + std::to_string(layout.size) +
                           ", cachelines: " + std::to_string(lines) +
                           ", members: " + std::to_string(layout.members.size());
        comment(text);
        if (sumHoles)
            comment("sum members: " + std::to_string(sumBytes) + ", holes: " +
                    std::to_string(layout.holes) + ", sum holes: " + std::to_string(sumHoles));
        else if (sumBitHoles && sumBytes)
            comment("sum members: " + std::to_string(sumBytes));
        if (sumBitHoles)
            comment("sum bitfield members: " + std::to_string(sumBits) +
                    " bits, bit holes: " + std::to_string(layout.bitHoles) +
                    ", sum bit holes: " + std::to_string(sumBitHoles) + " bits");
        else if (sumHoles && sumBits)
            comment("sum bitfield members: " + std::to_string(sumBits) + " bits (" +
                    std::to_string(sumBits / 8) + " bytes)");
        if (layout.padding)
            comment("padding: " + std::to_string(layout.padding));
        if (typesWithHoles || typesWithBitHoles || typesWithBitPadding) {
            std::string types;
            auto add = [&](const std::string& part) {
                types += types.empty() ? "" : ", ";
                types += part;
            };
            if (typesWithHoles)
                add("holes: " + std::to_string(typesWithHoles) +
                    ", total: " + std::to_string(typeHoles));
            if (typesWithBitHoles)
                add("bit holes: " + std::to_string(typesWithBitHoles) +
                    ", total: " + std::to_string(typeBitHoles));
            if (typesWithBitPadding) {
                std::string total;
                appendCount(total, typeBitPadding, "bit");
                add("bit paddings: " + std::to_string(typesWithBitPadding) + ", total: " + total);
            }
            comment("member types with " + types);
        }
        if (paddings)
            comment("paddings: " + std::to_string(paddings) +
                    ", sum paddings: " + std::to_string(sumPaddings));
        if (layout.bitPadding)
            comment("bit_padding: " + std::to_string(layout.bitPadding) + " bits");
        if (forced) {
            std::string text = "forced alignments: " + std::to_string(forced);
            if (forcedHoles)
                text += ", forced holes: " + std::to_string(forcedHoles) +
                        ", sum forced holes: " + std::to_string(sumForcedHoles);
            comment(text);
        }
        if (flexibleAtEnd || flexibleInMiddle) {
            std::string text = "flexible array members: ";
            if (flexibleAtEnd)
                text += "end: " + std::to_string(flexibleAtEnd);
            if (flexibleInMiddle)
                text += std::string(flexibleAtEnd ? ", " : "") +
                        "middle: " + std::to_string(flexibleInMiddle);
            comment(text);
        }
        if (uint64_t lastLine = end % options_.cacheline)
            comment("last cacheline: " + std::to_string(lastLine) + " bytes");
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
    const ClassLayout& layout = analyzer_.of(id);
    out += "union";
    if (std::string_view name = graph_.name(id); !name.empty()) {
        out += ' ';
        out += name;
    }
    out += " {\n";
    Context inner = context;
    inner.indent = context.indent + 1;
    inner.unionMember = true;
    inner.marksMisaligned = false;
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

void LayoutPrinter::printNestedType(ir::TypeId member, const Context& context, std::string& out) {
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
    switch (graph_.kind(type)) {
    case ir::Kind::Struct:
        printStruct(type, nested, "", out);
        break;
    case ir::Kind::Union:
        printUnion(type, nested, "", out);
        break;
    default:
        printEnum(type, nested, "", out);
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
        ir::TypeId pointee = graph_.target(target);
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
    const ir::Kind kind = type == ir::kVoidType ? ir::Kind::Void : graph_.kind(type);
    const bool tagged = isTagged(kind);
    const bool inPlace = tagged && graph_.name(type).empty();
    if (kind == ir::Kind::Struct && context.marksMisaligned &&
        m.byteOffset % analyzer_.naturalAlignment(type))
        analyzer_.markPacked(type);
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
        const ir::Kind kind = type == ir::kVoidType ? ir::Kind::Void : graph_.kind(type);
        switch (kind) {
        case ir::Kind::Ptr: {
            ir::TypeId target = graph_.target(type);
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
    printDeclaration(element, name, context, out);
    for (uint32_t count : dimensions) {
        if (count != 0 || !context.lastMember || context.firstMember || context.unionMember)
            out += '[' + std::to_string(count) + ']';
        else
            out += "[]";
    }
}

} // namespace btforge::layout
