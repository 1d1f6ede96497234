// A type's label: everything about it except the ids it refers to. Two types are equivalent when
// their labels are equal and their references, position by position, are equivalent. describe()
// walks labels and references in one fixed order, so hashing, comparing and copying agree on it.
#pragma once

#include "btforge/ir/TypeGraph.h"

#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>
#include <vector>

namespace btforge::dedup::detail {

__extension__ typedef unsigned __int128 Uint128;

// Multiply-fold mixing: one 64x64->128 multiplication, both halves kept.
inline uint64_t combine(uint64_t h, uint64_t v) {
    Uint128 product = static_cast<Uint128>(h ^ 0xa0761d6478bd642full) * (v ^ 0xe7037ed1a0b428dbull);
    return static_cast<uint64_t>(product) ^ static_cast<uint64_t>(product >> 64);
}

inline uint64_t hashString(std::string_view s) {
    uint64_t h = combine(0x8ebc6af09c88c6e3ull, s.size());
    size_t i = 0;
    for (; i + 8 <= s.size(); i += 8) {
        uint64_t word;
        std::memcpy(&word, s.data() + i, 8);
        h = combine(h, word);
    }
    if (i < s.size()) {
        uint64_t word = 0;
        std::memcpy(&word, s.data() + i, s.size() - i);
        h = combine(h, word);
    }
    return h;
}

// Calls sink.number(uint64_t) and sink.text(std::string_view) for each label field and
// sink.ref(TypeId) for each reference, kind first. Names are text, never StrIds: graphs being
// compared have pools of their own.
template <typename Sink>
void describe(const ir::TypeGraph& g, const ir::TypeView& view, Sink& sink) {
    sink.number(view.index());
    std::visit(
        [&](const auto& t) {
            using T = std::decay_t<decltype(t)>;
            auto text = [&](ir::StrId id) { sink.text(g.str(id)); };
            if constexpr (!std::is_same_v<T, ir::VoidType>)
                text(t.name);
            if constexpr (std::is_same_v<T, ir::IntType>) {
                sink.number(t.size);
                sink.number(t.encoding);
                sink.number(t.bitOffset);
                sink.number(t.bits);
            } else if constexpr (ir::isReferenceKind(T::kKind)) {
                sink.number(t.kindFlag);
                sink.ref(t.type);
            } else if constexpr (std::is_same_v<T, ir::ArrayType>) {
                sink.number(t.count);
                sink.ref(t.elemType);
                sink.ref(t.indexType);
            } else if constexpr (requires { t.members; }) {
                sink.number(t.size);
                sink.number(t.kindFlag);
                sink.number(t.members.size());
                for (const ir::Member& m : t.members) {
                    text(m.name);
                    sink.number(m.bitOffset);
                    sink.number(m.bitfieldSize);
                    sink.ref(m.type);
                }
            } else if constexpr (requires { t.values; }) {
                sink.number(t.size);
                sink.number(t.isSigned);
                sink.number(t.values.size());
                for (const ir::Enumerator& e : t.values) {
                    text(e.name);
                    sink.number(e.value);
                }
            } else if constexpr (std::is_same_v<T, ir::FwdType>) {
                sink.number(t.isUnion);
            } else if constexpr (std::is_same_v<T, ir::FuncType>) {
                sink.number(static_cast<uint64_t>(t.linkage));
                sink.number(t.address.has_value());
                sink.number(t.address.value_or(0));
                sink.ref(t.proto);
            } else if constexpr (std::is_same_v<T, ir::FuncProtoType>) {
                sink.number(t.params.size());
                sink.ref(t.returnType);
                for (const ir::Param& p : t.params) {
                    text(p.name);
                    sink.ref(p.type);
                }
            } else if constexpr (std::is_same_v<T, ir::VarType>) {
                sink.number(static_cast<uint64_t>(t.linkage));
                sink.number(t.address.has_value());
                sink.number(t.address.value_or(0));
                text(t.section);
                sink.ref(t.type);
            } else if constexpr (std::is_same_v<T, ir::DatasecType>) {
                sink.number(t.size);
                sink.number(t.entries.size());
                for (const ir::VarSecInfo& e : t.entries) {
                    sink.number(e.offset);
                    sink.number(e.size);
                    sink.ref(e.type);
                }
            } else if constexpr (std::is_same_v<T, ir::FloatType>) {
                sink.number(t.size);
            } else if constexpr (std::is_same_v<T, ir::DeclTagType>) {
                sink.number(static_cast<uint32_t>(t.componentIndex));
                sink.number(t.kindFlag);
                sink.ref(t.type);
            }
        },
        view);
}

// A describe() sink hashing the label; references are left out.
struct LabelHasher {
    uint64_t hash = 0x243f6a8885a308d3ull;
    void number(uint64_t v) { hash = combine(hash, v); }
    void text(std::string_view s) { hash = combine(hash, hashString(s)); }
    void ref(ir::TypeId) {}
};

inline uint64_t labelHash(const ir::TypeGraph& g, const ir::TypeView& view) {
    LabelHasher hasher;
    describe(g, view, hasher);
    return hasher.hash;
}

// Compares labels across graphs: record() one type, then matches() another against it. The
// recorded type's references stay available, so a caller can pair them with the other's.
class LabelMatcher {
public:
    void record(const ir::TypeGraph& g, const ir::TypeView& view);
    bool matches(const ir::TypeGraph& g, const ir::TypeView& view);
    const std::vector<ir::TypeId>& recordedRefs() const { return refs_; }

private:
    struct Field {
        std::string_view text;
        uint64_t number = 0;
        bool isText = false;
    };
    std::vector<Field> fields_;
    std::vector<ir::TypeId> refs_;
};

// Lists rewrite() builds views over; reused so copying types allocates only while they grow.
struct ListScratch {
    std::vector<ir::Member> members;
    std::vector<ir::Param> params;
    std::vector<ir::Enumerator> enumerators;
    std::vector<ir::VarSecInfo> entries;
};

// The view of `from`'s type for `to`: names re-interned into `to`, references through `mapRef`.
// Lists point into `scratch`, so the result is valid until its next use.
template <typename MapRef>
ir::TypeView rewrite(const ir::TypeGraph& from, const ir::TypeView& view, ir::TypeGraph& to,
                     MapRef&& mapRef, ListScratch& scratch) {
    auto name = [&](ir::StrId id) { return to.intern(from.str(id)); };
    return std::visit(
        [&](const auto& t) -> ir::TypeView {
            using T = std::decay_t<decltype(t)>;
            T out = t;
            if constexpr (!std::is_same_v<T, ir::VoidType>)
                out.name = name(t.name);
            if constexpr (ir::isReferenceKind(T::kKind) || std::is_same_v<T, ir::VarType> ||
                          std::is_same_v<T, ir::DeclTagType>)
                out.type = mapRef(t.type);
            if constexpr (std::is_same_v<T, ir::ArrayType>) {
                out.elemType = mapRef(t.elemType);
                out.indexType = mapRef(t.indexType);
            } else if constexpr (requires { t.members; }) {
                scratch.members.clear();
                for (const ir::Member& m : t.members)
                    scratch.members.push_back(
                        {name(m.name), mapRef(m.type), m.bitOffset, m.bitfieldSize});
                out.members = scratch.members;
            } else if constexpr (requires { t.values; }) {
                scratch.enumerators.clear();
                for (const ir::Enumerator& e : t.values)
                    scratch.enumerators.push_back({name(e.name), e.value});
                out.values = scratch.enumerators;
            } else if constexpr (std::is_same_v<T, ir::FuncType>) {
                out.proto = mapRef(t.proto);
            } else if constexpr (std::is_same_v<T, ir::FuncProtoType>) {
                out.returnType = mapRef(t.returnType);
                scratch.params.clear();
                for (const ir::Param& p : t.params)
                    scratch.params.push_back({name(p.name), mapRef(p.type)});
                out.params = scratch.params;
            } else if constexpr (std::is_same_v<T, ir::VarType>) {
                out.section = name(t.section);
            } else if constexpr (std::is_same_v<T, ir::DatasecType>) {
                scratch.entries.clear();
                for (const ir::VarSecInfo& e : t.entries)
                    scratch.entries.push_back({mapRef(e.type), e.offset, e.size});
                out.entries = scratch.entries;
            }
            return out;
        },
        view);
}

} // namespace btforge::dedup::detail
