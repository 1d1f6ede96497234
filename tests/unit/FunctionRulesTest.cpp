// Which functions become FUNCs (decideFunctions, docs/functions.md): the observations of each
// name against its ELF symbols, read from a fixture's .symtab. Only the rules that do not depend
// on how a compiler marks clones: symbols missing, consistent and inconsistent prototypes,
// several addresses, unexpected registers, and the order of the decisions.
#include "FixtureLoading.h"
#include "dwarf/FunctionDecisions.h"

#include <doctest/doctest.h>

#include <dwarf.h>
#include <elf.h>
#include <string>
#include <vector>

using namespace btforge;
using namespace btforge::test;
using namespace btforge::dwarf;

namespace {

constexpr uint64_t kText = 0x1000;

// DWARF addresses in .text (section 1 of every fixture), as an executable's reader locates them.
class TextReader final : public UnitReader {
public:
    size_t unitCount() const override { return 0; }
    bool isPartialUnit(size_t) const override { return false; }
    uint64_t unitSize(size_t) const override { return 0; }
    Expected<void> readUnit(size_t, UnitDies&) override { return {}; }
    std::optional<SectionOffset> locate(uint64_t address) const override {
        return SectionOffset{1, address - kText};
    }
};

// int, long, const int, and a struct: the types prototypes are made of.
struct Types {
    ir::TypeGraph graph;
    ir::TypeId intType, longType, constInt, structType;

    Types() {
        intType = graph.add(ir::IntType{graph.intern("int"), 4, 1, 0, 32});
        longType = graph.add(ir::IntType{graph.intern("long"), 8, 1, 0, 64});
        constInt = graph.add(ir::ConstType{ir::kNoName, intType});
        structType = graph.add(ir::StructType{graph.intern("s"), 0, {}});
    }
};

// Observations built one definition at a time.
struct Observed {
    UnitObservations obs;

    // A definition of `name` in `unit` returning `returns`, with parameters of these types; at
    // `lowPc` when it has code (0: none, an abstract instance or a declaration-like definition).
    FunctionObservation& define(const char* name, uint32_t unit, DieOffset die, ir::TypeId returns,
                                std::vector<ir::TypeId> params, uint64_t lowPc = 0) {
        FunctionObservation f;
        f.name = name;
        f.unit = unit;
        f.die = die;
        f.returnType = returns;
        f.lowPc = lowPc;
        f.hasLowPc = lowPc != 0;
        f.paramFirst = static_cast<uint32_t>(obs.params.size());
        f.paramCount = static_cast<uint32_t>(params.size());
        for (ir::TypeId p : params)
            obs.params.push_back({"p", p, 0});
        obs.functions.push_back(f);
        return obs.functions.back();
    }
};

std::shared_ptr<const elf::ElfSymbolTable> symbols(std::vector<Symbol> list) {
    Fixture f;
    f.textAddress = kText;
    f.units = {{DW_TAG_compile_unit, {{DW_AT_name, DW_FORM_string, "functions.c"}}}};
    f.symbols = std::move(list);
    auto table = elf::ElfSymbolTable::read(fixtureFile(f));
    REQUIRE(table);
    return *table;
}

FeatureSet features(std::vector<std::string> names) {
    auto set = FeatureSet::parse(names);
    REQUIRE(set);
    return *set;
}

std::vector<FunctionDecision>
decide(const Types& t, const Observed& o, const elf::ElfSymbolTable& elf,
       const FeatureSet& set = FeatureSet::defaults(),
       FunctionGranularity granularity = FunctionGranularity::PerName) {
    TextReader reader;
    return decideFunctions(t.graph, o.obs, elf, reader, set, granularity);
}

FunctionDecision only(std::vector<FunctionDecision> decisions) {
    REQUIRE(decisions.size() == 1);
    return std::move(decisions.front());
}

} // namespace

TEST_CASE("function rules: a definition with a symbol is emitted, one without is not decided") {
    Types t;
    Observed o;
    o.define("present", 0, 0x10, t.intType, {t.longType}, kText + 0x20);
    o.define("absent", 0, 0x30, t.intType, {}, kText + 0x40);
    auto elf = symbols({{"present", kText + 0x20, 0x10}});
    FunctionDecision d = only(decide(t, o, *elf));
    CHECK(d.name == "present");
    CHECK(d.skipReason.empty());
    REQUIRE(d.chosen);
    CHECK(d.chosen->die == 0x10);
    CHECK(d.instances == 1);
    CHECK(d.addresses == 1);
    CHECK(d.address == kText + 0x20);
}

TEST_CASE("function rules: definitions that agree make one FUNC from the one at the symbol") {
    Types t;
    Observed o;
    // An abstract instance in unit 0, the out-of-line code in unit 1, and a definition in unit 2
    // whose parameter is `const int` where the others say `int`: the same function type in C.
    o.define("f", 0, 0x100, t.intType, {t.intType, t.longType});
    o.define("f", 1, 0x200, t.intType, {t.intType, t.longType}, kText + 0x40);
    o.define("f", 2, 0x300, t.constInt, {t.constInt, t.longType});
    auto elf = symbols({{"f", kText + 0x40, 0x20}});
    FunctionDecision d = only(decide(t, o, *elf));
    CHECK(d.skipReason.empty());
    REQUIRE(d.chosen);
    CHECK(d.chosen->die == 0x200); // its code is at the symbol
    CHECK(d.instances == 3);
}

