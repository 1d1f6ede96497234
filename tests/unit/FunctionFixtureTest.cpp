// Functions through both DWARF loaders, from fixtures with a symbol table, on targets of both
// byte orders and classes: which become FUNCs, with the argument registers of each psABI
// (docs/functions.md's table) deciding which parameters arrived where the convention puts them.
#include "FixtureLoading.h"

#include "btforge/dwarf/LoaderOptions.h"
#include "btforge/ir/Types.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <dwarf.h>
#include <elf.h>
#include <initializer_list>
#include <string>
#include <vector>

using namespace btforge;
using namespace btforge::test;
using ir::Kind;

namespace {

struct Target {
    const char* name;
    uint16_t machine;
    bool elf64;
    Endian endian;
    uint8_t firstRegister, secondRegister; // DWARF numbers of the first two integer arguments
};

constexpr Target kTargets[] = {
    {"x86-64", EM_X86_64, true, Endian::Little, 5, 4}, // rdi, rsi
    {"s390x", EM_S390, true, Endian::Big, 2, 3},       // r2, r3
    {"aarch64", EM_AARCH64, true, Endian::Little, 0, 1},
    {"i386", EM_386, false, Endian::Little, 0, 2}, // eax, edx (-mregparm=3)
    {"powerpc", EM_PPC, false, Endian::Big, 3, 4},
};

constexpr uint64_t kText = 0x1000;

Attribute inRegister(uint8_t reg) {
    return {DW_AT_location, DW_FORM_exprloc, Bytes{{static_cast<uint8_t>(DW_OP_reg0 + reg)}}};
}

// int NAME(int a, long b) at `address`, its parameters in these registers; the types are those
// of the unit whose labels start with `unit`.
Die function(const std::string& unit, const char* name, uint64_t address, uint8_t regA,
             uint8_t regB, bool external = true) {
    std::vector<Attribute> attributes = {{DW_AT_name, DW_FORM_string, name},
                                         {DW_AT_prototyped, DW_FORM_flag_present},
                                         {DW_AT_type, DW_FORM_ref4, unit + "int"},
                                         {DW_AT_low_pc, DW_FORM_addr, address},
                                         {DW_AT_high_pc, DW_FORM_data1, 0x10}};
    if (external)
        attributes.push_back({DW_AT_external, DW_FORM_flag_present});
    return {DW_TAG_subprogram,
            attributes,
            {{DW_TAG_formal_parameter,
              {{DW_AT_name, DW_FORM_string, "a"},
               {DW_AT_type, DW_FORM_ref4, unit + "int"},
               inRegister(regA)}},
             {DW_TAG_formal_parameter,
              {{DW_AT_name, DW_FORM_string, "b"},
               {DW_AT_type, DW_FORM_ref4, unit + "long"},
               inRegister(regB)}}}};
}

// A unit as gcc describes it, with the types its functions use.
Die gccUnit(const std::string& name, uint8_t pointerSize, std::vector<Die> functions) {
    std::vector<Die> dies = {
        {DW_TAG_base_type,
         {{DW_AT_name, DW_FORM_string, "int"},
          {DW_AT_byte_size, DW_FORM_data1, 4},
          {DW_AT_encoding, DW_FORM_data1, DW_ATE_signed}},
         {},
         name + "int"},
        {DW_TAG_base_type,
         {{DW_AT_name, DW_FORM_string, "long int"},
          {DW_AT_byte_size, DW_FORM_data1, pointerSize},
          {DW_AT_encoding, DW_FORM_data1, DW_ATE_signed}},
         {},
         name + "long"},
    };
    dies.insert(dies.end(), functions.begin(), functions.end());
    return {DW_TAG_compile_unit,
            {{DW_AT_producer, DW_FORM_string, "GNU C11 12.2.0 -O2"},
             {DW_AT_language, DW_FORM_data1, DW_LANG_C99},
             {DW_AT_name, DW_FORM_string, name}},
            std::move(dies)};
}

// Addresses of the FUNCs of this name, sorted (nullopt-less: 0 for a FUNC without one).
std::vector<uint64_t> funcs(const ir::TypeGraph& g, std::string_view name) {
    std::vector<uint64_t> out;
    for (ir::TypeId id = g.firstId(); id < g.endId(); ++id) {
        if (g.kind(id) == Kind::Func && g.name(id) == name)
            out.push_back(g.getAs<ir::FuncType>(id).address.value_or(0));
    }
    std::sort(out.begin(), out.end());
    return out;
}

// `function` with a parameter `s` of the struct labelled `type` after its first, in the caller's
// frame (as gcc describes a struct passed in memory).
Die withStructInFrame(Die function, const std::string& type) {
    function.children.insert(function.children.begin() + 1,
                             Die{DW_TAG_formal_parameter,
                                 {{DW_AT_name, DW_FORM_string, "s"},
                                  {DW_AT_type, DW_FORM_ref4, type},
                                  {DW_AT_location, DW_FORM_exprloc, Bytes{{DW_OP_fbreg, 0x04}}}}});
    return function;
}

// `function` with its last parameter given as a value, which callers of a clone no longer pass.
Die withLastGivenAsValue(Die function) {
    function.children.back().attributes.back().value = Bytes{{DW_OP_lit3, DW_OP_stack_value}};
    return function;
}

// struct NAME of `size` bytes, labelled UNIT + NAME.
Die structType(const std::string& unit, const char* name, uint8_t size) {
    return {DW_TAG_structure_type,
            {{DW_AT_name, DW_FORM_string, name}, {DW_AT_byte_size, DW_FORM_data1, size}},
            {},
            unit + name};
}

// Through each DWARF loader: `clone` is left out as "optimized parameters", each of `kept` is a
// FUNC.
void checkLeftOutAsOptimized(const Fixture& f, const std::string& clone,
                             std::initializer_list<const char*> kept) {
    for (const std::string& loader : dwarfLoaders()) {
        INFO(loader);
        Loaded loaded = loadFixture(loader, f);
        REQUIRE(loaded.graph);
        CHECK(funcs(*loaded.graph, clone).empty());
        CHECK(loaded.skipped.find(clone + " : skipping BTF encoding of function due to optimized "
                                          "parameters") != std::string::npos);
        for (const char* name : kept) {
            INFO(name);
            CHECK(funcs(*loaded.graph, name).size() == 1);
        }
    }
}

} // namespace

