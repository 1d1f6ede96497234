#include "dedup/GraphMerger.h"

#include "BtfTestSupport.h"
#include "dedup/BaseDeclarations.h"
#include "dedup/BaseIndex.h"
#include "dedup/BaseWorld.h"
#include "ir/TypeWalk.h"

#include "btforge/btf/BtfWriter.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <vector>

using namespace btforge;
using namespace btforge::ir;
using dedup::GraphMerger;

namespace {

// Merges units[i] with unitOrder i, in the order `order` gives (input order when empty).
GraphMerger::Result
mergeAll(const std::vector<TypeGraph>& units, std::vector<size_t> order = {},
         GraphMerger::Declarations declarations = GraphMerger::Declarations::ByContext) {
    if (order.empty()) {
        order.resize(units.size());
        std::iota(order.begin(), order.end(), 0);
    }
    GraphMerger merger(nullptr, declarations);
    for (size_t i : order)
        merger.merge(units[i], static_cast<uint32_t>(i));
    return std::move(merger).finish();
}

std::string mergedDump(const std::vector<TypeGraph>& units) {
    return test::dump(mergeAll(units).graph);
}

// Builds unit graphs tersely.
struct Unit {
    TypeGraph g;
    StrId n(std::string_view s) { return g.intern(s); }
    TypeId integer(std::string_view name, uint32_t size = 4) {
        return g.add(IntType{n(name), size, int_encoding::kSigned, 0, uint8_t(size * 8)});
    }
    TypeId ptr(TypeId to) { return g.add(PtrType{kNoName, to}); }
    TypeId fwd(std::string_view name, bool isUnion = false) {
        return g.add(FwdType{n(name), isUnion});
    }
    // A struct whose members are named m0, m1, ... at 64-bit steps.
    TypeId structure(std::string_view name, std::initializer_list<TypeId> types) {
        std::vector<Member> members;
        for (TypeId t : types)
            members.push_back(
                {n("m" + std::to_string(members.size())), t, uint32_t(members.size() * 64), 0});
        return g.add(StructType{n(name), uint32_t(types.size() * 8), members});
    }
    // Reserves the next id for a type added later (cycles).
    TypeId next() const { return g.endId(); }
};

// --- an oracle: a small type language, units built from it, and equivalence by brute force ---

struct Spec {
    Kind kind;
    std::string name;
    uint32_t size = 0;          // INT/STRUCT/UNION size, ARRAY count, FWD union flag
    std::vector<uint32_t> refs; // spec indexes
    std::string detail;         // member and parameter names, when read from a graph
};

std::string labelOf(const Spec& s) {
    return std::to_string(int(s.kind)) + "|" + s.name + "|" + std::to_string(s.size) + "|" +
           std::to_string(s.refs.size()) + "|" + s.detail;
}

bool isDefinitionFor(const Spec& definition, const Spec& fwd) {
    return definition.name == fwd.name &&
           definition.kind == (fwd.size ? Kind::Union : Kind::Struct);
}

// Counts the classes of the brute-force equivalence: start from "same label", drop pairs whose
// references disagree, until nothing changes. A FWD stands for the definitions of its name while
// they are all equivalent (and for itself once they are not): the greatest such fixpoint.
size_t classCount(const std::vector<Spec>& specs) {
    const size_t count = specs.size();
    std::vector<std::vector<bool>> same(count, std::vector<bool>(count));
    for (size_t a = 0; a < count; ++a) {
        for (size_t b = 0; b < count; ++b)
            same[a][b] = labelOf(specs[a]) == labelOf(specs[b]);
    }
    std::vector<std::vector<uint32_t>> definitions(count);
    for (size_t f = 0; f < count; ++f) {
        for (size_t d = 0; specs[f].kind == Kind::Fwd && d < count; ++d) {
            if (isDefinitionFor(specs[d], specs[f]))
                definitions[f].push_back(uint32_t(d));
        }
    }
    auto resolves = [&](uint32_t f) { return !definitions[f].empty(); };
    auto meant = [&](uint32_t ref) { return resolves(ref) ? definitions[ref][0] : ref; };
    for (bool changed = true; changed;) {
        changed = false;
        for (auto& defs : definitions) {
            for (uint32_t d : defs) {
                if (!same[defs[0]][d]) {
                    defs.clear(); // ambiguous for good
                    changed = true;
                    break;
                }
            }
        }
        for (size_t a = 0; a < count; ++a) {
            for (size_t b = 0; b < count; ++b) {
                for (size_t i = 0; same[a][b] && i < specs[a].refs.size(); ++i) {
                    if (!same[meant(specs[a].refs[i])][meant(specs[b].refs[i])]) {
                        same[a][b] = false;
                        changed = true;
                    }
                }
            }
        }
    }
    size_t classes = 0;
    for (size_t a = 0; a < count; ++a) {
        bool first = !resolves(uint32_t(a));
        for (size_t b = 0; b < a && first; ++b)
            first = !(same[a][b] && !resolves(uint32_t(b)));
        classes += first;
    }
    return classes;
}

// Specs of a graph's own types (void is spec 0), appended to `specs`.
void appendSpecs(const TypeGraph& g, std::vector<Spec>& specs) {
    const auto offset = uint32_t(specs.size());
    specs.push_back({Kind::Void, "", 0, {}, ""});
    auto ref = [&](TypeId id) { return offset + id; };
    for (TypeId id = 1; id < g.endId(); ++id) {
        Spec s{g.kind(id), std::string(g.name(id)), 0, {}, ""};
        std::visit(
            [&](const auto& t) {
                if constexpr (requires { t.members; }) {
                    s.size = t.size;
                    for (const Member& m : t.members) {
                        s.refs.push_back(ref(m.type));
                        s.detail += std::string(g.str(m.name)) + ",";
                    }
                } else if constexpr (requires { t.params; }) {
                    s.refs.push_back(ref(t.returnType));
                    for (const Param& p : t.params) {
                        s.refs.push_back(ref(p.type));
                        s.detail += std::string(g.str(p.name)) + ",";
                    }
                } else if constexpr (requires { t.elemType; }) {
                    s.size = t.count;
                    s.refs = {ref(t.elemType), ref(t.indexType)};
                } else if constexpr (requires { t.isUnion; }) {
                    s.size = t.isUnion;
                } else if constexpr (requires { t.type; }) {
                    s.refs.push_back(ref(t.type));
                } else if constexpr (requires { t.size; }) {
                    s.size = t.size;
                }
            },
            g.get(id));
        specs.push_back(s);
    }
}

// No two types of `g` are equivalent (FWDs resolved as above).
bool isMinimal(const TypeGraph& g) {
    std::vector<Spec> specs;
    appendSpecs(g, specs);
    return classCount(specs) == g.endId(); // void included
}

// Random specs with cycles, shared names, and a duplicated region (so the input itself holds
// equivalent copies, as separate compile units do). `names` struct names are in use.
std::vector<Spec> randomSpecs(std::mt19937& rng, size_t count, size_t names, bool acyclic = false) {
    auto pick = [&](size_t n) { return size_t(rng() % n); };
    std::vector<Spec> specs;
    specs.push_back({Kind::Int, "int", 4, {}, ""});
    specs.push_back({Kind::Int, "long", 8, {}, ""});
    while (specs.size() < count) {
        const Kind kinds[] = {Kind::Ptr,   Kind::Typedef, Kind::Const,  Kind::Array,
                              Kind::Union, Kind::Struct,  Kind::Struct, Kind::FuncProto};
        Spec s{kinds[pick(8)], "s" + std::to_string(pick(names)), uint32_t(pick(2) * 8), {}, ""};
        if (s.kind != Kind::Typedef && s.kind != Kind::Union && s.kind != Kind::Struct)
            s.name = "";
        else if (s.kind == Kind::Struct && pick(4) == 0)
            s.name = ""; // anonymous
        if (isReferenceKind(s.kind) || s.kind == Kind::FuncProto)
            s.size = 0;
        size_t refs = s.kind == Kind::Array ? 2 : isReferenceKind(s.kind) ? 1 : 1 + pick(3);
        for (size_t i = 0; i < refs; ++i)
            s.refs.push_back(uint32_t(pick(acyclic ? specs.size() : count)));
        if (s.kind == Kind::Array)
            s.refs[1] = 0; // index type: int
        specs.push_back(s);
    }
    // Copy a window of specs, references inside the window going to the copies.
    const size_t from = 2 + pick(count / 2), length = count / 5;
    for (size_t i = from; i < from + length; ++i) {
        Spec copy = specs[i];
        for (uint32_t& r : copy.refs) {
            if (r >= from && r < from + length)
                r = uint32_t(count + r - from);
        }
        specs.push_back(copy);
    }
    return specs;
}

// A unit: the specs reachable from `roots`, in a shuffled order (so ids and string ids differ
// per unit). Named structs and unions other than roots are only declared (a FWD, not followed)
// with probability `declared`.
TypeGraph randomUnit(const std::vector<Spec>& specs, std::vector<uint32_t> roots, double declared,
                     std::mt19937& rng) {
    std::vector<int> state(specs.size(), 0); // 1: defined, 2: declared
    std::vector<uint32_t> members;
    std::bernoulli_distribution declare(declared);
    for (bool isRoot = true; !roots.empty(); isRoot = false) {
        std::vector<uint32_t> next;
        for (uint32_t s : roots) {
            if (state[s])
                continue;
            const Spec& spec = specs[s];
            const bool composite =
                spec.kind == Kind::Struct || spec.kind == Kind::Union || spec.kind == Kind::Enum;
            state[s] = !isRoot && composite && !spec.name.empty() && declare(rng) ? 2 : 1;
            members.push_back(s);
            if (state[s] == 1)
                next.insert(next.end(), spec.refs.begin(), spec.refs.end());
        }
        roots = std::move(next);
    }
    std::shuffle(members.begin(), members.end(), rng);
    std::vector<TypeId> idOf(specs.size(), kVoidType);
    for (size_t i = 0; i < members.size(); ++i)
        idOf[members[i]] = TypeId(i + 1);
    TypeGraph g;
    for (uint32_t m : members) {
        const Spec& s = specs[m];
        StrId name = g.intern(s.name);
        auto ref = [&](size_t i) { return idOf[s.refs[i]]; };
        auto memberName = [&](size_t i) { return g.intern("f" + std::to_string(i)); };
        if (state[m] == 2 && s.kind == Kind::Enum) {
            g.add(EnumType{name, s.size, {}});
            continue;
        }
        if (state[m] == 2) {
            g.add(FwdType{name, s.kind == Kind::Union});
            continue;
        }
        switch (s.kind) {
        case Kind::Enum: { // values from the spec's index: specs of one name differ
            const Enumerator values[] = {{g.intern("V" + std::to_string(m % 3)), m % 3}};
            g.add(EnumType{name, s.size, values});
            break;
        }
        case Kind::Int:
            g.add(IntType{name, s.size, 0, 0, uint8_t(s.size * 8)});
            break;
        case Kind::Ptr:
            g.add(PtrType{name, ref(0)});
            break;
        case Kind::Typedef:
            g.add(TypedefType{name, ref(0)});
            break;
        case Kind::Const:
            g.add(ConstType{name, ref(0)});
            break;
        case Kind::Array:
            g.add(ArrayType{name, ref(0), ref(1), s.size});
            break;
        case Kind::FuncProto: {
            std::vector<Param> params;
            for (size_t i = 1; i < s.refs.size(); ++i)
                params.push_back({memberName(i), ref(i)});
            g.add(FuncProtoType{name, ref(0), params});
            break;
        }
        default: {
            std::vector<Member> fields;
            for (size_t i = 0; i < s.refs.size(); ++i)
                fields.push_back({memberName(i), ref(i), uint32_t(i * 64), 0});
            if (s.kind == Kind::Union)
                g.add(UnionType{name, s.size, fields});
            else
                g.add(StructType{name, s.size, fields});
        }
        }
    }
    return g;
}

// `g` rebuilt type by type (graphs do not copy).
TypeGraph copyOf(const TypeGraph& g) {
    TypeGraph copy;
    ListScratch lists;
    for (TypeId id = 1; id < g.endId(); ++id)
        copy.add(rewrite(
            g, g.get(id), copy, [](TypeId ref) { return ref; }, lists));
    return copy;
}

// Merges units over `base` as the DWARF pipeline does: each unit's declarations resolved against
// the base first, enum declarations too over a lazy base, and everything merged again without
// those finish() says an own type redefined. `rounds`: how many merges that took.
GraphMerger::Result mergeOverBase(const std::shared_ptr<const TypeGraph>& base,
                                  const std::vector<TypeGraph>& units, std::vector<size_t> order,
                                  bool lazy, int* rounds = nullptr) {
    dedup::EarlyResolution early;
    for (int round = 1;; ++round) {
        GraphMerger merger(base, GraphMerger::Declarations::ByContext, lazy);
        const dedup::BaseDeclarations declarations(*base, *merger.baseIndex(), early.structs);
        for (size_t i : order) {
            TypeGraph unit = copyOf(units[i]);
            std::vector<TypeId> preMapped(unit.ownCount(), dedup::kNotPreMapped), placeholders;
            declarations.resolveDeclarations(unit, preMapped, placeholders);
            if (early.enums && merger.lazyBase())
                declarations.resolveEnumDeclarations(unit, preMapped, placeholders);
            declarations.referToDeclarations(unit, preMapped, placeholders);
            merger.merge(merger.prepare(unit, placeholders), uint32_t(i), preMapped);
        }
        GraphMerger::Result result = std::move(merger).finish();
        if (!early.narrow(result)) {
            if (rounds)
                *rounds = round;
            return result;
        }
        REQUIRE(round < 8);
    }
}

// randomSpecs with named enums (four names, each spec's values its own) that some types refer
// to; `sparse`: a graph without cycles, where one type in 64 refers to an enum.
std::vector<Spec> randomSpecsWithEnums(std::mt19937& rng, size_t count, size_t names, bool sparse) {
    std::vector<Spec> specs = randomSpecs(rng, count, names, sparse);
    const unsigned oneIn = sparse ? 64 : 4;
    const size_t first = specs.size();
    for (size_t i = 0; i < 8; ++i)
        specs.push_back({Kind::Enum, "e" + std::to_string(rng() % 4), 4, {}, ""});
    for (size_t i = 2; i < first; ++i) {
        if (specs[i].kind != Kind::Array && !specs[i].refs.empty() && rng() % oneIn == 0)
            specs[i].refs[0] = uint32_t(first + rng() % 8);
    }
    return specs;
}

} // namespace

