#include "Differ.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>

namespace btforge::compare::detail {
namespace {

// "what" of a detail inside `owner` (empty at the top of a type, "member 'u'" inside one).
std::string within(const std::string& owner, std::string_view what) {
    return owner.empty() ? std::string(what) : owner + " " + std::string(what);
}

// How members, values and DATASEC entries pair up: by name, the n-th of a repeated name with the
// n-th (C allows repeats only for unnamed members).
struct ItemKey {
    std::string_view name;
    uint32_t occurrence;
    auto operator<=>(const ItemKey&) const = default;
};

template <typename Name> std::vector<ItemKey> itemKeys(size_t count, Name&& nameOf) {
    std::vector<ItemKey> keys;
    keys.reserve(count);
    std::unordered_map<std::string_view, uint32_t> seen;
    for (size_t i = 0; i < count; ++i) {
        std::string_view name = nameOf(i);
        keys.push_back({name, seen[name]++});
    }
    return keys;
}

std::string itemLabel(const ItemKey& key) {
    if (key.name.empty())
        return "(anon " + std::to_string(key.occurrence + 1) + ")";
    std::string label(key.name);
    return key.occurrence ? label + "#" + std::to_string(key.occurrence + 1) : label;
}

// For each item of `a`, the index of the item of `b` with the same key, or nullopt.
std::vector<std::optional<size_t>> pairItems(const std::vector<ItemKey>& a,
                                             const std::vector<ItemKey>& b) {
    std::map<ItemKey, size_t> inB;
    for (size_t j = 0; j < b.size(); ++j)
        inB.emplace(b[j], j);
    std::vector<std::optional<size_t>> pairs(a.size());
    for (size_t i = 0; i < a.size(); ++i) {
        if (auto it = inB.find(a[i]); it != inB.end())
            pairs[i] = it->second;
    }
    return pairs;
}

std::vector<ItemKey> memberKeys(const Side& side, const Composite& c) {
    return itemKeys(c.members.size(),
                    [&](size_t i) { return side.graph().str(c.members[i].name); });
}

std::vector<ItemKey> valueKeys(const Side& side, const Enumeration& e) {
    return itemKeys(e.values.size(), [&](size_t i) { return side.graph().str(e.values[i].name); });
}

} // namespace

std::vector<Difference> Differ::compare(TypeId x, TypeId y) {
    found_.clear();
    const TypeGraph& ga = a_.graph();
    const TypeGraph& gb = b_.graph();
    switch (ga.kind(x)) {
    case Kind::Struct:
    case Kind::Union:
    case Kind::Enum:
    case Kind::Enum64:
        compareAggregates("", "", x, y, 0);
        break;
    case Kind::Int: {
        auto i = ga.getAs<ir::IntType>(x);
        auto j = gb.getAs<ir::IntType>(y);
        compareValue("size", i.size, j.size);
        compareValue("encoding", intEncodingName(i.encoding), intEncodingName(j.encoding));
        compareValue("bits", i.bits, j.bits);
        compareValue("bit offset", i.bitOffset, j.bitOffset);
        break;
    }
    case Kind::Float:
        compareValue("size", ga.getAs<ir::FloatType>(x).size, gb.getAs<ir::FloatType>(y).size);
        break;
    case Kind::Fwd: {
        auto kindOf = [](bool isUnion) { return isUnion ? "union" : "struct"; };
        compareValue("kind", std::string(kindOf(ga.getAs<ir::FwdType>(x).isUnion)),
                     std::string(kindOf(gb.getAs<ir::FwdType>(y).isUnion)));
        break;
    }
    case Kind::Typedef:
        compareReference("target", "", "", ga.target(x), gb.target(y), 0);
        break;
    case Kind::Func:
        compareFunctions(x, y);
        break;
    case Kind::Var: {
        auto v = ga.getAs<ir::VarType>(x);
        auto w = gb.getAs<ir::VarType>(y);
        compareValue("linkage", std::string(varLinkageName(v.linkage)),
                     std::string(varLinkageName(w.linkage)));
        compareReference("type", "", "", v.type, w.type, 0);
        break;
    }
    case Kind::Datasec:
        compareDatasecs(x, y);
        break;
    case Kind::DeclTag: {
        auto form = [](bool attribute) { return attribute ? "attribute" : "declaration"; };
        compareValue("form", std::string(form(ga.getAs<ir::DeclTagType>(x).kindFlag)),
                     std::string(form(gb.getAs<ir::DeclTagType>(y).kindFlag)));
        break;
    }
    default:
        break;
    }
    return std::move(found_);
}

void Differ::note(std::string what, std::optional<std::string> a, std::optional<std::string> b) {
    found_.push_back({Kind::Void, {}, std::move(what), std::move(a), std::move(b)});
}

template <typename T> void Differ::compareValue(std::string what, const T& a, const T& b) {
    if (a == b)
        return;
    if constexpr (std::is_same_v<T, std::string>)
        note(std::move(what), a, b);
    else
        note(std::move(what), std::to_string(a), std::to_string(b));
}

void Differ::compareReference(const std::string& what, const std::string& owner,
                              const std::string& prefix, TypeId x, TypeId y, unsigned depth) {
    if (a_.hashes.ref(x) == b_.hashes.ref(y))
        return;
    if (depth < kMaxDescent && a_.isAnonymousAggregate(x) && b_.isAnonymousAggregate(y) &&
        a_.graph().kind(x) == b_.graph().kind(y)) {
        compareAggregates(owner, prefix, x, y, depth + 1);
        return;
    }
    note(what, a_.spelling.spell(x), b_.spelling.spell(y));
}

void Differ::compareAggregates(const std::string& owner, const std::string& prefix, TypeId x,
                               TypeId y, unsigned depth) {
    Kind kind = a_.graph().kind(x);
    if (kind == Kind::Struct || kind == Kind::Union)
        compareMembers(owner, prefix, x, y, depth);
    else
        compareEnumerators(owner, x, y);
}

void Differ::compareMembers(const std::string& owner, const std::string& prefix, TypeId x, TypeId y,
                            unsigned depth) {
    Composite ca = a_.composite(x);
    Composite cb = b_.composite(y);
    compareValue(within(owner, "size"), ca.size, cb.size);
    auto keysA = memberKeys(a_, ca);
    auto keysB = memberKeys(b_, cb);
    auto pairs = pairItems(keysA, keysB);
    std::vector<bool> pairedB(cb.members.size());
    std::vector<size_t> orderB; // B's index of each paired member, in A's order
    for (size_t i = 0; i < ca.members.size(); ++i) {
        std::string path = prefix + itemLabel(keysA[i]);
        std::string member = "member " + quoted(path);
        const ir::Member& m = ca.members[i];
        if (!pairs[i]) {
            note(member, a_.spelling.spellMember(m), std::nullopt);
            continue;
        }
        const ir::Member& n = cb.members[*pairs[i]];
        pairedB[*pairs[i]] = true;
        orderB.push_back(*pairs[i]);
        compareValue(member + " offset", m.bitOffset, n.bitOffset);
        compareValue(member + " bitfield size", m.bitfieldSize, n.bitfieldSize);
        compareReference(member + " type", member, path + ".", m.type, n.type, depth);
    }
    for (size_t j = 0; j < cb.members.size(); ++j) {
        if (!pairedB[j])
            note("member " + quoted(prefix + itemLabel(keysB[j])), std::nullopt,
                 b_.spelling.spellMember(cb.members[j]));
    }
    if (!std::is_sorted(orderB.begin(), orderB.end())) {
        std::string inA, inB;
        for (size_t i = 0; i < ca.members.size(); ++i) {
            if (pairs[i])
                inA += (inA.empty() ? "" : ", ") + itemLabel(keysA[i]);
        }
        std::sort(orderB.begin(), orderB.end());
        for (size_t j : orderB)
            inB += (inB.empty() ? "" : ", ") + itemLabel(keysB[j]);
        note(within(owner, "member order"), inA, inB);
    }
}

void Differ::compareEnumerators(const std::string& owner, TypeId x, TypeId y) {
    Enumeration ea = a_.enumeration(x);
    Enumeration eb = b_.enumeration(y);
    compareValue(within(owner, "size"), ea.size, eb.size);
    auto signedness = [](bool isSigned) { return std::string(isSigned ? "signed" : "unsigned"); };
    compareValue(within(owner, "signedness"), signedness(ea.isSigned), signedness(eb.isSigned));
    auto keysA = valueKeys(a_, ea);
    auto keysB = valueKeys(b_, eb);
    auto pairs = pairItems(keysA, keysB);
    std::vector<bool> pairedB(eb.values.size());
    for (size_t i = 0; i < ea.values.size(); ++i) {
        std::string value = within(owner, "value " + quoted(itemLabel(keysA[i])));
        if (!pairs[i]) {
            note(value, ea.textOf(ea.values[i]), std::nullopt);
            continue;
        }
        pairedB[*pairs[i]] = true;
        const ir::Enumerator& w = eb.values[*pairs[i]];
        if (ea.valueOf(ea.values[i]) != eb.valueOf(w))
            note(value, ea.textOf(ea.values[i]), eb.textOf(w));
    }
    for (size_t j = 0; j < eb.values.size(); ++j) {
        if (!pairedB[j])
            note(within(owner, "value " + quoted(itemLabel(keysB[j]))), std::nullopt,
                 eb.textOf(eb.values[j]));
    }
}

void Differ::compareFunctions(TypeId x, TypeId y) {
    const TypeGraph& ga = a_.graph();
    const TypeGraph& gb = b_.graph();
    auto f = ga.getAs<ir::FuncType>(x);
    auto g = gb.getAs<ir::FuncType>(y);
    compareValue("linkage", std::string(funcLinkageName(f.linkage)),
                 std::string(funcLinkageName(g.linkage)));
    Prototype pa = a_.prototype(f.proto);
    Prototype pb = b_.prototype(g.proto);
    if (a_.hashes.ref(pa.returnType) != b_.hashes.ref(pb.returnType))
        note("return type", a_.spelling.spell(pa.returnType), b_.spelling.spell(pb.returnType));
    for (size_t i = 0; i < std::max(pa.params.size(), pb.params.size()); ++i) {
        const ir::Param* p = i < pa.params.size() ? &pa.params[i] : nullptr;
        const ir::Param* q = i < pb.params.size() ? &pb.params[i] : nullptr;
        std::string_view nameA = p ? ga.str(p->name) : std::string_view();
        std::string_view nameB = q ? gb.str(q->name) : std::string_view();
        std::string param = "param " + std::to_string(i + 1);
        auto text = [](Side& side, const ir::Param* r) -> std::optional<std::string> {
            if (!r)
                return std::nullopt;
            return side.spelling.spell(r->type, std::string(side.graph().str(r->name)));
        };
        if (!p || !q) {
            note(param, text(a_, p), text(b_, q));
            continue;
        }
        compareValue(param + " name", std::string(nameA), std::string(nameB));
        if (a_.hashes.ref(p->type) != b_.hashes.ref(q->type))
            note(param + " " + quoted(nameA.empty() ? nameB : nameA) + " type",
                 a_.spelling.spell(p->type), b_.spelling.spell(q->type));
    }
    auto yesNo = [](bool v) { return std::string(v ? "yes" : "no"); };
    compareValue("varargs", yesNo(pa.varargs), yesNo(pb.varargs));
}

void Differ::compareDatasecs(TypeId x, TypeId y) {
    const TypeGraph& ga = a_.graph();
    const TypeGraph& gb = b_.graph();
    auto d = ga.getAs<ir::DatasecType>(x);
    auto e = gb.getAs<ir::DatasecType>(y);
    compareValue("size", d.size, e.size);
    auto keysA = itemKeys(d.entries.size(), [&](size_t i) { return ga.name(d.entries[i].type); });
    auto keysB = itemKeys(e.entries.size(), [&](size_t i) { return gb.name(e.entries[i].type); });
    auto pairs = pairItems(keysA, keysB);
    auto placement = [](const ir::VarSecInfo& v) {
        return "offset " + std::to_string(v.offset) + ", size " + std::to_string(v.size);
    };
    std::vector<bool> pairedB(e.entries.size());
    for (size_t i = 0; i < d.entries.size(); ++i) {
        std::string var = "var " + quoted(itemLabel(keysA[i]));
        if (!pairs[i]) {
            note(var, placement(d.entries[i]), std::nullopt);
            continue;
        }
        pairedB[*pairs[i]] = true;
        const ir::VarSecInfo& w = e.entries[*pairs[i]];
        compareValue(var + " offset", d.entries[i].offset, w.offset);
        compareValue(var + " size", d.entries[i].size, w.size);
    }
    for (size_t j = 0; j < e.entries.size(); ++j) {
        if (!pairedB[j])
            note("var " + quoted(itemLabel(keysB[j])), std::nullopt, placement(e.entries[j]));
    }
}

} // namespace btforge::compare::detail
