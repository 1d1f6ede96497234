#include "compare/GraphDiff.h"

#include "../../core/ir/TypeWalk.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

using namespace btforge;
using namespace btforge::ir;
using compare::compareGraphs;
using compare::Difference;
using compare::DiffOptions;
using compare::DiffReport;
using compare::KindCounts;

namespace {

// One change each; a graph built with none of them is the reference.
enum Change : unsigned {
    kNoChange = 0,
    kMemberInserted = 1,
    kMemberOffset = 2,
    kEnumValue = 4,
    kParamType = 8,
    kTypedefTarget = 16,
    kBitfieldSize = 32,
};

// A small program's types: a struct with a hole and a bitfield, an enum, a typedef, a function,
// a struct with an anonymous union, a variable in a DATASEC.
TypeGraph sample(unsigned changes) {
    TypeGraph g;
    auto n = [&](std::string_view s) { return g.intern(s); };
    TypeId intId = g.add(IntType{n("int"), 4, int_encoding::kSigned, 0, 32});
    TypeId uintId = g.add(IntType{n("unsigned int"), 4, 0, 0, 32});
    TypeId charId = g.add(IntType{n("char"), 1, int_encoding::kSigned | int_encoding::kChar, 0, 8});
    TypeId longId = g.add(IntType{n("long"), 8, int_encoding::kSigned, 0, 64});

    std::vector<Member> point = {{n("tag"), charId, 0, 0}};
    if (changes & kMemberInserted)
        point.push_back({n("mark"), charId, 8, 0}); // into the hole: nothing else moves
    point.push_back({n("x"), intId, 32, 0});
    point.push_back({n("y"), intId, (changes & kMemberOffset) ? 72u : 64u, 0});
    point.push_back({n("flags"), uintId, 96, (changes & kBitfieldSize) ? 4u : 3u});
    TypeId pointId = g.add(StructType{n("point"), 16, point});

    const Enumerator colors[] = {
        {n("RED"), 0}, {n("GREEN"), 1}, {n("BLUE"), (changes & kEnumValue) ? 3u : 2u}};
    g.add(EnumType{n("color"), 4, colors, false});
    g.add(TypedefType{n("u32_t"), (changes & kTypedefTarget) ? intId : uintId});

    TypeId pointPtr = g.add(PtrType{kNoName, pointId});
    TypeId constChar = g.add(ConstType{kNoName, charId});
    TypeId labelType = g.add(PtrType{kNoName, (changes & kParamType) ? charId : constChar});
    const Param params[] = {{n("p"), pointPtr}, {n("label"), labelType}};
    TypeId proto = g.add(FuncProtoType{kNoName, intId, params});
    g.add(FuncType{n("draw"), proto, FuncLinkage::Global});

    const Member number[] = {{n("i"), intId, 0, 0}, {n("l"), longId, 0, 0}};
    TypeId anonymous = g.add(UnionType{kNoName, 8, number});
    const Member shape[] = {{kNoName, anonymous, 0, 0}, {n("origin"), pointPtr, 64, 0}};
    g.add(StructType{n("shape"), 16, shape});

    TypeId counter = g.add(VarType{n("counter"), longId, VarLinkage::GlobalAllocated});
    const VarSecInfo data[] = {{counter, 0, 8}};
    g.add(DatasecType{n(".data"), 8, data});
    return g;
}

// The same types with ids in the reverse order.
TypeGraph reversed(const TypeGraph& g) {
    TypeGraph out;
    out.strings().adoptSection(g.strings().bytes());
    auto renumbered = [&](TypeId id) { return id == kVoidType ? id : g.endId() - id; };
    ListScratch scratch;
    for (TypeId id = g.endId() - 1; id >= g.firstId(); --id)
        out.add(rewrite(g, g.get(id), out, renumbered, scratch));
    return out;
}

KindCounts counts(const DiffReport& report, Kind kind) {
    return report.counts[static_cast<size_t>(kind)];
}

Difference only(const DiffReport& report) {
    REQUIRE(report.differences.size() == 1);
    CHECK(report.differenceCount == 1);
    CHECK_FALSE(report.equal());
    return report.differences.front();
}

void checkDifference(const Difference& d, Kind kind, std::string_view type, std::string_view what,
                     std::optional<std::string> a, std::optional<std::string> b) {
    CHECK(d.kind == kind);
    CHECK(d.type == type);
    CHECK(d.what == what);
    CHECK(d.a == a);
    CHECK(d.b == b);
}

} // namespace