TEST_CASE("GraphMerger: a lazy base gives what the whole base gives") {
    // Bases merged from random units (minimal ones, and some with a cycle of anonymous types,
    // which the lazy reading leaves to the whole one), units over them with declared structs,
    // unions and enums, some defining an enum the base has otherwise: both readings write the
    // same BTF, in any merge order. Where enums are used rarely, a lazy base's finish() reads
    // the few base types that reach one (GraphMerger::State::compactWorld).
    size_t lazyBases = 0;
    for (unsigned seed = 1; seed <= 96; ++seed) {
        CAPTURE(seed);
        std::mt19937 rng(seed);
        const std::vector<Spec> specs =
            randomSpecsWithEnums(rng, 50 + seed % 24 * 6, 3 + seed % 5, seed % 2);
        auto someUnits = [&](size_t count, double declared) {
            std::vector<TypeGraph> units;
            for (size_t i = 0; i < count; ++i) {
                std::vector<uint32_t> roots;
                for (size_t r = 0, n = 1 + rng() % 3; r < n; ++r)
                    roots.push_back(uint32_t(rng() % specs.size()));
                units.push_back(randomUnit(specs, roots, declared, rng));
            }
            return units;
        };
        auto base = std::make_shared<const TypeGraph>(mergeAll(someUnits(6, 0.1)).graph);
        {
            dedup::BaseWorld world(*base);
            lazyBases += dedup::BaseIndex(*base, world).minimal();
        }
        const std::vector<TypeGraph> units = someUnits(6, 0.4);
        std::vector<size_t> order(units.size());
        std::iota(order.begin(), order.end(), 0);
        const test::Bytes whole = test::written(mergeOverBase(base, units, order, false).graph);
        for (int shuffle = 0; shuffle < 3; ++shuffle) {
            CHECK(test::written(mergeOverBase(base, units, order, true).graph) == whole);
            std::shuffle(order.begin(), order.end(), rng);
        }
    }
    CHECK(lazyBases >= 24); // most bases take the lazy reading
}

