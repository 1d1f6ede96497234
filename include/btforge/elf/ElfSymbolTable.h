// The ELF facts a DWARF->BTF conversion checks DWARF against, read once per input and then only
// read (shared by every worker without locks): function symbols by name, data symbols by
// section, and the section table.
#pragma once

#include "btforge/Export.h"
#include "btforge/elf/Target.h"
#include "btforge/support/Error.h"
#include "btforge/support/MappedFile.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace btforge::elf {

struct ElfSection {
    std::string_view name;
    uint32_t index = 0;
    uint64_t address = 0;
    uint64_t size = 0;
    bool isData = false;    // allocated, not executable (where variables live)
    bool allocated = false; // SHF_ALLOC: part of the loaded image
};

struct ElfFunction {
    std::string_view name;       // compiler suffixes (.isra.0, .constprop.1, ...) stripped
    std::string_view symbolName; // as in the symbol table
    uint64_t address = 0;
    uint64_t size = 0;
    uint32_t section = 0;
    bool global = false; // STB_GLOBAL or STB_WEAK
};

struct ElfObject {
    std::string_view name;
    uint64_t address = 0;
    uint64_t size = 0;
    uint32_t section = 0;
    bool global = false;
};

// `foo.isra.0` -> `foo`: the name a compiler-specialised copy's source function has.
BTFORGE_API std::string_view stripCompilerSuffix(std::string_view symbolName);

// Data objects the compiler or kernel macros make up (__UNIQUE_ID_*, tracepoint strings, the
// `__BTF_ID__*` labels resolve_btfids fills): never described as variables, whether found in DWARF
// or in the symbol table.
BTFORGE_API bool isCompilerGeneratedObject(std::string_view name);

class BTFORGE_API ElfSymbolTable {
public:
    // The table keeps `file` mapped: every string_view it hands out points into it.
    static Expected<std::shared_ptr<const ElfSymbolTable>> read(std::shared_ptr<MappedFile> file);

    bool isRelocatable() const { return relocatable_; } // ET_REL: addresses are section-relative
    bool isBigEndian() const { return target_.isBigEndian(); }
    const Target& target() const { return target_; }
    bool hasSymbols() const { return hasSymbols_; } // false for a stripped file
    const std::string& fileName() const { return file_->path(); }

    // Every function symbol with this (stripped) name, by address; several for a name that
    // exists at several addresses (a static function in two files, compiler clones).
    std::span<const ElfFunction> functionsNamed(std::string_view name) const;
    std::span<const ElfFunction> functions() const { return functions_; }
    // Data symbols (STT_OBJECT, defined in a section) of one section, by address.
    std::span<const ElfObject> objectsIn(uint32_t section) const;
    // The kernel's `__BTF_ID__*` symbols (untyped labels in .BTF_ids), by section and address.
    std::span<const ElfObject> btfIdSymbols() const { return btfIds_; }
    const ElfSection* section(std::string_view name) const;
    const ElfSection* section(uint32_t index) const;
    std::span<const ElfSection> sections() const { return sections_; }
    // The value of the symbol of this exact name (a function, object or untyped label such as
    // `_text`), the lowest when several have it; nullopt when none does.
    std::optional<uint64_t> addressOf(std::string_view name) const;
    // A symbol value as an offset into its section (ET_REL values already are one).
    uint64_t offsetInSection(uint64_t value, uint32_t sectionIndex) const;
    // Raw bytes of a section (nullopt for SHT_NOBITS or out-of-file sections).
    std::optional<std::span<const std::byte>> sectionBytes(const ElfSection& section) const;

private:
    void indexFunctionNames();

    std::shared_ptr<MappedFile> file_;
    bool relocatable_ = false;
    Target target_;
    bool hasSymbols_ = false;
    std::vector<ElfSection> sections_;
    std::vector<uint64_t> sectionFileOffsets_; // parallel to sections_; UINT64_MAX: no bytes
    std::vector<ElfFunction> functions_;       // sorted by (name, address)
    // Every worker asks for each function it sees: a hash lookup instead of a binary search
    // with a string comparison per step. Open addressing over the runs of one name in
    // functions_; a slot with count 0 is empty.
    struct NameRun {
        size_t hash = 0;
        uint32_t first = 0;
        uint32_t count = 0;
    };
    std::vector<NameRun> nameRuns_;
    std::vector<ElfObject> objects_; // sorted by (section, address)
    std::vector<ElfObject> labels_;  // STT_NOTYPE symbols, sorted by (name, address)
    std::vector<ElfObject> btfIds_;  // sorted by (section, address)
};

} // namespace btforge::elf