TEST_CASE("functions from fixtures: symbols, argument registers, several addresses") {
    for (const Target& t : kTargets) {
        const uint8_t first = t.firstRegister, second = t.secondRegister;
        Fixture f;
        f.machine = t.machine;
        f.elf64 = t.elf64;
        f.endian = t.endian;
        f.textAddress = kText;
        const uint8_t pointer = t.elf64 ? 8 : 4;
        // static int twice(int, long) in both units: two addresses, one name.
        f.units = {gccUnit("one.c", pointer,
                           {function("one.c", "good", kText, first, second),
                            function("one.c", "moved", kText + 0x10, second, first),
                            function("one.c", "nosym", kText + 0x20, first, second),
                            function("one.c", "twice", kText + 0x30, first, second, false)}),
                   gccUnit("two.c", pointer,
                           {function("two.c", "twice", kText + 0x40, first, second, false)})};
        f.symbols = {{"good", kText, 0x10},
                     {"moved", kText + 0x10, 0x10},
                     {"twice", kText + 0x30, 0x10, STT_FUNC, STB_LOCAL},
                     {"twice", kText + 0x40, 0x10, STT_FUNC, STB_LOCAL}};
        for (const std::string& loader : dwarfLoaders()) {
            CAPTURE(std::string(t.name));
            CAPTURE(loader);
            Loaded loaded = loadFixture(loader, f);
            REQUIRE(loaded.graph);
            CHECK(loaded.warnings.empty());
            const ir::TypeGraph& g = *loaded.graph;
            CHECK(funcs(g, "good").size() == 1);
            CHECK(funcs(g, "moved").empty()); // its arguments swapped registers
            CHECK(funcs(g, "nosym").empty()); // no symbol to attach to
            CHECK(funcs(g, "twice").empty()); // which of the two would it be?
            CHECK(loaded.skipped.find("moved : skipping BTF encoding of function due to "
                                      "unexpected register usage for parameter") !=
                  std::string::npos);
            CHECK(loaded.skipped.find("twice : skipping BTF encoding of function due to "
                                      "ambiguous address") != std::string::npos);

            auto proto = g.getAs<ir::FuncProtoType>(
                g.getAs<ir::FuncType>(findType(g, Kind::Func, "good")).proto);
            REQUIRE(proto.params.size() == 2);
            CHECK(g.str(proto.params[0].name) == "a");
            CHECK(g.name(proto.params[0].type) == "int");
            CHECK(g.str(proto.params[1].name) == "b");
            CHECK(g.name(proto.params[1].type) == "long int");
            CHECK(g.name(proto.returnType) == "int");

            // One FUNC per address (the extension): each twice, at its own address.
            Loaded kept = loadFixture(loader, f, {}, {{dwarf::kFuncPerAddressOption, "true"}});
            REQUIRE(kept.graph);
            CHECK(funcs(*kept.graph, "twice") == std::vector<uint64_t>{kText + 0x30, kText + 0x40});
            CHECK(funcs(*kept.graph, "good") == std::vector<uint64_t>{kText});
            CHECK(kept.warnings.empty());
        }
    }
}