TEST_CASE("GraphMerger: an enum declaration resolved early, then defined otherwise") {
    // The base defines enum e; one unit only declares it (resolved early to the base's), another
    // defines its own e: finish() asks for the merge again, which keeps the declaration apart.
    Unit b;
    const Enumerator baseValues[] = {{b.n("A"), 1}};
    const TypeId baseEnum = b.g.add(EnumType{b.n("e"), 4, baseValues});
    b.ptr(baseEnum);
    auto base = std::make_shared<const TypeGraph>(std::move(b.g));
    std::vector<TypeGraph> units;
    Unit declaring;
    declaring.structure("user",
                        {declaring.ptr(declaring.g.add(EnumType{declaring.n("e"), 4, {}}))});
    units.push_back(std::move(declaring.g));
    const TypeGraph declaringOnly = copyOf(units[0]);
    const std::vector<size_t> one{0}, both{0, 1};
    // Alone, the declaration is the base's enum: only struct user is new.
    const GraphMerger::Result alone = mergeOverBase(base, units, one, true);
    CHECK(alone.graph.ownCount() == 1);
    CHECK(test::written(alone.graph) ==
          test::written(mergeOverBase(base, units, one, false).graph));
    Unit defining;
    const Enumerator ownValues[] = {{defining.n("B"), 2}};
    defining.g.add(EnumType{defining.n("e"), 4, ownValues});
    units.push_back(std::move(defining.g));
    {
        GraphMerger merger(base);
        const dedup::BaseDeclarations declarations(*base, *merger.baseIndex());
        for (size_t i : both) {
            TypeGraph unit = copyOf(units[i]);
            std::vector<TypeId> preMapped(unit.ownCount(), dedup::kNotPreMapped), placeholders;
            declarations.resolveEnumDeclarations(unit, preMapped, placeholders);
            merger.merge(merger.prepare(unit, placeholders), uint32_t(i), preMapped);
        }
        CHECK(std::move(merger).finish().earlyEnumRedefined);
    }
    // Merged again: user, its pointer, the declaration, and the unit's own enum e.
    const GraphMerger::Result again = mergeOverBase(base, units, both, true);
    CHECK(again.graph.ownCount() == 4);
    CHECK(test::written(again.graph) ==
          test::written(mergeOverBase(base, units, both, false).graph));
}

TEST_CASE("GraphMerger: a struct declaration resolved early, then defined otherwise") {
    // The base defines struct gpio and a struct board using it; the module (amdgpu.ko) defines
    // its own struct gpio and a struct link using it. A unit that only declares gpio resolves it
    // early to the base's, which would split the module's struct link in two: finish() asks for
    // the merge again, where the declaration is paired by context as libbpf pairs it. In link,
    // with the module's gpio; in board, with the base's.
    Unit b;
    const TypeId baseGpio = b.structure("gpio", {b.integer("int")});
    b.structure("board", {b.ptr(baseGpio)});
    auto base = std::make_shared<const TypeGraph>(std::move(b.g));
    auto declaring = [](std::string_view user) {
        Unit u;
        u.structure(user, {u.ptr(u.fwd("gpio"))});
        return std::move(u.g);
    };
    Unit defining;
    const TypeId own = defining.structure(
        "gpio", {defining.integer("long int", 8), defining.integer("long int", 8)});
    defining.structure("link", {defining.ptr(own)});
    auto named = [&](const TypeGraph& g, std::string_view name) {
        int count = 0;
        for (TypeId id = base->endId(); id < g.endId(); ++id)
            count += g.name(id) == name;
        return count;
    };
    for (bool lazy : {false, true}) {
        CAPTURE(lazy);
        std::vector<TypeGraph> units;
        units.push_back(declaring("link"));
        units.push_back(declaring("board"));
        units.push_back(copyOf(defining.g));
        int rounds = 0;
        // Without the module's gpio, the declarations are the base's: only struct link is new.
        const GraphMerger::Result declared = mergeOverBase(base, units, {1, 0}, lazy, &rounds);
        CHECK(rounds == 1);
        CHECK(declared.graph.ownCount() == 1);
        for (std::vector<size_t> order : {std::vector<size_t>{0, 2}, {2, 0}, {1, 2}, {2, 1}}) {
            CAPTURE(order);
            const GraphMerger::Result all = mergeOverBase(base, units, order, lazy, &rounds);
            CHECK(rounds == 2);
            // The module's gpio (its long int), link and a pointer to gpio; board is the base's.
            CHECK(all.graph.ownCount() == 4);
            CHECK(named(all.graph, "link") == 1);
            CHECK(named(all.graph, "gpio") == 1);
            CHECK(named(all.graph, "board") == 0);
        }
    }
}

