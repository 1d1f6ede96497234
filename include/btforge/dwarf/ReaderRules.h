// What every DWARF reader decides alike while it fills UnitDies, so that the libdw and the LLVM
// readers hand core the same DIEs: which DIEs to keep, what their attributes' values mean, how
// DIE offsets of other sections become keys, and where ELF sections of the input lie.
#pragma once

#include "btforge/Export.h"
#include "btforge/dwarf/UnitDies.h"
#include "btforge/dwarf/UnitReader.h"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace btforge::dwarf {

// DIE offsets are keys across all units; DIEs of other sections get ranges of their own.
inline constexpr DieOffset kAltBias = 1ull << 61;   // .debug_info of the .gnu_debugaltlink file
inline constexpr DieOffset kTypesBias = 1ull << 62; // .debug_types (DWARF 4 type units)

// The sections of an ELF file a reader reads DWARF from, by name. ELF lets several sections share
// one: gcc's relocatable objects have a .debug_types section (DWARF 5: .debug_info) per type unit,
// each in a COMDAT group of its own. The units of every section of such a name are read, section
// after section in the file's order, grouped or not, each DIE keyed by its offset in the
// sections laid end to end (as a linker would join them), so that no two sections' offsets 0
// share a key. Any other section read must be one: libdw would read the first of the name and
// LLVM the last.
enum class DwarfSection : uint8_t {
    Units,   // .debug_info, .debug_types: may repeat
    Single,  // read whole (abbreviations, strings, location and range lists, ...): must not
    NotRead, // whatever else, repeated or not
};
// `name` as the file has it; a ".zdebug_" name (compressed the GNU way) is its ".debug_" one.
BTFORGE_API DwarfSection dwarfSectionKind(std::string_view name);
BTFORGE_API std::string dwarfSectionName(std::string_view name); // ".zdebug_x" -> ".debug_x"

// The names of an ELF file's sections, counted as they are added in section order.
class BTFORGE_API DwarfSectionCount {
public:
    void add(std::string_view name);
    // Some name of kind Units or Single is several sections'.
    bool repeats() const { return repeats_; }
    // Why the file cannot be read ("section .debug_abbrev appears 2 times, ..."), or "".
    std::string problem() const;

private:
    std::vector<std::pair<std::string, uint32_t>> read_; // names read, and how often each is
    bool repeats_ = false;
};

// A compressed section's claimed size, checked before anything is allocated: against 4 GiB,
// which a DWARF32 section cannot pass, and against the most `compressed` bytes can give (zlib
// expands at most 1032:1; a zstd block of 128 KiB can be 4 bytes). "" or what is wrong.
BTFORGE_API std::string claimedSizeProblem(uint64_t claimed, uint64_t compressed, bool zstd);
// A .zdebug_ section (zlib-gnu, before SHF_COMPRESSED): "ZLIB", the size inflated in 8
// big-endian bytes, a zlib stream. The claimed size, or nullopt without the magic.
inline constexpr size_t kGnuCompressedHeader = 12;
BTFORGE_API std::optional<uint64_t> gnuCompressedSize(std::span<const uint8_t> bytes);

// What a reader does with a DIE, decided from its tag and its parent's.
enum class Visit : uint8_t {
    Keep,    // decode it and look at its children
    Descend, // not needed itself, but types may be nested inside (lexical blocks)
    Skip,    // nothing below it can be a type the output needs (inlined instances, call sites)
};

// A lexical block's children are classified with its function's tag as their parent tag, so
// that parameters stay recognisable.
BTFORGE_API Visit classifyDie(uint16_t tag, uint16_t parentTag);

// DW_OP_entry_value(DW_OP_regN), optionally followed by DW_OP_stack_value: register N, or 0xff.
BTFORGE_API uint8_t entryValueRegister(std::span<const LocationOp> ops);

// A constant attribute value as a reader read it from its form.
struct Constant {
    uint64_t bits = 0;
    bool isSigned = false; // DW_FORM_sdata or DW_FORM_implicit_const: `bits` holds an int64_t
};

