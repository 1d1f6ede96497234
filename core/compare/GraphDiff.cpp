#include "compare/GraphDiff.h"

#include <algorithm>
#include <functional>
#include <map>
#include <span>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace btforge::compare {
namespace {

using ir::Kind;
using ir::TypeGraph;
using ir::TypeId;

// --- hashing ---

constexpr uint64_t kSeed = 0x6a09e667f3bcc908ull;

uint64_t mix(uint64_t state, uint64_t value) {
    uint64_t x = state ^ (value + 0x9e3779b97f4a7c15ull + (state << 6) + (state >> 2));
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

uint64_t hashText(std::string_view text) {
    return std::hash<std::string_view>{}(text);
}

uint64_t kindSeed(Kind kind) {
    return mix(kSeed, static_cast<uint64_t>(kind));
}

// A hash per type id, computed once. Only anonymous types can refer to themselves without a name
// in between (hand-made graphs; C cannot spell it), and a loop then hashes with a fixed stand-in.
class HashMemo {
public:
    explicit HashMemo(size_t size) : values_(size), states_(size, State::Unknown) {}

    template <typename Compute> uint64_t get(TypeId id, Compute&& compute) {
        if (states_[id] == State::Known)
            return values_[id];
        if (states_[id] == State::Busy)
            return kLoop;
        states_[id] = State::Busy;
        values_[id] = compute();
        states_[id] = State::Known;
        return values_[id];
    }

private:
    enum class State : uint8_t { Unknown, Busy, Known };
    static constexpr uint64_t kLoop = 0x4c4f4f50;
    std::vector<uint64_t> values_;
    std::vector<State> states_;
};

// --- uniform access to the kinds that share a shape ---

struct Composite {
    uint32_t size;
    std::span<const ir::Member> members;
};

struct Enumeration {
    Kind kind;
    uint32_t size;
    bool isSigned;
    std::span<const ir::Enumerator> values;

    // ENUM keeps its value in the low 32 bits; sign-extend those so that both kinds compare as
    // the number the source wrote.
    uint64_t valueOf(const ir::Enumerator& e) const {
        if (kind == Kind::Enum64)
            return e.value;
        uint32_t low = static_cast<uint32_t>(e.value);
        return isSigned ? static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(low)))
                        : low;
    }
    std::string textOf(const ir::Enumerator& e) const {
        uint64_t value = valueOf(e);
        return isSigned ? std::to_string(static_cast<int64_t>(value)) : std::to_string(value);
    }
};

// Parameters without the trailing void that BTF uses to say "...".
struct Prototype {
    TypeId returnType = ir::kVoidType;
    std::span<const ir::Param> params;
    bool varargs = false;
};

bool isAggregateKind(Kind kind) {
    return kind == Kind::Struct || kind == Kind::Union || kind == Kind::Enum ||
           kind == Kind::Enum64;
}

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

std::string quoted(std::string_view name) {
    return "'" + std::string(name) + "'";
}