// What `ask` says of the BaseIndex of `g` as a base.
template <typename Ask> auto askIndex(TypeGraph g, Ask&& ask) {
    const TypeGraph base = std::move(g);
    dedup::BaseWorld world(base);
    return ask(dedup::BaseIndex(base, world));
}

TEST_CASE("BaseIndex: a base with equivalent types is not minimal") {
    auto minimal = [](TypeGraph g) {
        return askIndex(std::move(g),
                        [](const dedup::BaseIndex& index) { return index.minimal(); });
    };
    Unit distinct;
    const TypeId integer = distinct.integer("int");
    const TypeId toS = distinct.ptr(distinct.next() + 1);
    distinct.structure("s", {toS, integer});
    CHECK(minimal(std::move(distinct.g)));
    // The same pointer twice: a shape duplicate.
    Unit pointers;
    const TypeId i = pointers.integer("int");
    pointers.ptr(i);
    pointers.ptr(i);
    CHECK(!minimal(std::move(pointers.g)));
    // Two copies of one self-referring struct: equivalent, same name.
    Unit copies;
    for (int copy = 0; copy < 2; ++copy) {
        const TypeId toList = copies.ptr(copies.next() + 1);
        copies.structure("list", {toList});
    }
    CHECK(!minimal(std::move(copies.g)));
    // A cycle through anonymous types only: proved nothing about, so not taken as minimal.
    Unit anonymous;
    const TypeId ptr = anonymous.next();
    anonymous.ptr(ptr + 1);
    anonymous.structure("", {ptr});
    CHECK(!minimal(std::move(anonymous.g)));
    // The same cycle, the struct first: the search starts from whichever type refers upwards.
    Unit structFirst;
    const TypeId anonymousStruct = structFirst.next();
    structFirst.structure("", {anonymousStruct + 1});
    structFirst.ptr(anonymousStruct);
    CHECK(!minimal(std::move(structFirst.g)));
    // Three anonymous types round a cycle, one reference upwards.
    Unit three;
    const TypeId first = three.next();
    three.ptr(first + 2);
    three.g.add(ConstType{kNoName, first});
    three.structure("", {first + 1});
    CHECK(!minimal(std::move(three.g)));
}

TEST_CASE("GraphMerger: a base whose names point inside other texts") {
    // BTF lets a name offset point anywhere in the strings: at the NUL ending a text (no name) or
    // inside one (a writer may share a text's tail). Read as the texts from their start, both
    // bases below are minimal, and a unit's types of their shapes are found among theirs.
    test::RawBtf raw;
    const uint32_t intName = raw.str("int"), abcpair = raw.str("abcpair"), m0 = raw.str("m0");
    raw.type(intName, Kind::Int, 0, false, 4, {uint32_t{int_encoding::kSigned} << 24 | 32});
    const TypeId anonymousStruct = 2, pair = 4;
    raw.type(abcpair + 7, Kind::Struct, 1, false, 8, {m0, 1, 0}); // at the NUL of "abcpair"
    raw.type(ir::kNoName, Kind::Ptr, 0, false, anonymousStruct);
    raw.type(abcpair + 3, Kind::Struct, 1, false, 8, {m0, 1, 0}); // "pair", inside "abcpair"
    raw.type(ir::kNoName, Kind::Ptr, 0, false, pair);
    auto read = test::read(raw.bytes());
    REQUIRE(read);
    auto base = std::make_shared<const TypeGraph>(std::move(*read));
    CHECK(base->nameId(anonymousStruct) == kNoName);
    CHECK(base->name(pair) == "pair");
    {
        dedup::BaseWorld world(*base);
        CHECK(dedup::BaseIndex(*base, world).minimal());
    }
    Unit u;
    const TypeId i = u.integer("int");
    u.ptr(u.structure("", {i}));
    u.ptr(u.structure("pair", {i}));
    std::vector<TypeGraph> units;
    units.push_back(std::move(u.g));
    const std::vector<size_t> one{0};
    for (bool lazy : {true, false}) {
        CAPTURE(lazy);
        CHECK(mergeOverBase(base, units, one, lazy).graph.ownCount() == 0);
    }
}

TEST_CASE("BaseIndex: whether the base nests arrays, which units must follow") {
    auto nested = [](TypeGraph g) {
        return askIndex(std::move(g),
                        [](const dedup::BaseIndex& index) { return index.nestedArrays(); });
    };
    Unit flat;
    const TypeId i = flat.integer("int");
    flat.g.add(ArrayType{kNoName, i, i, 12});
    CHECK_FALSE(nested(std::move(flat.g)));
    Unit twoLevels; // int m[3][4]: an ARRAY of ARRAY, not the first ARRAY met
    const TypeId j = twoLevels.integer("int");
    const TypeId inner = twoLevels.g.add(ArrayType{kNoName, j, j, 4});
    twoLevels.structure("s", {j});
    twoLevels.g.add(ArrayType{kNoName, inner, j, 3});
    CHECK(nested(std::move(twoLevels.g)));
}

TEST_CASE("GraphMerger: identical units collapse, pointer cycles included") {
    std::vector<TypeGraph> units;
    for (int variant = 0; variant < 2; ++variant) {
        Unit u;
        // struct node { struct node *m0; int m1; }, ids in a different order per unit
        TypeId i = variant ? u.integer("int") : kVoidType;
        TypeId node = u.next();
        u.structure("node", {node + 1, variant ? i : node + 2});
        u.ptr(node);
        if (!variant)
            u.integer("int");
        units.push_back(std::move(u.g));
    }
    GraphMerger::Result result = mergeAll(units);
    CHECK(result.graph.ownCount() == 3);
    CHECK(test::dump(result.graph) == "[1] STRUCT 'node' size=16 kflag=0 'm0':2@0/0 'm1':3@64/0\n"
                                      "[2] PTR '' type=1 kflag=0\n"
                                      "[3] INT 'int' size=4 enc=1 off=0 bits=32\n");
}

TEST_CASE("GraphMerger: a unit's own duplicates collapse, also around cycles") {
    Unit u;
    TypeId a = u.next();
    u.structure("list", {a + 1});
    u.ptr(a + 2); // points at the copy: still equivalent
    u.structure("list", {a + 3});
    u.ptr(a);
    std::vector<TypeGraph> units;
    units.push_back(std::move(u.g));
    CHECK(mergeAll(units).graph.ownCount() == 2);
}

TEST_CASE("GraphMerger: same-named structs differing in one member type stay apart") {
    std::vector<TypeGraph> units;
    for (const char* type : {"int", "long"}) {
        Unit u;
        TypeId t = u.integer(type);
        u.ptr(u.structure("s", {t}));
        units.push_back(std::move(u.g));
    }
    const GraphMerger::Result result = mergeAll(units);
    CHECK(result.graph.ownCount() == 6);
    CHECK(isMinimal(result.graph));
}