// The class of value a form holds (DWARF 5, 7.5.5), as DieAttributes takes them. Constant also
// stands for the forms a reader can only try to read as one (DW_FORM_sec_offset, ...).
enum class FormClass : uint8_t { Flag, String, Reference, Address, Block, Expression, Constant };
BTFORGE_API FormClass formClass(unsigned form);
// The constant forms whose value is signed: DW_FORM_sdata, DW_FORM_implicit_const.
BTFORGE_API bool isSignedForm(unsigned form);

// What one kept DIE's attributes mean. A reader turns each attribute's form into a value of its
// class (flag, constant, string, reference, address, block, expression operations) and hands it
// here with the attribute's name; the rules decide what the Die gets. Values of a class an
// attribute does not take are ignored.
class BTFORGE_API DieAttributes {
public:
    DieAttributes(UnitDies& unit, Die& die, std::vector<LocationOp>& scratch)
        : unit_(unit), die_(die), scratch_(scratch) {}

    // The attributes the rules look at: a reader may skip the others unread.
    static bool isUsed(unsigned attribute);
    // Whether the operations of an expression (DW_FORM_exprloc) of `attribute` matter.
    static bool usesOperations(unsigned attribute);
    // Whether a value of class `kind` of `attribute` is to be decoded as operations and given
    // to operations(): DWARF 2 and 3 have no exprloc and write expressions as blocks.
    static bool takesOperations(unsigned attribute, FormClass kind);
    // Whether DW_AT_location in `form` is a location list (else an expression).
    static bool isLocationList(unsigned form, uint16_t version);

    void flag(unsigned attribute, bool value);
    void constant(unsigned attribute, Constant value);
    // Unmeasured strings are fine: the view's size may be how far its NUL may lie.
    void string(unsigned attribute, std::string_view value);
    void reference(unsigned attribute, DieOffset target); // kNoDie: unresolved
    void address(unsigned attribute, uint64_t address);
    // A constant in a block (DW_AT_const_value), in the target's byte order.
    void block(unsigned attribute, std::span<const uint8_t> bytes, bool bigEndian);
    void operations(unsigned attribute, std::span<const LocationOp> ops);

    // DW_AT_location, in any form. Its value is one expression or a list of them; the rules
    // look at the first expression, and for a parameter at the register an entry value names.
    // Only the expressions wanted() are decoded: each into the vector expression() returns (the
    // list's in list order), followed by expressionRead(whether its operations could be read).
    void location(bool isList);
    bool wanted() const;
    std::vector<LocationOp>& expression();
    void expressionRead(bool read);

    // DW_AT_ranges, in any form. Once all attributes are in: whether the DIE needs the start of
    // its first range as its low_pc (a function in pieces), to be given to address().
    void ranges() { hasRanges_ = true; }
    bool needsFirstRange() const;

private:
    UnitDies& unit_;
    Die& die_;
    std::vector<LocationOp>& scratch_;
    bool hasRanges_ = false;
    bool isList_ = false;
    uint32_t expressions_ = 0; // begun with expression()
    uint32_t first_ = 0;       // where the first one starts in unit_.locationOps
};

// Appends the DIEs a reader keeps, in pre-order, each linked to its parent and previous sibling.
class BTFORGE_API DieTreeBuilder {
public:
    explicit DieTreeBuilder(UnitDies& unit) : unit_(unit) {}
    // A new DIE under kept DIE `parent` (kNoIndex: the unit DIE); the reader fills the rest.
    Die& add(DieOffset offset, uint16_t tag, uint32_t parent);
    uint32_t lastIndex() const { return static_cast<uint32_t>(unit_.dies.size()) - 1; }

private:
    UnitDies& unit_;
    std::vector<uint32_t> lastChild_; // per kept DIE: its newest child, the next one's sibling
};

// The allocated sections of an ELF input by address, to answer UnitReader::locate.
class BTFORGE_API SectionAddresses {
public:
    void add(uint64_t address, uint64_t size, uint32_t index);
    void sort();
    // Sections may overlap (.tbss); the last one starting at or below the address that contains
    // it wins.
    std::optional<SectionOffset> locate(uint64_t address) const;

private:
    struct Section {
        uint64_t address;
        uint64_t size;
        uint32_t index;
    };
    std::vector<Section> sections_;
};

} // namespace btforge::dwarf