TEST_CASE("gcc LTO's stub of a function another partition defines is not a prototype") {
    // gcc -flto: a partition calling a function defined in another describes it by a stub, an
    // abstract origin without code or parameters. Taken for a definition, it would disagree
    // with the real one (pahole: "0 params != 2 params") and the FUNC would be left out.
    Fixture f;
    f.machine = EM_X86_64;
    f.textAddress = kText;
    Die defined = function("one.c", "adapt", kText, 5, 4);
    defined.label = "adapt";
    f.units = {gccUnit("one.c", 8, {defined}),
               gccUnit("two.c", 8,
                       {{DW_TAG_subprogram, {{DW_AT_abstract_origin, DW_FORM_ref_addr, "adapt"}}},
                        function("two.c", "caller", kText + 0x10, 5, 4)})};
    f.symbols = {{"adapt", kText, 0x10}, {"caller", kText + 0x10, 0x10}};
    for (const std::string& loader : dwarfLoaders()) {
        CAPTURE(loader);
        Loaded loaded = loadFixture(loader, f);
        REQUIRE(loaded.graph);
        CHECK(loaded.skipped.empty());
        CHECK(funcs(*loaded.graph, "adapt").size() == 1);
        CHECK(funcs(*loaded.graph, "caller").size() == 1);
    }
}

TEST_CASE("parameters a lexical block lists again are not the function's") {
    // gcc -O2 (libdotconf's dotconf_cb_includepath) can list a function's parameters again, in
    // another order, inside a lexical block of its body: their locations over that range, not
    // more parameters. Taken as the function's, the prototype had four and was left out as
    // "reordered parameters"; pahole, libdw and gdb keep the function's own two.
    Fixture f;
    f.machine = EM_X86_64;
    f.textAddress = kText;
    Die defined = function("one.c", "includepath", kText, 5, 4);
    defined.children[0].label = "a";
    defined.children[1].label = "b";
    auto relisted = [](const char* param, uint8_t reg) {
        return Die{DW_TAG_formal_parameter,
                   {{DW_AT_abstract_origin, DW_FORM_ref4, param}, inRegister(reg)}};
    };
    defined.children.push_back(
        {DW_TAG_lexical_block,
         {{DW_AT_low_pc, DW_FORM_addr, kText + 4}, {DW_AT_high_pc, DW_FORM_data1, 8}},
         {relisted("b", 4), relisted("a", 3)}});
    f.units = {gccUnit("one.c", 8, {defined})};
    f.symbols = {{"includepath", kText, 0x10}};
    for (const std::string& loader : dwarfLoaders()) {
        CAPTURE(loader);
        Loaded loaded = loadFixture(loader, f);
        REQUIRE(loaded.graph);
        CHECK(loaded.skipped.empty());
        const ir::TypeGraph& g = *loaded.graph;
        REQUIRE(funcs(g, "includepath").size() == 1);
        auto proto = g.getAs<ir::FuncProtoType>(
            g.getAs<ir::FuncType>(findType(g, Kind::Func, "includepath")).proto);
        REQUIRE(proto.params.size() == 2);
        CHECK(g.str(proto.params[0].name) == "a");
        CHECK(g.str(proto.params[1].name) == "b");
    }
}

