#include "TypeLabel.h"

#include "../ir/TypeWalk.h"

#include <optional>
#include <string_view>

namespace btforge::dedup::detail {
namespace {

// Calls sink.number(uint64_t) for each label field, kind first, and sink.name(graph, StrId) for
// each name (the type's, its members', enumerators', parameters', a VAR's section). Lists are
// preceded by their length, so the field sequence determines the label (sinks hash names as
// length-prefixed texts, or as ids where one id stands for one text).
template <typename T, typename Sink> void describe(const ir::TypeGraph& g, const T& t, Sink& sink) {
    sink.number(static_cast<uint64_t>(T::kKind));
    auto listText = [&](ir::StrId name) { sink.name(g, name); };
    if constexpr (!std::is_same_v<T, ir::VoidType>)
        sink.name(g, t.name);
    if constexpr (std::is_same_v<T, ir::IntType>) {
        sink.number(t.size);
        sink.number(t.encoding);
        sink.number(t.bitOffset);
        sink.number(t.bits);
    } else if constexpr (ir::isReferenceKind(T::kKind)) {
        sink.number(t.kindFlag);
    } else if constexpr (std::is_same_v<T, ir::ArrayType>) {
        sink.number(t.count);
    } else if constexpr (requires { t.members; }) {
        sink.number(t.size);
        // Not kindFlag: BTF encoders set it on any struct with bitfields (pahole) or only
        // when writing (btforge), and it changes no member's meaning. Types read from a base
        // must meet the same types mapped from DWARF.
        sink.number(t.members.size());
        for (const ir::Member& m : t.members) {
            listText(m.name);
            sink.number(m.bitOffset);
            sink.number(m.bitfieldSize);
        }
    } else if constexpr (requires { t.values; }) {
        sink.number(t.size);
        sink.number(t.isSigned);
        sink.number(t.values.size());
        for (const ir::Enumerator& e : t.values) {
            listText(e.name);
            sink.number(e.value);
        }
    } else if constexpr (std::is_same_v<T, ir::FwdType>) {
        sink.number(t.isUnion);
    } else if constexpr (std::is_same_v<T, ir::FuncType>) {
        sink.number(static_cast<uint64_t>(t.linkage));
        sink.number(t.address.has_value());
        sink.number(t.address.value_or(0));
    } else if constexpr (std::is_same_v<T, ir::FuncProtoType>) {
        sink.number(t.params.size());
        for (const ir::Param& p : t.params)
            listText(p.name);
    } else if constexpr (std::is_same_v<T, ir::VarType>) {
        sink.number(static_cast<uint64_t>(t.linkage));
        sink.number(t.address.has_value());
        sink.number(t.address.value_or(0));
        sink.name(g, t.section);
    } else if constexpr (std::is_same_v<T, ir::DatasecType>) {
        sink.number(t.size);
        sink.number(t.entries.size());
        for (const ir::VarSecInfo& e : t.entries) {
            sink.number(e.offset);
            sink.number(e.size);
        }
    } else if constexpr (std::is_same_v<T, ir::FloatType>) {
        sink.number(t.size);
    } else if constexpr (std::is_same_v<T, ir::DeclTagType>) {
        sink.number(static_cast<uint32_t>(t.componentIndex));
        sink.number(t.kindFlag);
    }
}

// One 64-bit hash of the label with names as ids `nameId` gives (shapes, TypeLabel.h).
template <typename NameId> struct ShapeHasher {
    NameId nameId;
    uint64_t hash = 0x3c6ef372fe94f82bull;
    void number(uint64_t v) { hash = hashing::combine(hash, v); }
    void name(const ir::TypeGraph& g, ir::StrId id) { number(nameId(g, id)); }
};

} // namespace

LabelHash labelOf(const ir::TypeGraph& g, ir::TypeId id, std::vector<ir::TypeId>& refs) {
    LabelHasher hasher;
    g.visit(id, [&](const auto& t) {
        describe(g, t, hasher);
        ir::forEachReference(t, [&](ir::TypeId ref) { refs.push_back(ref); });
    });
    return hasher.hash;
}

uint64_t shapeOf(const ir::TypeGraph& g, ir::TypeId id, std::span<const ir::TypeId> refs,
                 const ir::StringPool& baseStrings) {
    // A name the base does not have: no base type has this label.
    constexpr uint64_t kNowhere = UINT64_MAX;
    auto baseId = [&](const ir::TypeGraph& graph, ir::StrId name) -> uint64_t {
        const std::optional<ir::StrId> found = baseStrings.find(graph.str(name));
        return found ? *found : kNowhere;
    };
    ShapeHasher<decltype(baseId)> hasher{baseId};
    g.visit(id, [&](const auto& t) { describe(g, t, hasher); });
    for (ir::TypeId ref : refs)
        hasher.number(ref);
    return hasher.hash;
}

uint64_t baseShapeOf(const ir::TypeGraph& base, ir::TypeId id, std::vector<ir::TypeId>& refs) {
    auto ownId = [](const ir::TypeGraph&, ir::StrId name) -> uint64_t { return name; };
    ShapeHasher<decltype(ownId)> hasher{ownId};
    const size_t first = refs.size();
    base.visit(id, [&](const auto& t) {
        describe(base, t, hasher);
        ir::forEachReference(t, [&](ir::TypeId ref) { refs.push_back(ref); });
    });
    for (size_t i = first; i < refs.size(); ++i)
        hasher.number(refs[i]);
    return hasher.hash;
}

} // namespace btforge::dedup::detail