TEST_CASE("GraphMerger: FWD resolution") {
    auto full = [](const char* member) {
        Unit u;
        u.ptr(u.structure("s", {u.integer(member)}));
        return std::move(u.g);
    };
    auto declared = [](bool isUnion) {
        Unit u;
        u.g.add(FuncProtoType{kNoName, kVoidType,
                              std::vector<Param>{{kNoName, u.ptr(u.fwd("s", isUnion))}}});
        return std::move(u.g);
    };
    SUBCASE("the only struct of its name, declared in another unit") {
        std::vector<TypeGraph> units;
        units.push_back(declared(false));
        units.push_back(full("int"));
        // the FWD's pointer becomes the struct's, and the proto points at it
        // (the struct takes the FWD's place in the order)
        CHECK(mergedDump(units) == "[1] STRUCT 's' size=8 kflag=0 'm0':4@0/0\n"
                                   "[2] PTR '' type=1 kflag=0\n"
                                   "[3] FUNC_PROTO '' ret=0 '':2\n"
                                   "[4] INT 'int' size=4 enc=1 off=0 bits=32\n");
    }
    SUBCASE("two different structs of that name: the FWD stays") {
        std::vector<TypeGraph> units;
        units.push_back(full("int"));
        units.push_back(full("long"));
        units.push_back(declared(false));
        CHECK(mergeAll(units).graph.ownCount() == 6 + 3);
    }
    SUBCASE("a union FWD does not become a struct") {
        std::vector<TypeGraph> units;
        units.push_back(full("int"));
        units.push_back(declared(true));
        CHECK(mergeAll(units).graph.ownCount() == 3 + 3);
    }
    SUBCASE("resolving can make another name unique") {
        // b is unique: a FWD b resolves, which makes the two 'a' one, which resolves FWD a.
        std::vector<TypeGraph> units;
        Unit one;
        TypeId b = one.structure("b", {one.integer("int")});
        one.structure("a", {one.ptr(b)});
        units.push_back(std::move(one.g));
        Unit two;
        two.structure("a", {two.ptr(two.fwd("b"))});
        units.push_back(std::move(two.g));
        Unit three;
        three.ptr(three.fwd("a"));
        units.push_back(std::move(three.g));
        const GraphMerger::Result result = mergeAll(units);
        CHECK(result.graph.ownCount() == 5); // int, b, b*, a, a*
        CHECK(isMinimal(result.graph));
    }
    SUBCASE("declarations on a cycle resolve together") {
        // Each name has two definitions until the other name resolves.
        std::vector<TypeGraph> units;
        Unit one;
        TypeId a = one.next();
        one.structure("a", {a + 1});
        one.ptr(a + 2);
        one.structure("b", {a + 3});
        one.ptr(a);
        units.push_back(std::move(one.g));
        Unit two;
        two.structure("a", {two.ptr(two.fwd("b"))});
        units.push_back(std::move(two.g));
        Unit three;
        three.structure("b", {three.ptr(three.fwd("a"))});
        units.push_back(std::move(three.g));
        CHECK(mergeAll(units).graph.ownCount() == 4);
    }
}

TEST_CASE("GraphMerger: anonymous structs nested in named ones") {
    std::vector<TypeGraph> units;
    for (const char* member : {"int", "int", "long"}) {
        Unit u;
        TypeId anon = u.structure("", {u.integer(member)});
        u.structure("outer", {anon, u.integer("char", 1)});
        units.push_back(std::move(u.g));
    }
    const GraphMerger::Result result = mergeAll(units);
    // int, anon{int}, char, outer; long, anon{long}, outer
    CHECK(result.graph.ownCount() == 7);
    CHECK(isMinimal(result.graph));
}

TEST_CASE("GraphMerger: an enum declaration becomes its only definition of that size") {
    auto definition = [](bool wide) {
        Unit u;
        const Enumerator values[] = {{u.n("ONE"), 1}};
        if (wide)
            u.g.add(Enum64Type{u.n("e"), 8, values});
        else
            u.g.add(EnumType{u.n("e"), 4, values});
        return std::move(u.g);
    };
    auto declaration = [](uint32_t size) {
        Unit u;
        u.ptr(u.g.add(EnumType{u.n("e"), size, {}}));
        return std::move(u.g);
    };
    std::vector<TypeGraph> units;
    units.push_back(declaration(4));
    units.push_back(definition(false));
    units.push_back(declaration(8));
    CHECK(mergedDump(units) == "[1] ENUM 'e' size=4 signed=0 'ONE'=1\n"
                               "[2] PTR '' type=1 kflag=0\n"
                               "[3] ENUM 'e' size=8 signed=0\n"
                               "[4] PTR '' type=3 kflag=0\n");
    units.push_back(definition(true)); // now the 8-byte declaration has its ENUM64
    CHECK(mergeAll(units).graph.ownCount() == 4);
}

TEST_CASE("GraphMerger: types of the base map to the smallest equivalent base id") {
    Unit b;
    TypeId baseInt = b.integer("int");
    TypeId baseStruct = b.structure("s", {baseInt});
    TypeId basePtr = b.ptr(baseStruct);
    b.integer("int"); // a duplicate in the base: never chosen
    auto base = std::make_shared<const TypeGraph>(std::move(b.g));

    Unit u;
    TypeId i = u.integer("int");
    TypeId s = u.structure("s", {i});
    TypeId p = u.ptr(s);
    TypeId t = u.structure("t", {p, i});
    GraphMerger merger(base);
    std::vector<TypeId> provisional = merger.merge(u.g, 0);
    CHECK(provisional[i - 1] == baseInt);
    CHECK(provisional[s - 1] == baseStruct);
    CHECK(provisional[p - 1] == basePtr);
    CHECK(provisional[t - 1] == 5);
    GraphMerger::Result result = std::move(merger).finish();
    REQUIRE(result.graph.ownCount() == 1);
    CHECK(result.graph.firstId() == 5);
    CHECK(result.finalIds(provisional[t - 1]) == 5);
    CHECK(result.finalIds(basePtr) == basePtr);
    const auto st = result.graph.getAs<StructType>(5);
    CHECK(st.members[0].type == basePtr);
    CHECK(st.members[1].type == baseInt);
    CHECK(!btf::writeBtf(result.graph)->empty());
}

TEST_CASE("GraphMerger: a FWD resolves to a base struct, joining a base type") {
    Unit b;
    TypeId baseStruct = b.structure("s", {b.integer("int")});
    TypeId basePtr = b.ptr(baseStruct);
    auto base = std::make_shared<const TypeGraph>(std::move(b.g));
    Unit u;
    TypeId p = u.ptr(u.fwd("s"));
    GraphMerger merger(base);
    std::vector<TypeId> provisional = merger.merge(u.g, 0);
    GraphMerger::Result result = std::move(merger).finish();
    CHECK(result.graph.ownCount() == 0);
    CHECK(result.finalIds(provisional[p - 1]) == basePtr);
}