TEST_CASE("GraphDiff: the same types in another id order are equal") {
    TypeGraph a = sample(kNoChange);
    TypeGraph b = reversed(a);
    REQUIRE(b.kind(1) == Kind::Datasec);
    DiffReport report = compareGraphs(a, b);
    CHECK(report.equal());
    CHECK(report.differences.empty());
    CHECK(report.differenceCount == 0);
    CHECK(counts(report, Kind::Int) == KindCounts{4, 0, 0, 0});
    CHECK(counts(report, Kind::Struct) == KindCounts{2, 0, 0, 0});
    CHECK(counts(report, Kind::Union) == KindCounts{}); // anonymous and used: compared in place
    CHECK(counts(report, Kind::Func) == KindCounts{1, 0, 0, 0});
    CHECK(counts(report, Kind::Datasec) == KindCounts{1, 0, 0, 0});
    CHECK(counts(report, Kind::Ptr) == KindCounts{}); // only inside other types
}

TEST_CASE("GraphDiff: each change is reported as exactly that thing") {
    const TypeGraph reference = sample(kNoChange);
    auto diff = [&](unsigned change) { return compareGraphs(reference, reversed(sample(change))); };

    SUBCASE("member inserted") {
        DiffReport report = diff(kMemberInserted);
        checkDifference(only(report), Kind::Struct, "point", "member 'mark'", std::nullopt,
                        "char mark at bit 8");
        CHECK(counts(report, Kind::Struct) == KindCounts{1, 0, 0, 1});
    }
    SUBCASE("member offset") {
        checkDifference(only(diff(kMemberOffset)), Kind::Struct, "point", "member 'y' offset", "64",
                        "72");
    }
    SUBCASE("bitfield size") {
        checkDifference(only(diff(kBitfieldSize)), Kind::Struct, "point",
                        "member 'flags' bitfield size", "3", "4");
    }
    SUBCASE("enum value") {
        checkDifference(only(diff(kEnumValue)), Kind::Enum, "color", "value 'BLUE'", "2", "3");
    }
    SUBCASE("parameter type") {
        checkDifference(only(diff(kParamType)), Kind::Func, "draw", "param 2 'label' type",
                        "const char *", "char *");
    }
    SUBCASE("typedef target") {
        checkDifference(only(diff(kTypedefTarget)), Kind::Typedef, "u32_t", "target",
                        "unsigned int", "int");
    }
    SUBCASE("differences come sorted by kind, then name") {
        DiffReport report = diff(kEnumValue | kTypedefTarget | kMemberOffset | kParamType);
        std::vector<std::string> order;
        for (const Difference& d : report.differences)
            order.push_back(std::string(kindName(d.kind)) + " " + d.type);
        CHECK(order ==
              std::vector<std::string>{"STRUCT point", "ENUM color", "TYPEDEF u32_t", "FUNC draw"});
    }
    SUBCASE("--max lists fewer and counts all") {
        DiffOptions options;
        options.maxListed = 2;
        DiffReport report = compareGraphs(
            reference, sample(kEnumValue | kTypedefTarget | kMemberOffset | kParamType), options);
        CHECK(report.differences.size() == 2);
        CHECK(report.differenceCount == 4);
    }
    SUBCASE("--kinds leaves the other kinds out") {
        DiffOptions options;
        options.kinds.reset();
        options.kinds.set(static_cast<size_t>(Kind::Func));
        DiffReport report = compareGraphs(reference, sample(kEnumValue | kParamType), options);
        checkDifference(only(report), Kind::Func, "draw", "param 2 'label' type", "const char *",
                        "char *");
        CHECK(counts(report, Kind::Enum) == KindCounts{});
    }
}

TEST_CASE("GraphDiff: an anonymous member is compared field by field") {
    auto build = [](TypeId (*numberType)(TypeGraph&)) {
        TypeGraph g;
        TypeId intId = g.add(IntType{g.intern("int"), 4, int_encoding::kSigned, 0, 32});
        TypeId other = numberType(g);
        const Member number[] = {{g.intern("i"), intId, 0, 0}, {g.intern("l"), other, 0, 0}};
        TypeId anonymous = g.add(UnionType{kNoName, 8, number});
        const Member outer[] = {{kNoName, anonymous, 0, 0}};
        g.add(StructType{g.intern("wrapper"), 8, outer});
        return g;
    };
    TypeGraph a = build([](TypeGraph& g) {
        return g.add(IntType{g.intern("long"), 8, int_encoding::kSigned, 0, 64});
    });
    TypeGraph b = build([](TypeGraph& g) {
        return g.add(IntType{g.intern("long long"), 8, int_encoding::kSigned, 0, 64});
    });
    DiffReport report = compareGraphs(a, b);
    CHECK(report.differenceCount == 3); // the INTs "long" and "long long", and the member
    auto member = std::find_if(report.differences.begin(), report.differences.end(),
                               [](const Difference& d) { return d.kind == Kind::Struct; });
    REQUIRE(member != report.differences.end());
    checkDifference(*member, Kind::Struct, "wrapper", "member '(anon 1).l' type", "long",
                    "long long");
}

