// The ELF facts DWARF is checked against, read from fixture files whose .symtab the test writes:
// function names without compiler suffixes, split-off pieces left out, data symbols by section,
// the target, and section-relative addresses, for both classes and byte orders.
#include "btforge/elf/ElfSymbolTable.h"

#include "FixtureLoading.h"

#include <doctest/doctest.h>

#include <dwarf.h>
#include <elf.h>
#include <string>
#include <vector>

using namespace btforge;
using namespace btforge::test;

namespace {

std::shared_ptr<const elf::ElfSymbolTable> symbolsOf(const Fixture& f) {
    auto table = elf::ElfSymbolTable::read(fixtureFile(f));
    INFO((table ? "" : table.error().message()));
    REQUIRE(table);
    return *table;
}

Fixture withSymbols(std::vector<Symbol> symbols) {
    Fixture f;
    f.units = {{DW_TAG_compile_unit, {{DW_AT_name, DW_FORM_string, "symbols.c"}}}};
    f.symbols = std::move(symbols);
    return f;
}

std::vector<std::string> symbolNames(std::span<const elf::ElfFunction> functions) {
    std::vector<std::string> out;
    for (const elf::ElfFunction& f : functions)
        out.emplace_back(f.symbolName);
    return out;
}

} // namespace

TEST_CASE("ELF symbols: compiler suffixes stripped, split-off pieces not entry points") {
    CHECK(elf::stripCompilerSuffix("foo.isra.0") == "foo");
    CHECK(elf::stripCompilerSuffix("foo.constprop.1.isra.0") == "foo");
    CHECK(elf::stripCompilerSuffix("foo.llvm.123") == "foo");
    CHECK(elf::stripCompilerSuffix("foo") == "foo");
    CHECK(elf::stripCompilerSuffix(".hidden") == ".hidden");

    auto table = symbolsOf(withSymbols({
        {"foo", 0x1040, 0x10},
        {"foo.isra.0", 0x1020, 0x10, STT_FUNC, STB_LOCAL},
        {"foo.cold", 0x1080, 0x8, STT_FUNC, STB_LOCAL},
        {"foo.part.0", 0x1090, 0x8, STT_FUNC, STB_LOCAL},
        {"bar", 0x1000, 0x10, STT_FUNC, STB_WEAK},
    }));
    CHECK(table->hasSymbols());
    CHECK_FALSE(table->isRelocatable());
    // Every symbol of the name, by address; the pieces of foo are not among them.
    auto foo = table->functionsNamed("foo");
    CHECK(symbolNames(foo) == std::vector<std::string>{"foo.isra.0", "foo"});
    REQUIRE(foo.size() == 2);
    CHECK(foo[0].name == "foo");
    CHECK(foo[0].address == 0x1020);
    CHECK(foo[0].size == 0x10);
    CHECK_FALSE(foo[0].global);
    CHECK(foo[1].global);
    CHECK(table->section(foo[1].section)->name == ".text");
    CHECK(symbolNames(table->functionsNamed("bar")) == std::vector<std::string>{"bar"});
    CHECK(table->functionsNamed("bar")[0].global); // weak counts as global
    CHECK(table->functionsNamed("foo.cold").empty());
    CHECK(table->functionsNamed("baz").empty());
    CHECK(table->functions().size() == 3);
}

TEST_CASE("ELF symbols: data objects by section, labels, and addresses in section terms") {
    auto table = symbolsOf(withSymbols({
        {"counter", 0x2010, 4, STT_OBJECT, STB_GLOBAL, ".data"},
        {"table", 0x2000, 16, STT_OBJECT, STB_LOCAL, ".data"},
        {"_text", 0x1000, 0, STT_NOTYPE, STB_GLOBAL},
        {"start", 0x1010, 0x10},
    }));
    const elf::ElfSection* data = table->section(".data");
    REQUIRE(data);
    CHECK(data->address == 0x2000);
    CHECK(data->isData);
    CHECK(data->allocated);
    const elf::ElfSection* text = table->section(".text");
    REQUIRE(text);
    CHECK_FALSE(text->isData);
    CHECK(text->allocated);
    CHECK_FALSE(table->section(".debug_info")->allocated);
    CHECK(table->section(".no_such_section") == nullptr);

    auto objects = table->objectsIn(data->index);
    REQUIRE(objects.size() == 2);
    CHECK(objects[0].name == "table"); // by address
    CHECK(objects[1].name == "counter");
    CHECK(objects[1].global);
    CHECK(table->objectsIn(text->index).empty());

    CHECK(table->addressOf("_text") == 0x1000);
    CHECK(table->addressOf("counter") == 0x2010);
    CHECK(table->addressOf("start") == 0x1010);
    CHECK_FALSE(table->addressOf("nothing"));
    // An executable's values are addresses: offsets are relative to the section.
    CHECK(table->offsetInSection(0x2010, data->index) == 0x10);
    CHECK(table->offsetInSection(0x1010, text->index) == 0x10);
    auto bytes = table->sectionBytes(*data);
    REQUIRE(bytes);
    CHECK(bytes->size() == data->size);

    CHECK(elf::isCompilerGeneratedObject("__UNIQUE_ID_ddebug123"));
    CHECK(elf::isCompilerGeneratedObject("__BTF_ID__func__foo__1"));
    CHECK_FALSE(elf::isCompilerGeneratedObject("jiffies"));
}

TEST_CASE("ELF symbols: the target of ELF32 and ELF64 files of both byte orders") {
    struct Case {
        bool elf64;
        Endian endian;
        uint16_t machine;
    };
    for (Case c : {Case{true, Endian::Little, EM_X86_64}, Case{true, Endian::Big, EM_S390},
                   Case{false, Endian::Little, EM_386}, Case{false, Endian::Big, EM_PPC}}) {
        CAPTURE(c.machine);
        Fixture f =
            withSymbols({{"f", 0x1010, 0x20}, {"v", 0x2008, 8, STT_OBJECT, STB_GLOBAL, ".data"}});
        f.elf64 = c.elf64;
        f.endian = c.endian;
        f.machine = c.machine;
        auto table = symbolsOf(f);
        CHECK(table->target().machine == c.machine);
        CHECK(table->target().pointerSize == (c.elf64 ? 8 : 4));
        CHECK(table->isBigEndian() == (c.endian == Endian::Big));
        auto fn = table->functionsNamed("f");
        REQUIRE(fn.size() == 1);
        CHECK(fn[0].address == 0x1010);
        CHECK(fn[0].size == 0x20);
        auto objects = table->objectsIn(table->section(".data")->index);
        REQUIRE(objects.size() == 1);
        CHECK(objects[0].address == 0x2008);
        CHECK(objects[0].size == 8);
    }
}

TEST_CASE("ELF symbols: a file without .symtab has none, and no error") {
    auto table = symbolsOf(withSymbols({}));
    CHECK_FALSE(table->hasSymbols());
    CHECK(table->functions().empty());
    CHECK(table->section(".text"));
}

TEST_CASE("ELF symbols: arm Thumb functions start at the even address") {
    Fixture f = withSymbols({{"thumb", 0x1021, 0x10}});
    f.elf64 = false;
    f.machine = EM_ARM;
    auto table = symbolsOf(f);
    REQUIRE(table->functionsNamed("thumb").size() == 1);
    CHECK(table->functionsNamed("thumb")[0].address == 0x1020);
}
