// The DWARF fixture writer itself (tests/support/DwarfFixture.h): descriptions it cannot write are
// refused, and the ELF identification says what was asked. What its DWARF means is judged by
// readelf and llvm-dwarfdump (ctest dwarf-fixtures) and by the reader tests.
#include "DwarfFixture.h"

#include <doctest/doctest.h>

#include <dwarf.h>
#include <elf.h>
#include <stdexcept>

using namespace btforge::test;

namespace {

Fixture oneUnit(std::vector<Die> children) {
    Fixture f;
    f.units = {{DW_TAG_compile_unit, {{DW_AT_name, DW_FORM_string, "w.c"}}, std::move(children)}};
    return f;
}

} // namespace

TEST_CASE("DWARF fixture writer: descriptions it cannot write are refused") {
    CHECK_THROWS_AS(writeElf(oneUnit({{DW_TAG_typedef, {{DW_AT_type, DW_FORM_ref4, "nowhere"}}}})),
                    std::invalid_argument);
    CHECK_THROWS_AS(writeElf(oneUnit({{DW_TAG_base_type, {}, {}, "twice"},
                                      {DW_TAG_base_type, {}, {}, "twice"}})),
                    std::invalid_argument);
    CHECK_THROWS_AS(writeElf(oneUnit({{DW_TAG_base_type, {{DW_AT_name, DW_FORM_addrx, 0}}}})),
                    std::invalid_argument);
    CHECK_THROWS_AS(writeElf(oneUnit({{DW_TAG_base_type,
                                       {{DW_AT_name, DW_FORM_indirect, 0, DW_FORM_indirect}}}})),
                    std::invalid_argument);
    Fixture badSymbol = oneUnit({});
    badSymbol.symbols = {{"f", 0, 0, STT_FUNC, STB_GLOBAL, ".bss"}};
    CHECK_THROWS_AS(writeElf(badSymbol), std::invalid_argument);
}

TEST_CASE("DWARF fixture writer: the ELF identification and header fields asked for") {
    for (bool elf64 : {false, true}) {
        for (Endian endian : {Endian::Little, Endian::Big}) {
            Fixture f = oneUnit({});
            f.elf64 = elf64;
            f.endian = endian;
            f.machine = EM_RISCV;
            auto image = writeElf(f);
            REQUIRE(image.size() > 52);
            auto byte = [&](size_t i) { return std::to_integer<unsigned>(image[i]); };
            CHECK(byte(EI_MAG0) == ELFMAG0);
            CHECK(byte(EI_MAG1) == 'E');
            CHECK(byte(EI_CLASS) == (elf64 ? ELFCLASS64 : ELFCLASS32));
            CHECK(byte(EI_DATA) == (endian == Endian::Little ? ELFDATA2LSB : ELFDATA2MSB));
            // e_type and e_machine, in the file's byte order.
            auto half = [&](size_t at) {
                return endian == Endian::Little ? byte(at) | byte(at + 1) << 8
                                                : byte(at) << 8 | byte(at + 1);
            };
            CHECK(half(16) == ET_EXEC);
            CHECK(half(18) == EM_RISCV);
        }
    }
}