TEST_CASE("without a model of the convention, a clone does without a parameter given as a value") {
    // x32 (32-bit x86-64): a target btforge knows no convention for. gcc's .constprop clones
    // describe a parameter the caller no longer passes by its value (here DW_OP_lit3,
    // DW_OP_stack_value) or by the caller's parameter; only then is the clone re-signatured.
    Fixture f;
    f.machine = EM_X86_64;
    f.elf64 = false;
    f.textAddress = kText;
    auto withConstantB = [](Die function) {
        Attribute& location = function.children[1].attributes.back();
        location.value = Bytes{{DW_OP_lit3, DW_OP_stack_value}};
        return function;
    };
    f.units = {gccUnit("one.c", 4,
                       {withConstantB(function("one.c", "scale", kText, 5, 4, false)),
                        withConstantB(function("one.c", "unused", kText + 0x10, 5, 4)),
                        function("one.c", "shift", kText + 0x20, 5, 4, false)})};
    f.symbols = {{"scale.constprop.0", kText, 0x10, STT_FUNC, STB_LOCAL},
                 {"unused", kText + 0x10, 0x10},
                 {"shift.isra.0", kText + 0x20, 0x10, STT_FUNC, STB_LOCAL}};
    // Kept: `unused`, not re-signatured (its callers still pass b, which it does not use), and
    // `shift`, a clone whose parameters all arrive in registers (nothing says which).
    checkLeftOutAsOptimized(f, "scale", {"unused", "shift"});
}

TEST_CASE("a function's entry past the NOPs its symbol starts with is at that symbol") {
    // riscv64 kernels: every traceable function's symbol is 8 bytes before its DW_AT_low_pc,
    // where ftrace's NOPs end. The instance is still the code of that symbol: a clone's (so a
    // parameter it is not passed leaves it out), and the address a FUNC carries is the symbol's.
    constexpr uint8_t kA0 = 10, kA1 = 11;
    Fixture f;
    f.machine = EM_RISCV;
    f.textAddress = kText;
    Die clone = function("one.c", "scale", kText + 8, kA0, kA1, false);
    clone.children[1].attributes.back().value = Bytes{{DW_OP_lit3, DW_OP_stack_value}};
    f.units = {gccUnit("one.c", 8, {clone, function("one.c", "padded", kText + 0x28, kA0, kA1)})};
    f.symbols = {{"scale.constprop.0", kText, 0x20, STT_FUNC, STB_LOCAL},
                 {"padded", kText + 0x20, 0x20}};
    for (const std::string& loader : dwarfLoaders()) {
        CAPTURE(loader);
        Loaded loaded = loadFixture(loader, f);
        REQUIRE(loaded.graph);
        CHECK(funcs(*loaded.graph, "scale").empty());
        CHECK(loaded.skipped.find("scale : skipping BTF encoding of function due to "
                                  "optimized parameters") != std::string::npos);
        CHECK(funcs(*loaded.graph, "padded").size() == 1);
        Loaded perAddress = loadFixture(loader, f, {}, {{dwarf::kFuncPerAddressOption, "true"}});
        REQUIRE(perAddress.graph);
        CHECK(funcs(*perAddress.graph, "padded") == std::vector<uint64_t>{kText + 0x20});
    }
}