TEST_CASE("GraphMerger: placeholders stand for types merged earlier") {
    auto whole = [] {
        Unit u;
        TypeId s = u.structure("s", {u.integer("int")});
        u.structure("t", {u.ptr(s)});
        return std::move(u.g);
    };
    Unit first;
    TypeId s = first.structure("s", {first.integer("int")});
    // Refers to `s` of the first unit through a placeholder.
    Unit second;
    TypeId placeholder = second.fwd("");
    TypeId t = second.structure("t", {second.ptr(placeholder)});
    TypeGraph third = whole();

    for (bool thirdFirst : {false, true}) {
        GraphMerger merger;
        if (thirdFirst)
            merger.merge(third, 2);
        std::vector<TypeId> firstIds = merger.merge(first.g, 0);
        std::vector<TypeId> preMapped(second.g.ownCount(), dedup::kNotPreMapped);
        preMapped[placeholder - 1] = firstIds[s - 1];
        dedup::PreparedUnit prepared = merger.prepare(second.g, {&placeholder, 1});
        std::vector<TypeId> secondIds = merger.merge(std::move(prepared), 1, preMapped);
        CHECK(secondIds[placeholder - 1] == firstIds[s - 1]);
        if (!thirdFirst)
            merger.merge(third, 2);
        const GraphMerger::Result result = std::move(merger).finish();
        CHECK(result.graph.ownCount() == 4); // int, s, s*, t
        CHECK(result.finalIds(secondIds[t - 1]) == 4);
    }
}

TEST_CASE("GraphMerger: a placeholder and a local copy of its target are one type") {
    Unit first;
    TypeId s = first.structure("s", {first.integer("int")});
    Unit second;
    TypeId placeholder = second.fwd("");
    TypeId copy = second.structure("s", {second.integer("int")});
    TypeId viaPlaceholder = second.structure("t", {second.ptr(placeholder)});
    TypeId viaCopy = second.structure("t", {second.ptr(copy)});
    GraphMerger merger;
    std::vector<TypeId> firstIds = merger.merge(first.g, 0);
    std::vector<TypeId> preMapped(second.g.ownCount(), dedup::kNotPreMapped);
    preMapped[placeholder - 1] = firstIds[s - 1];
    std::vector<TypeId> secondIds = merger.merge(second.g, 1, preMapped);
    CHECK(secondIds[copy - 1] == firstIds[s - 1]);
    // Merged apart or not (a merger without a base appends what its exact hashes do not find),
    // they end as one type.
    const GraphMerger::Result result = std::move(merger).finish();
    CHECK(result.finalIds(secondIds[viaPlaceholder - 1]) ==
          result.finalIds(secondIds[viaCopy - 1]));
    CHECK(result.graph.ownCount() == 4); // int, s, s*, t
}

TEST_CASE("GraphMerger: a placeholder may stand for a base type") {
    Unit b;
    TypeId baseStruct = b.structure("s", {b.integer("int")});
    auto base = std::make_shared<const TypeGraph>(std::move(b.g));
    auto unitWith = [](bool viaPlaceholder) {
        Unit u;
        TypeId target = viaPlaceholder ? u.fwd("") : u.structure("s", {u.integer("int")});
        u.ptr(target);
        return std::pair{std::move(u.g), target};
    };
    auto [withPlaceholder, placeholder] = unitWith(true);
    auto [withStruct, target] = unitWith(false);
    GraphMerger merger(base);
    std::vector<TypeId> preMapped(withPlaceholder.ownCount(), dedup::kNotPreMapped);
    preMapped[placeholder - 1] = baseStruct;
    std::vector<TypeId> viaPlaceholder = merger.merge(withPlaceholder, 0, preMapped);
    std::vector<TypeId> viaStruct = merger.merge(withStruct, 1);
    CHECK(viaStruct[target - 1] == baseStruct);
    CHECK(viaStruct.back() == viaPlaceholder.back()); // the pointers are one type
    CHECK(std::move(merger).finish().graph.ownCount() == 1);
}

TEST_CASE("GraphMerger: a declaration of a name with two definitions joins the one its user's "
          "twin uses") {
    // Most units see `struct bus;` in struct parser; the unit defining its own struct bus sees
    // that one; another unit has an unrelated struct bus. libbpf's dedup makes one parser.
    auto unitWith = [](int bus) {
        Unit u;
        if (bus == 0)
            u.structure("parser", {u.ptr(u.fwd("bus"))});
        else if (bus == 1)
            u.structure("parser", {u.ptr(u.structure("bus", {u.integer("int")}))});
        else
            u.structure("other", {u.ptr(u.structure("bus", {u.integer("long", 8)}))});
        return std::move(u.g);
    };
    std::vector<TypeGraph> units;
    for (int bus : {0, 1, 2})
        units.push_back(unitWith(bus));
    auto count = [](const TypeGraph& g, std::string_view name) {
        size_t n = 0;
        for (TypeId id = g.firstId(); id < g.endId(); ++id)
            n += g.name(id) == name;
        return n;
    };
    const TypeGraph byContext = mergeAll(units).graph;
    CHECK(count(byContext, "parser") == 1);
    CHECK(count(byContext, "bus") == 2); // both definitions, no FWD
    const TypeGraph byName = mergeAll(units, {}, GraphMerger::Declarations::ByName).graph;
    CHECK(count(byName, "parser") == 2);
    CHECK(count(byName, "bus") == 3);
    // When types using the two definitions both differ from it only there, the declaration
    // means the definition met first, as in libbpf's dedup (which compares a type with those it
    // kept before, in order): one parser for the declaration and the first struct bus, one for
    // the second (tests/integration/dedup-declarations.sh checks this against libbpf itself).
    auto ambiguousUnit = [&](int bus) {
        if (bus < 2)
            return unitWith(bus);
        Unit u;
        u.structure("parser", {u.ptr(u.structure("bus", {u.integer("long", 8)}))});
        return std::move(u.g);
    };
    for (const std::vector<int>& order : {std::vector<int>{0, 1, 2}, {2, 1, 0}, {1, 0, 2}}) {
        std::vector<TypeGraph> inOrder;
        for (int bus : order)
            inOrder.push_back(ambiguousUnit(bus));
        const TypeGraph ambiguous = mergeAll(inOrder).graph;
        CHECK(count(ambiguous, "parser") == 2);
        CHECK(count(ambiguous, "bus") == 2);
    }
}

