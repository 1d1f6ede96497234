#include "ClassLayout.h"

#include "btforge/dwarf/LoaderOptions.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <string_view>

namespace btforge::layout {
namespace {

uint64_t declarationKey(ir::TypeId id, int32_t component) {
    return (uint64_t{id} << 32) | static_cast<uint32_t>(component + 1);
}

// N of an attribute 'aligned(N)', 0 for any other attribute.
uint32_t alignedValue(std::string_view attribute) {
    constexpr std::string_view prefix = "aligned(";
    if (!attribute.starts_with(prefix) || !attribute.ends_with(')'))
        return 0;
    attribute = attribute.substr(prefix.size(), attribute.size() - prefix.size() - 1);
    uint32_t n = 0;
    auto [end, error] = std::from_chars(attribute.data(), attribute.data() + attribute.size(), n);
    return error == std::errc() && end == attribute.data() + attribute.size() ? n : 0;
}

// The alignment an offset suggests when the type's natural alignment does not explain it: the
// smallest power of two above the gap before it, or the cacheline when that only rounds it up.
uint32_t inferredAlignment(uint32_t offset, uint32_t natural, uint32_t smallestOffset,
                           uint32_t cacheline) {
    if (offset <= smallestOffset || offset % 2 != 0)
        return 0;
    uint32_t gap = offset - smallestOffset;
    uint64_t alignment = uint64_t{1} << std::bit_width(gap);
    if (alignment <= natural)
        return 0;
    if (alignment < cacheline && cacheline % alignment == 0 && offset % cacheline == 0)
        return cacheline;
    return static_cast<uint32_t>(std::min<uint64_t>(alignment, UINT32_MAX));
}

} // namespace

LayoutAnalyzer::LayoutAnalyzer(const ir::TypeGraph& graph, uint32_t cacheline, bool declared)
    : graph_(graph), cacheline_(cacheline), declared_(declared) {
    for (ir::TypeId id = 1; declared && id < graph.endId(); ++id) {
        if (graph.kind(id) != ir::Kind::DeclTag)
            continue;
        auto tag = graph.getAs<ir::DeclTagType>(id);
        if (uint32_t n = alignedValue(graph.str(tag.name)); tag.kindFlag && n)
            alignments_[declarationKey(tag.type, tag.componentIndex)] = n;
        else if (!tag.kindFlag && graph.str(tag.name) == dwarf::kNestedTypeTag)
            nestedTypes_.insert(declarationKey(tag.type, tag.componentIndex));
        else if (!tag.kindFlag && graph.str(tag.name) == dwarf::kLocalTypeTag)
            localTypes_.insert(tag.type);
    }
}

ir::TypeId LayoutAnalyzer::resolved(ir::TypeId id) const {
    while (id != ir::kVoidType) {
        ir::Kind kind = graph_.kind(id);
        if (!ir::isReferenceKind(kind) || kind == ir::Kind::Ptr)
            break;
        id = graph_.target(id);
    }
    return id;
}

uint32_t LayoutAnalyzer::sizeOf(ir::TypeId id) const {
    id = resolved(id);
    if (id == ir::kVoidType)
        return 0;
    return graph_.visit(id, [&](const auto& type) -> uint32_t {
        using T = std::decay_t<decltype(type)>;
        if constexpr (std::is_same_v<T, ir::PtrType>)
            return graph_.pointerSize();
        else if constexpr (std::is_same_v<T, ir::ArrayType>)
            return static_cast<uint32_t>(uint64_t{type.count} * sizeOf(type.elemType));
        else if constexpr (requires { type.size; })
            return type.size;
        else
            return 0;
    });
}

uint32_t LayoutAnalyzer::naturalAlignment(ir::TypeId id) {
    id = resolved(id);
    if (id == ir::kVoidType)
        return 1;
    uint32_t alignment = 1;
    switch (graph_.kind(id)) {
    case ir::Kind::Ptr:
        alignment = graph_.pointerSize();
        break;
    case ir::Kind::Int:
    case ir::Kind::Float:
    case ir::Kind::Enum:
    case ir::Kind::Enum64:
        alignment = sizeOf(id);
        break;
    case ir::Kind::Array:
        alignment = naturalAlignment(graph_.target(id));
        break;
    case ir::Kind::Struct:
    case ir::Kind::Union: {
        if (auto known = natural_.find(id); known != natural_.end())
            return known->second;
        natural_[id] = 1; // a struct reaching itself by value is malformed: stop there
        auto members = graph_.visit(id, [](const auto& type) -> std::span<const ir::Member> {
            if constexpr (requires { type.members; })
                return type.members;
            else
                return {};
        });
        for (const ir::Member& m : members)
            alignment = std::max(alignment, naturalAlignment(m.type));
        natural_[id] = alignment;
        break;
    }
    default:
        break;
    }
    return alignment ? alignment : 1;
}

bool LayoutAnalyzer::declaresNestedType(ir::TypeId id, uint32_t component) const {
    return nestedTypes_.contains(declarationKey(id, static_cast<int32_t>(component)));
}

bool LayoutAnalyzer::declaredInFunction(ir::TypeId id) const {
    return localTypes_.contains(id);
}

uint32_t LayoutAnalyzer::declaredAlignment(ir::TypeId id, int32_t component) const {
    auto found = alignments_.find(declarationKey(id, component));
    return found == alignments_.end() ? 0 : found->second;
}

const ClassLayout& LayoutAnalyzer::of(ir::TypeId id) {
    return layout(id);
}

ClassLayout& LayoutAnalyzer::layout(ir::TypeId id) {
    if (auto known = layouts_.find(id); known != layouts_.end())
        return *known->second;
    auto layout = std::make_unique<ClassLayout>();
    ClassLayout& out = *layout;
    layouts_.emplace(id, std::move(layout));
    graph_.visit(id, [&](const auto& type) {
        if constexpr (requires { type.members; }) {
            out.isUnion = ir::kindOf(ir::TypeView(type)) == ir::Kind::Union;
            out.size = type.size;
            place(out, type.members, id);
        }
    });
    if (!out.isUnion) {
        findHoles(out);
        if (!declared_)
            inferAlignment(out);
    }
    return out;
}

void LayoutAnalyzer::place(ClassLayout& layout, std::span<const ir::Member> members,
                           ir::TypeId id) {
    layout.members.reserve(members.size());
    for (size_t i = 0; i < members.size(); ++i) {
        MemberLayout m;
        m.member = members[i];
        ir::TypeId type = resolved(m.member.type);
        m.byteSize = sizeOf(type);
        m.byteOffset = m.member.bitOffset / 8;
        ir::Kind kind = graph_.kind(type);
        bool integral = kind == ir::Kind::Int || kind == ir::Kind::Enum || kind == ir::Kind::Enum64;
        if (m.member.bitfieldSize && integral && m.byteSize) {
            // A bitfield is shown in the storage unit of its type, aligned to that type's size.
            uint32_t unitBits = m.byteSize * 8;
            m.byteOffset = m.member.bitOffset / unitBits * m.byteSize;
            m.bitfieldOffset = m.member.bitOffset - m.byteOffset * 8;
        }
        m.flexibleArray = kind == ir::Kind::Array && graph_.getAs<ir::ArrayType>(type).count == 0;
        m.alignment = declaredAlignment(id, static_cast<int32_t>(i));
        layout.members.push_back(m);
    }
    layout.alignment = declaredAlignment(id, -1);
    if (!layout.members.empty() && layout.members.back().flexibleArray)
        layout.flexibleArray = true;
    for (const MemberLayout& m : layout.members) {
        const ir::TypeId type = resolved(m.member.type); // a typedef'd struct embeds it too
        if (type == ir::kVoidType || graph_.kind(type) != ir::Kind::Struct || type == id)
            continue;
        const ClassLayout& inner = of(type);
        layout.embeddedFlexibleArray |= inner.flexibleArray || inner.embeddedFlexibleArray;
    }
}

void LayoutAnalyzer::findHoles(ClassLayout& layout) {
    int64_t lastSeenBit = 0, unitEnd = 0, unitBits = 0;
    bool inBitfield = false;
    MemberLayout* last = nullptr;
    for (MemberLayout& m : layout.members) {
        const int64_t start = m.member.bitOffset;
        const int64_t end =
            start + (m.member.bitfieldSize ? m.member.bitfieldSize : m.byteSize * 8);
        int64_t bitHole = 0, byteHole = 0;
        if (inBitfield) { // bits left in the previous bitfield's unit
            int64_t usedEnd = std::min(start, unitEnd);
            bitHole = usedEnd - lastSeenBit;
            lastSeenBit = usedEnd;
        }
        if (m.member.bitfieldSize) {
            const int64_t unitStart = int64_t{m.byteOffset} * 8;
            if (lastSeenBit < unitStart && unitStart <= start) {
                byteHole = m.byteOffset - lastSeenBit / 8;
                lastSeenBit = unitStart;
            }
            bitHole += start - lastSeenBit;
        } else {
            byteHole = start / 8 - lastSeenBit / 8;
        }
        auto& hole = last ? last->hole : layout.preHole;
        auto& bits = last ? last->bitHole : layout.preBitHole;
        hole = static_cast<uint32_t>(byteHole);
        bits = static_cast<uint32_t>(bitHole);
        layout.bitHoles += bitHole != 0;
        layout.holes += byteHole != 0;

        inBitfield = m.member.bitfieldSize != 0;
        if (inBitfield) {
            const int64_t bits = int64_t{m.byteSize} * 8;
            if (end > unitEnd || bits > unitBits) {
                unitBits = bits;
                unitEnd = int64_t{m.byteOffset} * 8 + unitBits;
                // A bitfield that borrowed bits from the previous unit ends in the next one.
                if (end > unitEnd)
                    unitEnd += unitBits;
            }
        } else {
            unitBits = 0;
            unitEnd = end;
        }
        lastSeenBit = end;
        last = &m;
    }
    if (inBitfield) {
        int64_t usedEnd = std::min(int64_t{layout.size} * 8, unitEnd);
        layout.bitPadding = static_cast<uint32_t>(usedEnd - lastSeenBit);
        lastSeenBit = usedEnd;
    }
    layout.padding = static_cast<uint32_t>(layout.size - lastSeenBit / 8);
}

void LayoutAnalyzer::inferAlignment(ClassLayout& layout) {
    uint32_t smallestOffset = 0, largestNatural = 1;
    for (MemberLayout& m : layout.members) {
        uint32_t natural = naturalAlignment(m.member.type);
        m.alignment = inferredAlignment(m.byteOffset, natural, smallestOffset, cacheline_);
        // An empty member (a cacheline marker) leaves the gap to the next; a bitfield ends in
        // the byte holding its last bit.
        if (m.member.bitfieldSize)
            smallestOffset = (m.member.bitOffset + m.member.bitfieldSize + 7) / 8;
        else if (m.byteSize)
            smallestOffset = m.byteOffset + m.byteSize;
        largestNatural = std::max(largestNatural, natural);
    }
    layout.alignment = inferredAlignment(layout.size, largestNatural, smallestOffset, cacheline_);
}

void LayoutAnalyzer::inferPacked(ir::TypeId id) {
    ClassLayout& layout = this->layout(id);
    if (layout.packedInferred)
        return;
    layout.packedInferred = true;
    // Marks packed the struct members that `at(member)` places off their type's alignment.
    auto markMisaligned = [&](auto at) {
        for (const MemberLayout& m : layout.members) {
            const ir::TypeId type = resolved(m.member.type);
            if (graph_.kind(type) == ir::Kind::Struct && at(m) % naturalAlignment(type))
                markPacked(type);
        }
    };
    if (layout.isUnion) {
        // An array of the union would put a struct member whose alignment does not divide the
        // union's size off that alignment (i386's u64 in a union of 28).
        markMisaligned([&](const MemberLayout&) { return layout.size; });
        return;
    }
    // Declared byte-aligned while its members are not: packed (pahole's reading of DWARF's
    // alignment 1; other alignments below the members' do not make it packed).
    if (layout.alignment == 1 && naturalAlignment(id) > 1) {
        layout.packed = true;
        return;
    }
    if (layout.padding || layout.holes) {
        // Not packed, so a struct member off its type's alignment says that type is packed.
        markMisaligned([](const MemberLayout& m) { return m.byteOffset; });
        return;
    }
    uint32_t largestNatural = 1;
    for (const MemberLayout& m : layout.members) {
        uint32_t natural = naturalAlignment(m.member.type);
        if (m.byteOffset % natural) {
            layout.packed = true;
            return;
        }
        largestNatural = std::max(largestNatural, natural);
    }
    if (layout.size % largestNatural)
        layout.packed = true;
}

void LayoutAnalyzer::markPacked(ir::TypeId id) {
    ClassLayout& layout = this->layout(id);
    layout.packed = true;
    layout.packedInferred = true;
}
} // namespace btforge::layout