// "what" of a detail inside `owner` (empty at the top of a type, "member 'u'" inside one).
std::string detail(const std::string& owner, std::string_view what) {
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

// How far a rendering for people goes: anonymous types spelled out this many levels deep, and a
// bound on reference chains so that no graph can make it run away.
struct Budget {
    unsigned expansions = 2;
    unsigned links = 64;
};

// --- one graph, with the hashes comparing it needs ---

class Side {
public:
    Side(const TypeGraph& graph, const DiffOptions& options)
        : graph_(graph), strictForwards_(options.strictForwards),
          flattenArrays_(options.flattenArrays), refs_(graph.endId()), shapes_(graph.endId()) {}

    const TypeGraph& graph() const { return graph_; }

    // An array's element count and element type; flattened, nested arrays multiply out.
    std::pair<uint64_t, TypeId> arrayShape(TypeId id) const {
        auto array = graph_.getAs<ir::ArrayType>(id);
        uint64_t count = array.count;
        TypeId element = array.elemType;
        while (flattenArrays_ && graph_.kind(element) == Kind::Array) {
            auto inner = graph_.getAs<ir::ArrayType>(element);
            count *= inner.count;
            element = inner.elemType;
        }
        return {count, element};
    }

    // What a reference to `id` means: equal for "struct foo *" in both graphs whatever the ids.
    // Named types count by kind and name (their definitions are compared where they are
    // matched), anonymous ones by their shape.
    uint64_t ref(TypeId id) {
        return refs_.get(id, [&] { return computeRef(id); });
    }
    // What is compared of `id` when it is matched: equal exactly when Differ finds nothing.
    uint64_t shape(TypeId id) {
        return shapes_.get(id, [&] { return computeShape(id); });
    }

    bool isAnonymousAggregate(TypeId id) const {
        return isAggregateKind(graph_.kind(id)) && graph_.name(id).empty();
    }

    Composite composite(TypeId id) const {
        if (graph_.kind(id) == Kind::Struct) {
            auto s = graph_.getAs<ir::StructType>(id);
            return {s.size, s.members};
        }
        auto u = graph_.getAs<ir::UnionType>(id);
        return {u.size, u.members};
    }

    Enumeration enumeration(TypeId id) const {
        if (graph_.kind(id) == Kind::Enum) {
            auto e = graph_.getAs<ir::EnumType>(id);
            return {Kind::Enum, e.size, e.isSigned, e.values};
        }
        auto e = graph_.getAs<ir::Enum64Type>(id);
        return {Kind::Enum64, e.size, e.isSigned, e.values};
    }

    // The readers check that a FUNC refers to a FUNC_PROTO; a hand-made graph that does not is
    // read as a function without parameters.
    Prototype prototype(TypeId id) const {
        if (graph_.kind(id) != Kind::FuncProto)
            return {};
        auto proto = graph_.getAs<ir::FuncProtoType>(id);
        Prototype out{proto.returnType, proto.params, false};
        if (!out.params.empty() && out.params.back().type == ir::kVoidType) {
            out.params = out.params.first(out.params.size() - 1);
            out.varargs = true;
        }
        return out;
    }

    // C's spelling of `id` around `declarator`: spell(ptr-to-char, "p") is "char *p".
    std::string spell(TypeId id, std::string declarator = {}, Budget budget = {}) const {
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
            auto [count, element] = arrayShape(id);
            return spell(element, grouped(declarator) + "[" + std::to_string(count) + "]", budget);
        }
        case Kind::FuncProto:
            return spellPrototype(prototype(id), grouped(declarator), false, budget);
        case Kind::Struct:
        case Kind::Union:
        case Kind::Enum:
        case Kind::Enum64:
        case Kind::Fwd:
            if (name.empty() && kind != Kind::Fwd)
                return join(spellAnonymous(id, budget), declarator);
            return join(kind == Kind::Fwd && strictForwards_ ? "fwd " + tagged(id) : tagged(id),
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

    // "int foo(struct sk_buff *skb, int len)".
    std::string spellFunction(TypeId func) const {
        auto f = graph_.getAs<ir::FuncType>(func);
        return spellPrototype(prototype(f.proto), std::string(graph_.str(f.name)), true, {});
    }

    std::string spellMember(const ir::Member& m) const {
        std::string text = spell(m.type, std::string(graph_.str(m.name)));
        if (m.bitfieldSize)
            text += ":" + std::to_string(m.bitfieldSize);
        return text + " at bit " + std::to_string(m.bitOffset);
    }

    // One line for a type present on one side only.
    std::string describe(TypeId id) const {
        std::string_view name = graph_.name(id);
        switch (graph_.kind(id)) {
        case Kind::Struct:
        case Kind::Union: {
            Composite c = composite(id);
            return spell(id) + ": " + counted(c.size, "byte") + ", " +
                   counted(c.members.size(), "member");
        }
        case Kind::Enum:
        case Kind::Enum64: {
            Enumeration e = enumeration(id);
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

    // A DECL_TAG is known by its value and what it tags: "'bpf_kfunc' on func bpf_obj_new".
    std::string declTagKey(TypeId id) const {
        auto tag = graph_.getAs<ir::DeclTagType>(id);
        std::string key = quoted(graph_.str(tag.name)) + " on ";
        if (tag.componentIndex >= 0)
            key += componentName(tag.type, static_cast<uint32_t>(tag.componentIndex)) + " of ";
        return key + spell(tag.type);
    }

private:
    uint64_t computeRef(TypeId id) {
        Kind kind = graph_.kind(id);
        switch (kind) {
        case Kind::Struct:
        case Kind::Union:
        case Kind::Enum:
        case Kind::Enum64:
            if (graph_.name(id).empty())
                return mix(kindSeed(kind), shape(id));
            [[fallthrough]];
        case Kind::Fwd:
            return mix(mix(kSeed, tagClass(id)), hashText(graph_.name(id)));
        case Kind::Ptr:
        case Kind::Const:
        case Kind::Volatile:
        case Kind::Restrict:
            return mix(kindSeed(kind), ref(graph_.target(id)));
        case Kind::TypeTag: {
            auto tag = graph_.getAs<ir::TypeTagType>(id);
            uint64_t h = mix(mix(kindSeed(kind), hashText(graph_.str(tag.name))), tag.kindFlag);
            return mix(h, ref(tag.type));
        }
        case Kind::Array: {
            // The index type is left out: producers pick different ones for the same array.
            auto [count, element] = arrayShape(id);
            return mix(mix(kindSeed(kind), count), ref(element));
        }
        case Kind::FuncProto: {
            // Parameter names are not part of a function pointer's type.
            auto proto = graph_.getAs<ir::FuncProtoType>(id);
            uint64_t h = mix(mix(kindSeed(kind), proto.params.size()), ref(proto.returnType));
            for (const ir::Param& p : proto.params)
                h = mix(h, ref(p.type));
            return h;
        }
        default: // void, INT, FLOAT, TYPEDEF, FUNC, VAR, DATASEC, DECL_TAG: by name
            return mix(kindSeed(kind), hashText(graph_.name(id)));
        }
    }

    uint64_t computeShape(TypeId id) {
        Kind kind = graph_.kind(id);
        uint64_t h = kindSeed(kind);
        switch (kind) {
        case Kind::Int: {
            auto i = graph_.getAs<ir::IntType>(id);
            return mix(mix(mix(mix(h, i.size), i.encoding), i.bits), i.bitOffset);
        }
        case Kind::Float:
            return mix(h, graph_.getAs<ir::FloatType>(id).size);
        case Kind::Struct:
        case Kind::Union: {
            Composite c = composite(id);
            h = mix(h, c.size);
            for (const ir::Member& m : c.members) {
                h = mix(mix(h, hashText(graph_.str(m.name))), m.bitOffset);
                h = mix(mix(h, m.bitfieldSize), ref(m.type));
            }
            return h;
        }
        case Kind::Enum:
        case Kind::Enum64: {
            // Values compare by name, not by order: summing makes the hash order-blind too.
            Enumeration e = enumeration(id);
            uint64_t values = 0;
            for (const ir::Enumerator& v : e.values)
                values += mix(hashText(graph_.str(v.name)), e.valueOf(v));
            return mix(mix(mix(h, e.size), e.isSigned), values);
        }
        case Kind::Fwd:
            return mix(h, graph_.getAs<ir::FwdType>(id).isUnion);
        case Kind::Typedef:
            return mix(h, ref(graph_.target(id)));
        case Kind::Func: {
            auto f = graph_.getAs<ir::FuncType>(id);
            Prototype proto = prototype(f.proto);
            h = mix(mix(mix(h, static_cast<uint64_t>(f.linkage)), proto.varargs),
                    ref(proto.returnType));
            h = mix(h, proto.params.size());
            for (const ir::Param& p : proto.params)
                h = mix(mix(h, hashText(graph_.str(p.name))), ref(p.type));
            return h;
        }
        case Kind::Var: {
            auto v = graph_.getAs<ir::VarType>(id);
            return mix(mix(h, static_cast<uint64_t>(v.linkage)), ref(v.type));
        }
        case Kind::Datasec: {
            auto d = graph_.getAs<ir::DatasecType>(id);
            uint64_t entries = 0; // by variable name, as Differ pairs them
            for (const ir::VarSecInfo& e : d.entries)
                entries += mix(mix(hashText(graph_.name(e.type)), e.offset), e.size);
            return mix(mix(h, d.size), entries);
        }
        case Kind::DeclTag:
            return mix(h, graph_.getAs<ir::DeclTagType>(id).kindFlag);
        default: // never matched on their own
            return h;
        }
    }

    // References say "struct foo" for a FWD and a STRUCT alike unless strict, and "enum foo" for
    // ENUM and ENUM64 (the width belongs to the definition).
    uint64_t tagClass(TypeId id) const {
        Kind kind = graph_.kind(id);
        if (kind == Kind::Enum64)
            return static_cast<uint64_t>(Kind::Enum);
        if (kind != Kind::Fwd)
            return static_cast<uint64_t>(kind);
        bool isUnion = graph_.getAs<ir::FwdType>(id).isUnion;
        if (strictForwards_)
            return isUnion ? 0x100 : 0x101;
        return static_cast<uint64_t>(isUnion ? Kind::Union : Kind::Struct);
    }

    std::string tagged(TypeId id) const {
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

    std::string qualifierOf(TypeId id) const {
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

    // "struct {int a; long b;}", "enum {A = 0, B = 1, ...}": anonymous types spelled by their
    // contents, a few items and levels deep.
    std::string spellAnonymous(TypeId id, Budget budget) const {
        constexpr size_t kMembersShown = 8;
        constexpr size_t kValuesShown = 4;
        Kind kind = graph_.kind(id);
        std::string keyword = kind == Kind::Struct  ? "struct"
                              : kind == Kind::Union ? "union"
                                                    : "enum";
        if (budget.expansions == 0)
            return keyword + " {...}";
        --budget.expansions;
        std::string body;
        if (kind == Kind::Struct || kind == Kind::Union) {
            Composite c = composite(id);
            for (size_t i = 0; i < c.members.size() && i < kMembersShown; ++i) {
                const ir::Member& m = c.members[i];
                body += spell(m.type, std::string(graph_.str(m.name)), budget);
                body += m.bitfieldSize ? ":" + std::to_string(m.bitfieldSize) + "; " : "; ";
            }
            if (c.members.size() > kMembersShown)
                body += "...; ";
        } else {
            Enumeration e = enumeration(id);
            for (size_t i = 0; i < e.values.size() && i < kValuesShown; ++i)
                body += std::string(graph_.str(e.values[i].name)) + " = " + e.textOf(e.values[i]) +
                        ", ";
            if (e.values.size() > kValuesShown)
                body += "..., ";
        }
        // Drop the last separator, keeping the ";" that C ends every member with.
        if (!body.empty())
            body.resize(body.size() - (body.ends_with("; ") ? 1 : 2));
        return keyword + " {" + body + "}";
    }

    std::string spellPrototype(const Prototype& proto, std::string declarator, bool withNames,
                               Budget budget) const {
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

    std::string componentName(TypeId id, uint32_t index) const {
        Kind kind = graph_.kind(id);
        if (kind == Kind::Struct || kind == Kind::Union) {
            Composite c = composite(id);
            if (index < c.members.size())
                return "member " + quoted(graph_.str(c.members[index].name));
        } else if (kind == Kind::Func) {
            Prototype proto = prototype(graph_.getAs<ir::FuncType>(id).proto);
            if (index < proto.params.size())
                return "param " + quoted(graph_.str(proto.params[index].name));
        }
        return "component " + std::to_string(index);
    }

    const TypeGraph& graph_;
    bool strictForwards_;
    bool flattenArrays_;
    HashMemo refs_;
    HashMemo shapes_;
};

// --- what differs between two matched types ---

// Lists every difference between a type of A and the type of B it was matched with, naming the
// member, value or parameter. It compares what Side::shape hashes, so it finds something whenever
// the shapes differ.
class Differ {
public:
    Differ(Side& a, Side& b) : a_(a), b_(b) {}

    std::vector<Difference> compare(TypeId x, TypeId y) {
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

private:
    // Anonymous types inside anonymous types are followed this deep; C nests them a few levels,
    // and only a hand-made graph could nest them forever.
    static constexpr unsigned kMaxDescent = 32;

    void note(std::string what, std::optional<std::string> a, std::optional<std::string> b) {
        found_.push_back({Kind::Void, {}, std::move(what), std::move(a), std::move(b)});
    }

    template <typename T> void compareValue(std::string what, const T& a, const T& b) {
        if (a == b)
            return;
        if constexpr (std::is_same_v<T, std::string>)
            note(std::move(what), a, b);
        else
            note(std::move(what), std::to_string(a), std::to_string(b));
    }

    // A reference that differs is a difference of `what`, except between two anonymous types of
    // one kind: those are compared item by item, the items named "<prefix><item>".
    void compareReference(const std::string& what, const std::string& owner,
                          const std::string& prefix, TypeId x, TypeId y, unsigned depth) {
        if (a_.ref(x) == b_.ref(y))
            return;
        if (depth < kMaxDescent && a_.isAnonymousAggregate(x) && b_.isAnonymousAggregate(y) &&
            a_.graph().kind(x) == b_.graph().kind(y)) {
            compareAggregates(owner, prefix, x, y, depth + 1);
            return;
        }
        note(what, a_.spell(x), b_.spell(y));
    }

    void compareAggregates(const std::string& owner, const std::string& prefix, TypeId x, TypeId y,
                           unsigned depth) {
        Kind kind = a_.graph().kind(x);
        if (kind == Kind::Struct || kind == Kind::Union)
            compareMembers(owner, prefix, x, y, depth);
        else
            compareEnumerators(owner, x, y);
    }

    void compareMembers(const std::string& owner, const std::string& prefix, TypeId x, TypeId y,
                        unsigned depth) {
        Composite ca = a_.composite(x);
        Composite cb = b_.composite(y);
        compareValue(detail(owner, "size"), ca.size, cb.size);
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
                note(member, a_.spellMember(m), std::nullopt);
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
                     b_.spellMember(cb.members[j]));
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
            note(detail(owner, "member order"), inA, inB);
        }
    }

    void compareEnumerators(const std::string& owner, TypeId x, TypeId y) {
        Enumeration ea = a_.enumeration(x);
        Enumeration eb = b_.enumeration(y);
        compareValue(detail(owner, "size"), ea.size, eb.size);
        auto signedness = [](bool isSigned) {
            return std::string(isSigned ? "signed" : "unsigned");
        };
        compareValue(detail(owner, "signedness"), signedness(ea.isSigned), signedness(eb.isSigned));
        auto keysA = valueKeys(a_, ea);
        auto keysB = valueKeys(b_, eb);
        auto pairs = pairItems(keysA, keysB);
        std::vector<bool> pairedB(eb.values.size());
        for (size_t i = 0; i < ea.values.size(); ++i) {
            std::string value = detail(owner, "value " + quoted(itemLabel(keysA[i])));
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
                note(detail(owner, "value " + quoted(itemLabel(keysB[j]))), std::nullopt,
                     eb.textOf(eb.values[j]));
        }
    }

    void compareFunctions(TypeId x, TypeId y) {
        const TypeGraph& ga = a_.graph();
        const TypeGraph& gb = b_.graph();
        auto f = ga.getAs<ir::FuncType>(x);
        auto g = gb.getAs<ir::FuncType>(y);
        compareValue("linkage", std::string(funcLinkageName(f.linkage)),
                     std::string(funcLinkageName(g.linkage)));
        Prototype pa = a_.prototype(f.proto);
        Prototype pb = b_.prototype(g.proto);
        if (a_.ref(pa.returnType) != b_.ref(pb.returnType))
            note("return type", a_.spell(pa.returnType), b_.spell(pb.returnType));
        for (size_t i = 0; i < std::max(pa.params.size(), pb.params.size()); ++i) {
            const ir::Param* p = i < pa.params.size() ? &pa.params[i] : nullptr;
            const ir::Param* q = i < pb.params.size() ? &pb.params[i] : nullptr;
            std::string_view nameA = p ? ga.str(p->name) : std::string_view();
            std::string_view nameB = q ? gb.str(q->name) : std::string_view();
            std::string param = "param " + std::to_string(i + 1);
            auto text = [](Side& side, const ir::Param* r) -> std::optional<std::string> {
                if (!r)
                    return std::nullopt;
                return side.spell(r->type, std::string(side.graph().str(r->name)));
            };
            if (!p || !q) {
                note(param, text(a_, p), text(b_, q));
                continue;
            }
            compareValue(param + " name", std::string(nameA), std::string(nameB));
            if (a_.ref(p->type) != b_.ref(q->type))
                note(param + " " + quoted(nameA.empty() ? nameB : nameA) + " type",
                     a_.spell(p->type), b_.spell(q->type));
        }
        auto yesNo = [](bool v) { return std::string(v ? "yes" : "no"); };
        compareValue("varargs", yesNo(pa.varargs), yesNo(pb.varargs));
    }

    void compareDatasecs(TypeId x, TypeId y) {
        const TypeGraph& ga = a_.graph();
        const TypeGraph& gb = b_.graph();
        auto d = ga.getAs<ir::DatasecType>(x);
        auto e = gb.getAs<ir::DatasecType>(y);
        compareValue("size", d.size, e.size);
        auto keysA =
            itemKeys(d.entries.size(), [&](size_t i) { return ga.name(d.entries[i].type); });
        auto keysB =
            itemKeys(e.entries.size(), [&](size_t i) { return gb.name(e.entries[i].type); });
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

    static std::vector<ItemKey> memberKeys(const Side& side, const Composite& c) {
        return itemKeys(c.members.size(),
                        [&](size_t i) { return side.graph().str(c.members[i].name); });
    }
    static std::vector<ItemKey> valueKeys(const Side& side, const Enumeration& e) {
        return itemKeys(e.values.size(),
                        [&](size_t i) { return side.graph().str(e.values[i].name); });
    }

    Side& a_;
    Side& b_;
    std::vector<Difference> found_;
};

// --- matching ---

struct Entry {
    Kind kind;
    std::string name;
    TypeId id;
    uint64_t shape;
};

bool sameKey(const Entry& x, const Entry& y) {
    return x.kind == y.kind && x.name == y.name;
}
bool keyLess(const Entry& x, const Entry& y) {
    return x.kind != y.kind ? x.kind < y.kind : x.name < y.name;
}

// Types that some other type refers to (a DECL_TAG's target aside: tagging is not using).
std::vector<bool> referencedTypes(const TypeGraph& graph) {
    std::vector<bool> used(graph.endId());
    for (TypeId id = graph.firstId(); id < graph.endId(); ++id) {
        std::visit(
            [&](const auto& t) {
                using T = std::decay_t<decltype(t)>;
                if constexpr (requires { t.members; }) {
                    for (const ir::Member& m : t.members)
                        used[m.type] = true;
                } else if constexpr (requires { t.params; }) {
                    used[t.returnType] = true;
                    for (const ir::Param& p : t.params)
                        used[p.type] = true;
                } else if constexpr (requires { t.entries; }) {
                    for (const ir::VarSecInfo& e : t.entries)
                        used[e.type] = true;
                } else if constexpr (T::kKind != Kind::DeclTag) {
                    used[graph.target(id)] = true;
                }
            },
            graph.get(id));
    }
    return used;
}

// An anonymous type nothing refers to (the kernel's many `enum { ... }` of constants, types of
// local variables) is known by its first name: of a value, or of a member, looking into
// anonymous members.
std::string anonymousKey(const Side& side, TypeId id) {
    const TypeGraph& graph = side.graph();
    std::string_view first;
    for (unsigned depth = 0; first.empty() && depth < 8 && side.isAnonymousAggregate(id); ++depth) {
        Kind kind = graph.kind(id);
        if (kind == Kind::Enum || kind == Kind::Enum64) {
            if (Enumeration e = side.enumeration(id); !e.values.empty())
                first = graph.str(e.values.front().name);
            break;
        }
        Composite c = side.composite(id);
        if (c.members.empty())
            break;
        first = graph.str(c.members.front().name);
        id = c.members.front().type;
    }
    return first.empty() ? "(anonymous)" : "(anonymous: " + std::string(first) + ")";
}

std::vector<Entry> matchedEntries(Side& side, const DiffOptions& options) {
    const TypeGraph& graph = side.graph();
    std::vector<bool> referenced = referencedTypes(graph);
    // A FWD next to its own definition adds nothing unless forwards count.
    std::unordered_set<std::string_view> defined[2]; // [isUnion]
    if (!options.strictForwards) {
        for (TypeId id = graph.firstId(); id < graph.endId(); ++id) {
            Kind kind = graph.kind(id);
            if (kind == Kind::Struct || kind == Kind::Union)
                defined[kind == Kind::Union].insert(graph.name(id));
        }
    }
    std::vector<Entry> entries;
    for (TypeId id = graph.firstId(); id < graph.endId(); ++id) {
        Kind kind = graph.kind(id);
        if (!isMatchedKind(kind) || !options.kinds.test(static_cast<size_t>(kind)))
            continue;
        std::string name(graph.name(id));
        if (kind == Kind::DeclTag) {
            name = side.declTagKey(id);
        } else if (name.empty() && isAggregateKind(kind)) {
            if (referenced[id])
                continue; // compared where it is used
            name = anonymousKey(side, id);
        } else if (kind == Kind::Fwd &&
                   defined[graph.getAs<ir::FwdType>(id).isUnion].contains(graph.name(id))) {
            continue;
        }
        entries.push_back({kind, std::move(name), id, side.shape(id)});
    }
    std::stable_sort(entries.begin(), entries.end(), keyLess);
    return entries;
}

class Matcher {
public:
    Matcher(Side& a, Side& b, const DiffOptions& options)
        : a_(a), b_(b), differ_(a, b), options_(options) {}

    DiffReport run(const std::vector<Entry>& as, const std::vector<Entry>& bs) {
        size_t i = 0, j = 0;
        while (i < as.size() || j < bs.size()) {
            const Entry& key =
                j == bs.size() || (i < as.size() && !keyLess(bs[j], as[i])) ? as[i] : bs[j];
            size_t iEnd = i, jEnd = j;
            while (iEnd < as.size() && sameKey(as[iEnd], key))
                ++iEnd;
            while (jEnd < bs.size() && sameKey(bs[jEnd], key))
                ++jEnd;
            matchGroup(std::span(as).subspan(i, iEnd - i), std::span(bs).subspan(j, jEnd - j));
            i = iEnd;
            j = jEnd;
        }
        return std::move(report_);
    }

private:
    // Types of one kind and name: equal shapes pair first (a multiset intersection), the rest
    // pair in graph order and are compared in detail; what is left is on one side only.
    void matchGroup(std::span<const Entry> as, std::span<const Entry> bs) {
        const Entry& first = as.empty() ? bs.front() : as.front();
        KindCounts& counts = report_.counts[static_cast<size_t>(first.kind)];
        std::vector<const Entry*> leftA = byShape(as), leftB = byShape(bs);
        std::vector<const Entry*> restA, restB;
        size_t i = 0, j = 0;
        while (i < leftA.size() && j < leftB.size()) {
            if (leftA[i]->shape == leftB[j]->shape) {
                ++counts.equal;
                ++i, ++j;
            } else if (leftA[i]->shape < leftB[j]->shape) {
                restA.push_back(leftA[i++]);
            } else {
                restB.push_back(leftB[j++]);
            }
        }
        restA.insert(restA.end(), leftA.begin() + i, leftA.end());
        restB.insert(restB.end(), leftB.begin() + j, leftB.end());
        auto inGraphOrder = [](const Entry* x, const Entry* y) { return x->id < y->id; };
        std::sort(restA.begin(), restA.end(), inGraphOrder);
        std::sort(restB.begin(), restB.end(), inGraphOrder);

        size_t paired = std::min(restA.size(), restB.size());
        for (size_t k = 0; k < paired; ++k) {
            std::vector<Difference> found = differ_.compare(restA[k]->id, restB[k]->id);
            if (found.empty()) {
                ++counts.equal;
                continue;
            }
            ++counts.different;
            for (Difference& d : found) {
                d.kind = first.kind;
                d.type = first.name;
                add(std::move(d));
            }
        }
        for (size_t k = paired; k < restA.size(); ++k) {
            ++counts.onlyA;
            add({first.kind, first.name, "", a_.describe(restA[k]->id), std::nullopt});
        }
        for (size_t k = paired; k < restB.size(); ++k) {
            ++counts.onlyB;
            add({first.kind, first.name, "", std::nullopt, b_.describe(restB[k]->id)});
        }
    }

    static std::vector<const Entry*> byShape(std::span<const Entry> entries) {
        std::vector<const Entry*> out;
        for (const Entry& e : entries)
            out.push_back(&e);
        std::sort(out.begin(), out.end(), [](const Entry* x, const Entry* y) {
            return x->shape != y->shape ? x->shape < y->shape : x->id < y->id;
        });
        return out;
    }

    void add(Difference difference) {
        ++report_.differenceCount;
        if (report_.differences.size() < options_.maxListed)
            report_.differences.push_back(std::move(difference));
    }

    Side& a_;
    Side& b_;
    Differ differ_;
    const DiffOptions& options_;
    DiffReport report_;
};

} // namespace

std::span<const Kind> matchedKinds() {
    static constexpr Kind kMatched[] = {Kind::Int,     Kind::Struct,  Kind::Union,   Kind::Enum,
                                        Kind::Fwd,     Kind::Typedef, Kind::Func,    Kind::Var,
                                        Kind::Datasec, Kind::Float,   Kind::DeclTag, Kind::Enum64};
    return kMatched;
}

bool isMatchedKind(Kind kind) {
    auto kinds = matchedKinds();
    return std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
}

bool DiffReport::equal() const {
    return std::all_of(counts.begin(), counts.end(), [](const KindCounts& c) {
        return c.onlyA == 0 && c.onlyB == 0 && c.different == 0;
    });
}

DiffReport compareGraphs(const TypeGraph& a, const TypeGraph& b, const DiffOptions& options) {
    Side sideA(a, options);
    Side sideB(b, options);
    std::vector<Entry> entriesA = matchedEntries(sideA, options);
    std::vector<Entry> entriesB = matchedEntries(sideB, options);
    return Matcher(sideA, sideB, options).run(entriesA, entriesB);
}

} // namespace btforge::compare
