// Small ELF files with DWARF, written from a description of the DIEs wanted, for reader tests:
// either byte order, ELF32 or ELF64 (address size 4 or 8), DWARF 2 to 5, and each attribute in
// the form the test names. The file has .text and .data (zeros), .debug_abbrev, .debug_info,
// .debug_str when a DW_FORM_strp or strx form is used, .debug_str_offsets for the strx forms (one
// table for the whole fixture, its entries from byte 8: a unit using them says
// DW_AT_str_offsets_base 8), and .symtab when symbols are given. 32-bit DWARF only.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace btforge::test {

// Bytes of a block or expression form (DW_FORM_block*, DW_FORM_exprloc).
struct Bytes {
    std::vector<uint8_t> bytes;
};

// What an attribute holds; the form says how it is read. Numbers are two's complement bits (a
// negative number written as DW_FORM_sdata is the negative number); text is a string for the
// string forms and the label of the DIE referred to for the reference forms (without a label,
// a reference form writes the number as it is: an offset in the unit, in .debug_info for
// DW_FORM_ref_addr; for references to nowhere).
struct Value {
    uint64_t number = 0;
    std::string text;
    std::vector<uint8_t> bytes;

    Value() = default;
    template <typename T>
    requires std::integral<T> || std::is_enum_v<T> Value(T n) : number(static_cast<uint64_t>(n)) {}
    Value(const char* s) : text(s) {}
    Value(std::string s) : text(std::move(s)) {}
    Value(Bytes b) : bytes(std::move(b.bytes)) {}
};

struct Attribute {
    uint16_t name;
    uint16_t form;
    Value value = {};        // none for DW_FORM_flag_present
    uint16_t indirectAs = 0; // for DW_FORM_indirect: the form the DIE names, then the value in it
    bool raw = false;        // the value's bytes written as they are, whatever the form: malformed
                             // values, and forms this writer does not know
};

struct Die {
    uint16_t tag;
    std::vector<Attribute> attributes;
    std::vector<Die> children = {};
    std::string label = {}; // what reference forms name; unique in the fixture
};

// An ELF symbol; `section` is ".text" or ".data"; `value` an address in it.
struct Symbol {
    std::string name;
    uint64_t value = 0;
    uint64_t size = 0;
    uint8_t type = 2;    // STT_FUNC
    uint8_t binding = 1; // STB_GLOBAL
    std::string section = ".text";
};

enum class Endian { Little, Big };

struct Fixture {
    Endian endian = Endian::Little;
    bool elf64 = true;     // ELFCLASS64, address size 8; else ELFCLASS32, address size 4
    uint16_t machine = 62; // e_machine, EM_X86_64
    uint16_t dwarfVersion = 4;
    std::vector<Die> units; // each a DW_TAG_compile_unit (or partial unit) with its children
    std::vector<Symbol> symbols;
    uint64_t textAddress = 0x1000;
    uint64_t textSize = 0x100;
    uint64_t dataAddress = 0x2000;
    uint64_t dataSize = 0x100;
};

// The ELF file (an ET_EXEC image with section headers only). Throws std::invalid_argument for
// a description that cannot be written (an unknown form, a label that no DIE has).
std::vector<std::byte> writeElf(const Fixture& fixture);

// Writes `bytes` to `path`; throws std::runtime_error when it cannot.
void writeFile(const std::string& path, const std::vector<std::byte>& bytes);

} // namespace btforge::test