TEST_CASE("GraphDiff: a FWD and its STRUCT mean the same inside a pointer") {
    // A keeps a forward declaration next to the definition and points at it; B points at the
    // definition.
    auto build = [](bool viaForward) {
        TypeGraph g;
        TypeId intId = g.add(IntType{g.intern("int"), 4, int_encoding::kSigned, 0, 32});
        const Member node[] = {{g.intern("value"), intId, 0, 0}};
        TypeId nodeId = g.add(StructType{g.intern("node"), 4, node});
        TypeId target = viaForward ? g.add(FwdType{g.intern("node"), false}) : nodeId;
        const Member list[] = {{g.intern("head"), g.add(PtrType{kNoName, target}), 0, 0}};
        g.add(StructType{g.intern("list"), 8, list});
        return g;
    };
    TypeGraph a = build(true);
    TypeGraph b = build(false);
    CHECK(compareGraphs(a, b).equal());

    DiffOptions strict;
    strict.strictForwards = true;
    DiffReport report = compareGraphs(a, b, strict);
    REQUIRE(report.differences.size() == 2);
    checkDifference(report.differences[0], Kind::Struct, "list", "member 'head' type",
                    "fwd struct node *", "struct node *");
    checkDifference(report.differences[1], Kind::Fwd, "node", "",
                    "struct node (forward declaration)", std::nullopt);
}

TEST_CASE("GraphDiff: types of one kind and name compare as multisets") {
    auto build = [](std::vector<std::string_view> memberNames) {
        TypeGraph g;
        TypeId intId = g.add(IntType{g.intern("int"), 4, int_encoding::kSigned, 0, 32});
        for (std::string_view name : memberNames) {
            const Member members[] = {{g.intern(name), intId, 0, 0}};
            g.add(StructType{g.intern("dup"), 4, members});
        }
        return g;
    };
    TypeGraph ab = build({"a", "b"});
    CHECK(compareGraphs(ab, build({"b", "a"})).equal());
    CHECK(counts(compareGraphs(ab, build({"b", "a"})), Kind::Struct) == KindCounts{2, 0, 0, 0});

    DiffReport changed = compareGraphs(ab, build({"b", "c"}));
    CHECK(counts(changed, Kind::Struct) == KindCounts{1, 0, 0, 1});
    REQUIRE(changed.differences.size() == 2);
    checkDifference(changed.differences[0], Kind::Struct, "dup", "member 'a'", "int a at bit 0",
                    std::nullopt);
    checkDifference(changed.differences[1], Kind::Struct, "dup", "member 'c'", std::nullopt,
                    "int c at bit 0");

    DiffReport fewer = compareGraphs(build({"a", "b", "a"}), ab);
    CHECK(counts(fewer, Kind::Struct) == KindCounts{2, 1, 0, 0});
    REQUIRE(fewer.differences.size() == 1);
    checkDifference(fewer.differences[0], Kind::Struct, "dup", "", "struct dup: 4 bytes, 1 member",
                    std::nullopt);
}

TEST_CASE("GraphDiff: references are spelled as C spells them") {
    TypeGraph a;
    TypeId intId = a.add(IntType{a.intern("int"), 4, int_encoding::kSigned, 0, 32});
    TypeId charId = a.add(IntType{a.intern("char"), 1, int_encoding::kChar, 0, 8});
    const Member skbMembers[] = {{a.intern("len"), intId, 0, 0}};
    TypeId skb = a.add(StructType{a.intern("sk_buff"), 4, skbMembers});
    const Param params[] = {{kNoName, a.add(PtrType{kNoName, skb})}, {kNoName, intId}};
    TypeId handler = a.add(PtrType{kNoName, a.add(FuncProtoType{kNoName, intId, params})});
    TypeId name = a.add(ArrayType{kNoName, a.add(ConstType{kNoName, charId}), intId, 16});
    TypeId constPtr = a.add(ConstType{kNoName, a.add(PtrType{kNoName, charId})});
    const Member ops[] = {{a.intern("handler"), handler, 0, 0},
                          {a.intern("name"), name, 64, 0},
                          {a.intern("cursor"), constPtr, 192, 0}};
    a.add(StructType{a.intern("ops"), 32, ops});

    // B has the same names over other types, so each member's type is reported in both spellings.
    TypeGraph b;
    TypeId bInt = b.add(IntType{b.intern("int"), 4, int_encoding::kSigned, 0, 32});
    b.add(IntType{b.intern("char"), 1, int_encoding::kChar, 0, 8});
    b.add(StructType{b.intern("sk_buff"), 4, std::vector<Member>{{b.intern("len"), bInt, 0, 0}}});
    const Member bOps[] = {{b.intern("handler"), bInt, 0, 0},
                           {b.intern("name"), bInt, 64, 0},
                           {b.intern("cursor"), bInt, 192, 0}};
    b.add(StructType{b.intern("ops"), 32, bOps});

    DiffReport report = compareGraphs(a, b);
    REQUIRE(report.differences.size() == 3);
    CHECK(report.differences[0].a == "int (*)(struct sk_buff *, int)");
    CHECK(report.differences[1].a == "const char [16]");
    CHECK(report.differences[2].a == "char *const");
    for (const Difference& d : report.differences)
        CHECK(d.b == "int");
}