TEST_CASE("function rules: definitions that disagree are an inconsistent prototype") {
    Types t;
    auto elf = symbols({{"f", kText, 0x20}});
    struct Case {
        const char* what;
        ir::TypeId returns;
        std::vector<ir::TypeId> params;
    };
    for (const Case& c : {Case{"a parameter's type", t.intType, {t.intType, t.intType}},
                          Case{"the parameter count", t.intType, {t.intType}},
                          Case{"the return type", t.longType, {t.intType, t.longType}},
                          Case{"a parameter is a struct", t.intType, {t.structType, t.longType}}}) {
        INFO(c.what);
        Observed o;
        o.define("f", 0, 0x10, t.intType, {t.intType, t.longType}, kText);
        o.define("f", 1, 0x20, c.returns, c.params);
        FunctionDecision d = only(decide(t, o, *elf));
        CHECK(d.skipReason == "inconsistent prototype");
        CHECK(d.chosen == nullptr);
        // The report names both DIEs.
        CHECK(d.detail.find("0x10") != std::string::npos);
        CHECK(d.detail.find("0x20") != std::string::npos);
        // Without consistent_func, the instance at the symbol is trusted.
        FunctionDecision lenient = only(decide(t, o, *elf, features({"var", "enum64"})));
        CHECK(lenient.skipReason.empty());
        REQUIRE(lenient.chosen);
        CHECK(lenient.chosen->die == 0x10);
    }
    // Varargs in one definition only.
    Observed o;
    o.define("f", 0, 0x10, t.intType, {t.intType}, kText);
    o.define("f", 1, 0x20, t.intType, {t.intType}).facts |= kFunctionVarargs;
    CHECK(only(decide(t, o, *elf)).skipReason == "inconsistent prototype");
}

TEST_CASE("function rules: a name at several addresses") {
    Types t;
    Observed o;
    // static int helper(int) in two files, and an address no DWARF describes.
    o.define("helper", 0, 0x10, t.intType, {t.intType}, kText + 0x10);
    o.define("helper", 1, 0x80, t.intType, {t.longType}, kText + 0x30);
    auto elf = symbols({{"helper", kText + 0x10, 0x10, STT_FUNC, STB_LOCAL},
                        {"helper", kText + 0x30, 0x10, STT_FUNC, STB_LOCAL},
                        {"helper", kText + 0x50, 0x10, STT_FUNC, STB_LOCAL}});

    // Standard BTF cannot say which one a FUNC means.
    FunctionDecision d = only(decide(t, o, *elf));
    CHECK(d.skipReason == "ambiguous address"); // before the prototypes' disagreement
    CHECK(d.addresses == 3);
    CHECK_FALSE(d.address);

    // Per address: each decided on the instance there; prototypes may differ between them.
    auto per = decide(t, o, *elf, FeatureSet::defaults(), FunctionGranularity::PerAddress);
    REQUIRE(per.size() == 3);
    CHECK(per[0].address == kText + 0x10);
    CHECK(per[0].skipReason.empty());
    REQUIRE(per[0].chosen);
    CHECK(per[0].chosen->die == 0x10);
    CHECK(per[1].address == kText + 0x30);
    CHECK(per[1].skipReason.empty());
    REQUIRE(per[1].chosen);
    CHECK(per[1].chosen->die == 0x80);
    CHECK(per[2].address == kText + 0x50);
    CHECK(per[2].skipReason == "no DWARF at address");
    CHECK(per[2].chosen == nullptr);
}

TEST_CASE("function rules: a parameter in an unexpected register") {
    Types t;
    Observed o;
    o.define("f", 0, 0x10, t.intType, {t.intType}, kText).facts |= kFunctionUnexpectedRegister;
    auto elf = symbols({{"f", kText, 0x10}});
    FunctionDecision d = only(decide(t, o, *elf));
    CHECK(d.skipReason == "unexpected register usage for parameter");
    CHECK(d.chosen == nullptr);
    // Another definition's finding counts too: the facts of all instances add up.
    Observed both;
    both.define("f", 0, 0x10, t.intType, {t.intType}, kText);
    both.define("f", 1, 0x20, t.intType, {t.intType}).facts |= kFunctionUnexpectedRegister;
    CHECK(only(decide(t, both, *elf)).skipReason == "unexpected register usage for parameter");
    // An inconsistent prototype is the more fundamental reason.
    Observed worse;
    worse.define("f", 0, 0x10, t.intType, {t.intType}, kText).facts |= kFunctionUnexpectedRegister;
    worse.define("f", 1, 0x20, t.intType, {t.longType});
    CHECK(only(decide(t, worse, *elf)).skipReason == "inconsistent prototype");
}

TEST_CASE("function rules: decisions come sorted by name, whatever the unit order") {
    Types t;
    Observed o;
    o.define("zeta", 0, 0x10, t.intType, {}, kText + 0x30);
    o.define("alpha_long_name_b", 1, 0x20, t.intType, {}, kText + 0x20);
    o.define("alpha_long_name_a", 2, 0x30, t.intType, {}, kText + 0x10);
    o.define("mid", 3, 0x40, t.intType, {}, kText);
    auto elf = symbols({{"zeta", kText + 0x30, 8},
                        {"alpha_long_name_b", kText + 0x20, 8},
                        {"alpha_long_name_a", kText + 0x10, 8},
                        {"mid", kText, 8}});
    std::vector<std::string> names;
    for (const FunctionDecision& d : decide(t, o, *elf)) {
        CHECK(d.skipReason.empty());
        names.emplace_back(d.name);
    }
    CHECK(names ==
          std::vector<std::string>{"alpha_long_name_a", "alpha_long_name_b", "mid", "zeta"});
}