TEST_CASE("GraphMerger: a declaration's two definitions alike deeper than hashes see") {
    // As above, but the two struct bus differ only 14 references deep (past kFinishRounds),
    // where their hashes no longer tell them apart: the declaration still joins the one its
    // user's twin uses, as libbpf's walk would have it.
    auto bus = [](Unit& u, const char* leaf) {
        TypeId t = u.integer(leaf, leaf == std::string_view("int") ? 4 : 8);
        for (int i = 0; i < 12; ++i)
            t = u.g.add(TypedefType{u.n("t" + std::to_string(i)), t});
        return u.structure("bus", {u.ptr(t)});
    };
    std::vector<TypeGraph> units;
    for (int variant : {0, 1, 2}) {
        Unit u;
        if (variant == 0)
            u.structure("parser", {u.ptr(u.fwd("bus"))});
        else if (variant == 1)
            u.structure("parser", {u.ptr(bus(u, "int"))});
        else
            u.structure("other", {u.ptr(bus(u, "long"))});
        units.push_back(std::move(u.g));
    }
    for (const std::vector<size_t>& order : {std::vector<size_t>{0, 1, 2}, {2, 1, 0}}) {
        const TypeGraph merged = mergeAll(units, order).graph;
        size_t parsers = 0, buses = 0, declarations = 0;
        for (TypeId id = merged.firstId(); id < merged.endId(); ++id) {
            parsers += merged.name(id) == "parser";
            buses += merged.name(id) == "bus";
            declarations += merged.kind(id) == Kind::Fwd;
        }
        CHECK(parsers == 1);
        CHECK(buses == 2);
        CHECK(declarations == 0);
    }
}

TEST_CASE("GraphMerger: one declaration standing in for two definitions, in two worlds") {
    // glibc's pattern: struct file has a struct lock in one world and a void one in the other;
    // each world defines struct jump (which points back to its file) in one unit and only
    // declares it in another, inside one struct wide all declaring units share. libbpf's dedup
    // compares the declaration as equal to either definition, so each declaring unit's file joins
    // its own world's: two of each struct. Pairing the declaration with one definition made the
    // other world's declaring unit a third file, its lock with the first world's types behind it
    // (tests/integration/dedup-declaration-worlds.sh checks this against libbpf itself).
    auto unit = [](bool internal, bool definesJump) {
        Unit u;
        const TypeId lock = internal ? u.structure("lock", {u.integer("int")}) : kVoidType;
        const TypeId first = u.next();
        const TypeId lockPtr = u.ptr(lock);
        const TypeId widePtr = u.ptr(first + 6);
        const TypeId file = u.structure("file", {lockPtr, widePtr});
        const TypeId filePtr = u.ptr(file);
        const TypeId jump = definesJump ? u.structure("jump", {filePtr}) : u.fwd("jump");
        u.structure("wide", {u.ptr(jump)}); // its pointer first + 5, itself first + 6
        return std::move(u.g);
    };
    auto count = [](const TypeGraph& g, std::string_view name) {
        size_t n = 0;
        for (TypeId id = g.firstId(); id < g.endId(); ++id)
            n += g.name(id) == name;
        return n;
    };
    // Definitions first, as glibc's libio units come.
    std::vector<TypeGraph> units;
    units.push_back(unit(true, true));
    units.push_back(unit(false, true));
    units.push_back(unit(true, false));
    units.push_back(unit(false, false));
    for (const std::vector<size_t>& order : {std::vector<size_t>{0, 1, 2, 3}, {3, 2, 1, 0}}) {
        const TypeGraph merged = mergeAll(units, order).graph;
        CHECK(count(merged, "file") == 2);
        CHECK(count(merged, "wide") == 2);
        CHECK(count(merged, "jump") == 2);
        CHECK(isMinimal(merged));
    }
}

TEST_CASE("GraphMerger: pairing declarations by context costs a bounded number of steps") {
    // Hundreds of variants of one struct, alike down long chains (as a kernel's Rust units make
    // of C structs), are compared pairwise while a declaration of a name with two definitions
    // waits to be paired: 300 variants, 1,000 steps a pair, more than the whole budget. The
    // merge ends, says it gave up, and still keeps every variant apart.
    std::vector<TypeGraph> units;
    for (int variant : {0, 1, 2}) {
        Unit u;
        if (variant == 0)
            u.structure("parser", {u.ptr(u.fwd("bus"))});
        else
            u.structure(variant == 1 ? "parser" : "other",
                        {u.ptr(u.structure("bus", {u.integer(variant == 1 ? "int" : "long")}))});
        units.push_back(std::move(u.g));
    }
    CHECK_FALSE(mergeAll(units).declarationsCutShort);
    for (int k = 0; k < 300; ++k) {
        Unit u;
        TypeId t = u.integer("leaf" + std::to_string(k));
        for (int i = 0; i < 1000; ++i)
            t = u.g.add(TypedefType{u.n("t"), t});
        u.structure("holder", {u.ptr(t)});
        units.push_back(std::move(u.g));
    }
    const GraphMerger::Result merged = mergeAll(units);
    CHECK(merged.declarationsCutShort);
    size_t holders = 0;
    for (TypeId id = merged.graph.firstId(); id < merged.graph.endId(); ++id)
        holders += merged.graph.name(id) == "holder";
    CHECK(holders == 300);
}

TEST_CASE("GraphMerger: random units give the brute-force quotient, in any merge order") {
    for (double declared : {0.0, 0.3}) {
        for (unsigned seed = 1; seed <= 10; ++seed) {
            CAPTURE(declared);
            CAPTURE(seed);
            std::mt19937 rng(seed);
            const std::vector<Spec> specs = randomSpecs(rng, 60 + seed * 8, 4 + seed);
            std::vector<TypeGraph> units;
            std::vector<Spec> all; // every unit's types, side by side
            for (int i = 0; i < 10; ++i) {
                std::vector<uint32_t> roots;
                for (size_t r = 0, n = 1 + rng() % 3; r < n; ++r)
                    roots.push_back(uint32_t(rng() % specs.size()));
                units.push_back(randomUnit(specs, roots, declared, rng));
                appendSpecs(units.back(), all);
            }
            std::vector<size_t> order(units.size());
            std::iota(order.begin(), order.end(), 0);
            // The oracle resolves declarations by name; by context (libbpf's way) merges more,
            // never less, and is as independent of the merge order.
            const auto byName = GraphMerger::Declarations::ByName;
            const GraphMerger::Result reference = mergeAll(units, order, byName);
            CHECK(reference.graph.ownCount() + 1 == classCount(all)); // + void
            CHECK(isMinimal(reference.graph));
            const test::Bytes bytes = test::written(reference.graph);
            const GraphMerger::Result byContext = mergeAll(units, order);
            CHECK(byContext.graph.ownCount() <= reference.graph.ownCount());
            const test::Bytes contextBytes = test::written(byContext.graph);
            for (int shuffle = 0; shuffle < 3; ++shuffle) {
                std::shuffle(order.begin(), order.end(), rng);
                CHECK(test::written(mergeAll(units, order, byName).graph) == bytes);
                CHECK(test::written(mergeAll(units, order).graph) == contextBytes);
            }
        }
    }
}