TEST_CASE("an empty struct argument takes no register: the parameters after it are checked") {
    // struct vm_userfaultfd_ctx {} without CONFIG_USERFAULTFD, in the caller's frame: the next
    // argument takes the register after the previous one (Debian's tinyconfig builds for x86-64,
    // arm64, ppc64le and riscv64). s390x passes it by reference instead (CallingConventionTest).
    for (const Target& t : kTargets) {
        if (t.machine == EM_S390)
            continue;
        Fixture f;
        f.machine = t.machine;
        f.elf64 = t.elf64;
        f.endian = t.endian;
        f.textAddress = kText;
        // int NAME(int a, struct empty s, long b): in `moved`, b arrives in a's register.
        const uint8_t first = t.firstRegister, second = t.secondRegister;
        f.units = {gccUnit(
            "one.c", t.elf64 ? 8 : 4,
            {structType("one.c", "empty", 0),
             withStructInFrame(function("one.c", "passed", kText, first, second), "one.cempty"),
             withStructInFrame(function("one.c", "moved", kText + 0x10, first, first),
                               "one.cempty")})};
        f.symbols = {{"passed", kText, 0x10}, {"moved", kText + 0x10, 0x10}};
        for (const std::string& loader : dwarfLoaders()) {
            INFO(t.name);
            INFO(loader);
            Loaded loaded = loadFixture(loader, f);
            REQUIRE(loaded.graph);
            CHECK(funcs(*loaded.graph, "passed").size() == 1);
            CHECK(funcs(*loaded.graph, "moved").empty());
            CHECK(loaded.skipped.find("moved : skipping BTF encoding of function due to "
                                      "unexpected register usage for parameter") !=
                  std::string::npos);
        }
    }
}

TEST_CASE(
    "past an argument the model cannot place, a clone still does without one given as a value") {
    // i386 (regparm 3): a 12-byte struct after `a` does not fit in edx and ecx, so it and every
    // later argument go on the stack, which the model does not follow. A .constprop clone's
    // later parameter given as a value (Debian's i386 __rhashtable_lookup.isra.0, armmp's
    // clock.constprop.0 after a struct split between r3 and the stack) is still not passed.
    Fixture f;
    f.machine = EM_386;
    f.elf64 = false;
    f.textAddress = kText;
    f.units = {gccUnit("one.c", 4,
                       {structType("one.c", "triple", 12),
                        withLastGivenAsValue(withStructInFrame(
                            function("one.c", "scale", kText, 0, 2, false), "one.ctriple")),
                        withLastGivenAsValue(withStructInFrame(
                            function("one.c", "unused", kText + 0x10, 0, 2), "one.ctriple"))})};
    f.symbols = {{"scale.constprop.0", kText, 0x10, STT_FUNC, STB_LOCAL},
                 {"unused", kText + 0x10, 0x10}};
    checkLeftOutAsOptimized(f, "scale", {"unused"}); // not a clone: its callers still pass b
}

TEST_CASE("a clone's parameter past the argument registers, given as a value, is not passed") {
    // x86-64: the seventh argument goes on the stack. Debian's amd64 can_vma_merge_after.isra.0
    // and devlink_nl_rate_fill.constprop.0 describe theirs by the caller's value: not passed,
    // so a FUNC would have BPF read a stack slot the caller never wrote.
    Fixture f;
    f.textAddress = kText;
    auto withSevenParameters = [](Die function) {
        const uint8_t registers[] = {1, 2, 8, 9}; // rdx rcx r8 r9, after a and b
        const char* names[] = {"c", "d", "e", "f", "g"};
        for (size_t i = 0; i < 5; ++i) {
            Attribute location = i < 4 ? inRegister(registers[i])
                                       : Attribute{DW_AT_location, DW_FORM_exprloc,
                                                   Bytes{{DW_OP_lit3, DW_OP_stack_value}}};
            function.children.push_back({DW_TAG_formal_parameter,
                                         {{DW_AT_name, DW_FORM_string, names[i]},
                                          {DW_AT_type, DW_FORM_ref4, "one.clong"},
                                          location}});
        }
        return function;
    };
    f.units = {gccUnit("one.c", 8,
                       {withSevenParameters(function("one.c", "fill", kText, 5, 4, false)),
                        withSevenParameters(function("one.c", "unused", kText + 0x10, 5, 4))})};
    f.symbols = {{"fill.constprop.0", kText, 0x10, STT_FUNC, STB_LOCAL},
                 {"unused", kText + 0x10, 0x10}};
    checkLeftOutAsOptimized(f, "fill", {"unused"}); // not a clone: its callers pass g
}