TEST_CASE("GraphMerger: labels equal but for one field deep inside stay apart") {
    // Labels are compared by hash: each pair differs in one field only, far into the label.
    const std::string longName(300, 'n');
    auto unitWith = [&](int variant) {
        Unit u;
        TypeId i = u.integer("int");
        std::vector<Member> members;
        for (uint32_t m = 0; m < 200; ++m)
            members.push_back({u.n("m" + std::to_string(m)), i, m * 32, 0});
        members.back().bitfieldSize = variant == 1 ? 3 : 0;
        members.back().name = u.n(variant == 2 ? longName + "x" : longName + "y");
        u.g.add(StructType{u.n("s"), 800, members});
        const Enumerator values[] = {{u.n("A"), 1}, {u.n("B"), variant == 3 ? 1ull << 63 : 0}};
        u.g.add(Enum64Type{u.n("e"), 8, values});
        return std::move(u.g);
    };
    std::vector<TypeGraph> units;
    for (int variant = 0; variant < 4; ++variant)
        units.push_back(unitWith(variant));
    units.push_back(unitWith(0)); // the same as the first: merges
    const GraphMerger::Result result = mergeAll(units);
    // int; structs of variants 0, 1, 2 (3 has variant 0's); enums of variants 0 and 3
    CHECK(result.graph.ownCount() == 1 + 3 + 2);
}

TEST_CASE("GraphMerger: types alike far deeper than hashes see are told apart exactly") {
    // A chain of 60 typedefs down to a struct that differs by unit; the same chain merges.
    auto chain = [](const char* leaf) {
        Unit u;
        TypeId t = u.structure("s", {u.integer(leaf)});
        for (int i = 0; i < 60; ++i)
            t = u.g.add(TypedefType{u.n("t" + std::to_string(i)), t});
        return std::move(u.g);
    };
    std::vector<TypeGraph> units;
    units.push_back(chain("int"));
    units.push_back(chain("long"));
    units.push_back(chain("int"));
    units.push_back(chain("long"));
    CHECK(mergeAll(units).graph.ownCount() == 2 * (2 + 60));
    CHECK(test::written(mergeAll(units, {3, 1, 0, 2}).graph) ==
          test::written(mergeAll(units).graph));
}

TEST_CASE("GraphMerger: lists longer than a storage chunk") {
    // 5000 members and enumerators: more than one chunk of the graphs' list arenas holds.
    auto unitWith = [](uint64_t lastValue) {
        Unit u;
        TypeId i = u.integer("int");
        std::vector<Member> members;
        std::vector<Enumerator> values;
        for (uint32_t m = 0; m < 5000; ++m) {
            members.push_back({u.n("m" + std::to_string(m)), i, m * 32, 0});
            values.push_back({u.n("V" + std::to_string(m)), m});
        }
        values.back().value = lastValue;
        u.ptr(u.g.add(StructType{u.n("big"), 20000, members}));
        u.g.add(EnumType{u.n("many"), 4, values});
        return std::move(u.g);
    };
    std::vector<TypeGraph> units;
    units.push_back(unitWith(4999));
    units.push_back(unitWith(4999));
    units.push_back(unitWith(7));
    const GraphMerger::Result result = mergeAll(units);
    REQUIRE(result.graph.ownCount() == 5); // int, big, big*, two enums
    TypeId bigId = 1;
    while (result.graph.kind(bigId) != Kind::Struct)
        ++bigId;
    const auto big = result.graph.getAs<StructType>(bigId);
    REQUIRE(big.members.size() == 5000);
    CHECK(result.graph.str(big.members[4321].name) == "m4321");
    CHECK(big.members[4999].bitOffset == 4999 * 32);
}

TEST_CASE("GraphMerger: a struct's BTF kind_flag does not keep it from its base twin") {
    // pahole sets kind_flag on every struct with bitfields; a struct mapped from DWARF leaves it
    // to the writer. Same members, same type.
    auto withBitfield = [](Unit& u, bool kindFlag) {
        TypeId i = u.integer("int");
        std::vector<Member> members{{u.n("a"), i, 0, 3}, {u.n("b"), i, 3, 5}};
        return u.g.add(StructType{u.n("s"), 4, members, kindFlag});
    };
    Unit b;
    TypeId baseStruct = withBitfield(b, true);
    auto base = std::make_shared<const TypeGraph>(std::move(b.g));
    Unit u;
    TypeId s = withBitfield(u, false);
    GraphMerger merger(base);
    CHECK(merger.merge(u.g, 0)[s - 1] == baseStruct);
    CHECK(std::move(merger).finish().graph.ownCount() == 0);
}

namespace {

// Two threads, each taking every other index: enough to run parallel parts for real.
class TwoThreads : public plugin::TaskRunner {
public:
    unsigned concurrency() const override { return 2; }
    void parallelFor(size_t count, const std::function<void(size_t)>& body) override {
        std::thread other([&] {
            for (size_t i = 1; i < count; i += 2)
                body(i);
        });
        for (size_t i = 0; i < count; i += 2)
            body(i);
        other.join();
        ++calls;
    }
    int calls = 0;
};

} // namespace

TEST_CASE("GraphMerger: finish() on workers gives what it gives alone") {
    // Enough types that the whole-graph hashing runs in several slices; declarations to resolve
    // so it matters.
    constexpr int kNames = 16000;
    auto build = [] {
        std::vector<TypeGraph> units;
        Unit defining;
        const TypeId i = defining.integer("int");
        for (int n = 0; n < kNames; ++n)
            defining.ptr(defining.structure("s" + std::to_string(n), {i}));
        units.push_back(std::move(defining.g));
        Unit declaring;
        for (int n = 0; n < kNames; ++n)
            declaring.structure("t" + std::to_string(n),
                                {declaring.ptr(declaring.fwd("s" + std::to_string(n)))});
        units.push_back(std::move(declaring.g));
        return units;
    };
    auto finishWith = [&](plugin::TaskRunner* tasks) {
        const std::vector<TypeGraph> units = build();
        GraphMerger merger;
        for (uint32_t k = 0; k < units.size(); ++k)
            merger.merge(units[k], k);
        REQUIRE(merger.provisionalCount() > 65536);
        return std::move(merger).finish(tasks);
    };
    TwoThreads threads;
    const GraphMerger::Result alone = finishWith(nullptr);
    const GraphMerger::Result onWorkers = finishWith(&threads);
    CHECK(threads.calls > 0);
    CHECK(alone.finalIds == onWorkers.finalIds);
    CHECK(test::dump(alone.graph) == test::dump(onWorkers.graph));
    // The declarations resolved: int, kNames structs and their pointers, kNames t structs.
    CHECK(alone.graph.ownCount() == 1 + 3 * kNames);
}

TEST_CASE("GraphMerger: long anonymous pointer chains collapse level by level") {
    // Chains take as many refinement rounds as they are deep: past a few, the splitter
    // refinement takes over, which must give the same classes.
    Unit u;
    const TypeId i = u.integer("int");
    auto chain = [&](int depth) {
        TypeId top = i;
        for (int level = 0; level < depth; ++level)
            top = u.ptr(top);
        return top;
    };
    chain(3000);
    chain(3000);
    chain(3001);
    std::vector<TypeGraph> units;
    units.push_back(std::move(u.g));
    GraphMerger::Result result = mergeAll(units);
    CHECK(result.graph.ownCount() == 3002); // int and one pointer per level
}
