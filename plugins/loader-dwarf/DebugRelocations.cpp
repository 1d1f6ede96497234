// Relocating the DWARF sections of a relocatable object in place (DebugRelocations.h).
#include "DebugRelocations.h"

#include "btforge/dwarf/DwarfSections.h"
#include "btforge/elf/Uleb128LabelPairs.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>

namespace btforge::dwarf {
namespace {

// Where the layout starts: DWARF's address 0 (a discarded function) must lie in no section.
constexpr uint64_t kLayoutBase = 0x10000;

// What a relocation type does to its field. What compilers emit for DWARF's addresses, offsets
// and lengths is applied here; the other types (MIPS's composed ones, RISC-V's 6-bit ones) are
// libdwfl's to decide.
enum class Apply : uint8_t {
    LeftToLibdwfl,
    Store,      // the symbol's value plus the addend
    Add,        // RISC-V's label differences: added to what is there,
    Subtract,   // or subtracted from it
    SetUleb128, // RISC-V's ULEB128 label differences (Uleb128LabelPairs.h), which elfutils
    SubUleb128, // 0.188's backend does not know
};

// A relocation type libdwfl's backend for its machine applies, on a field of `width` bytes
// (a ULEB128 field: however long it is).
struct KnownRelocation {
    unsigned machine = 0;
    unsigned type = 0;
    Apply apply = Apply::LeftToLibdwfl;
    unsigned width = 0;
};

constexpr KnownRelocation kKnownRelocations[] = {
    {EM_X86_64, R_X86_64_64, Apply::Store, 8},
    {EM_X86_64, R_X86_64_32, Apply::Store, 4},
    {EM_X86_64, R_X86_64_32S, Apply::Store, 4},
    {EM_386, R_386_32, Apply::Store, 4},
    {EM_AARCH64, R_AARCH64_ABS64, Apply::Store, 8},
    {EM_AARCH64, R_AARCH64_ABS32, Apply::Store, 4},
    {EM_AARCH64, R_AARCH64_ABS16, Apply::Store, 2},
    {EM_ARM, R_ARM_ABS32, Apply::Store, 4},
    {EM_S390, R_390_64, Apply::Store, 8},
    {EM_S390, R_390_32, Apply::Store, 4},
    {EM_S390, R_390_16, Apply::Store, 2},
    {EM_S390, R_390_8, Apply::Store, 1},
    {EM_PPC64, R_PPC64_ADDR64, Apply::Store, 8},
    {EM_PPC64, R_PPC64_UADDR64, Apply::Store, 8},
    {EM_PPC64, R_PPC64_ADDR32, Apply::Store, 4},
    {EM_PPC64, R_PPC64_UADDR32, Apply::Store, 4},
    {EM_PPC, R_PPC_ADDR32, Apply::Store, 4},
    {EM_PPC, R_PPC_UADDR32, Apply::Store, 4},
    {EM_LOONGARCH, R_LARCH_64, Apply::Store, 8},
    {EM_LOONGARCH, R_LARCH_32, Apply::Store, 4},
    {EM_RISCV, R_RISCV_64, Apply::Store, 8},
    {EM_RISCV, R_RISCV_32, Apply::Store, 4},
    {EM_RISCV, R_RISCV_SET32, Apply::Store, 4},
    {EM_RISCV, R_RISCV_SET16, Apply::Store, 2},
    {EM_RISCV, R_RISCV_SET8, Apply::Store, 1},
    {EM_RISCV, R_RISCV_ADD64, Apply::Add, 8},
    {EM_RISCV, R_RISCV_SUB64, Apply::Subtract, 8},
    {EM_RISCV, R_RISCV_ADD32, Apply::Add, 4},
    {EM_RISCV, R_RISCV_SUB32, Apply::Subtract, 4},
    {EM_RISCV, R_RISCV_ADD16, Apply::Add, 2},
    {EM_RISCV, R_RISCV_SUB16, Apply::Subtract, 2},
    {EM_RISCV, elf::kRiscvSetUleb128, Apply::SetUleb128, 0},
    {EM_RISCV, elf::kRiscvSubUleb128, Apply::SubUleb128, 0},
    {EM_MIPS, R_MIPS_32, Apply::Store, 4},
    {EM_MIPS, R_MIPS_64, Apply::Store, 8},
};

// A relocated field of `width` bytes in the file's byte order; `swap` when it is not the host's.
template <class T> T swapped(T value, bool swap) {
    if (!swap)
        return value;
    if constexpr (sizeof(T) == 8)
        return __builtin_bswap64(value);
    else if constexpr (sizeof(T) == 4)
        return __builtin_bswap32(value);
    else if constexpr (sizeof(T) == 2)
        return __builtin_bswap16(value);
    else
        return value;
}

template <class T> uint64_t loadAs(const uint8_t* at, bool swap) {
    T value;
    std::memcpy(&value, at, sizeof(T));
    return swapped(value, swap);
}

template <class T> void storeAs(uint8_t* at, bool swap, uint64_t value) {
    const T field = swapped(static_cast<T>(value), swap);
    std::memcpy(at, &field, sizeof(T));
}

uint64_t load(const uint8_t* at, unsigned width, bool swap) {
    switch (width) {
    case 8:
        return loadAs<uint64_t>(at, swap);
    case 4:
        return loadAs<uint32_t>(at, swap);
    case 2:
        return loadAs<uint16_t>(at, swap);
    default:
        return *at;
    }
}

// Writes `value` over the ULEB128 field at `offset`, keeping its length (padding included).
// False if the field is not terminated or the value does not fit.
bool storeUleb128(std::span<uint8_t> bytes, uint64_t offset, uint64_t value) {
    constexpr size_t kMaxLength = 10;
    if (offset >= bytes.size())
        return false;
    const size_t room = std::min<uint64_t>(bytes.size() - offset, kMaxLength);
    size_t length = 0;
    while (length < room && (bytes[offset + length] & 0x80))
        ++length;
    if (length == room)
        return false;
    ++length; // the last byte
    for (size_t i = 0; i < length; ++i, value >>= 7)
        bytes[offset + i] = uint8_t(value & 0x7f) | (i + 1 < length ? 0x80 : 0);
    return value == 0;
}

void store(uint8_t* at, unsigned width, bool swap, uint64_t value) {
    switch (width) {
    case 8:
        return storeAs<uint64_t>(at, swap, value);
    case 4:
        return storeAs<uint32_t>(at, swap, value);
    case 2:
        return storeAs<uint16_t>(at, swap, value);
    default:
        *at = static_cast<uint8_t>(value);
    }
}

// The entries of a relocation section and the symbols they name, as libelf gives them (in the
// host's byte order); copied out one at a time, since a hostile file's data may be unaligned.
template <class T> T entry(const Elf_Data* data, size_t index) {
    T value;
    std::memcpy(&value, static_cast<const char*>(data->d_buf) + index * sizeof(T), sizeof(T));
    return value;
}

template <class T> size_t entryCount(const Elf_Data* data) {
    return data && data->d_buf ? data->d_size / sizeof(T) : 0;
}

// A relocation entry's fields, whatever the class and machine.
struct Entry {
    uint64_t offset = 0;
    unsigned symbol = 0;
    unsigned type = 0;
    uint64_t addend = 0;
};

struct ElfClass32 {
    using Rel = Elf32_Rel;
    using Rela = Elf32_Rela;
    using Sym = Elf32_Sym;
    static Entry decode(const Rel& r) {
        return {r.r_offset, ELF32_R_SYM(r.r_info), ELF32_R_TYPE(r.r_info)};
    }
    static Entry decode(const Rela& r) {
        return {r.r_offset, ELF32_R_SYM(r.r_info), ELF32_R_TYPE(r.r_info),
                uint64_t(int64_t(r.r_addend))};
    }
};

struct ElfClass64 {
    using Rel = Elf64_Rel;
    using Rela = Elf64_Rela;
    using Sym = Elf64_Sym;
    static Entry decode(const Rel& r) {
        return {r.r_offset, unsigned(ELF64_R_SYM(r.r_info)), unsigned(ELF64_R_TYPE(r.r_info))};
    }
    static Entry decode(const Rela& r) {
        return {r.r_offset, unsigned(ELF64_R_SYM(r.r_info)), unsigned(ELF64_R_TYPE(r.r_info)),
                uint64_t(r.r_addend)};
    }
};

// 64-bit MIPS's r_info is not one 64-bit number: it is a 32-bit symbol index in the file's byte
// order, then four single bytes (a special symbol, the third, second and first type), which
// libelf (elfutils 0.188) would swap as a number. So these entries are decoded from the file's
// bytes: offset, info, then (RELA) the addend, 8 bytes each. A type composed with others is left
// to libdwfl.
struct Mips64Entries {
    static constexpr size_t kFieldBytes = 8;
    static Entry decode(const uint8_t* at, bool rela, bool swap) {
        Entry e;
        e.offset = load(at, 8, swap);
        e.symbol = static_cast<unsigned>(load(at + 8, 4, swap));
        const uint8_t type3 = at[13], type2 = at[14];
        e.type = type2 == R_MIPS_NONE && type3 == R_MIPS_NONE ? at[15] : kComposed;
        e.addend = rela ? load(at + 16, 8, swap) : 0;
        return e;
    }
    static constexpr unsigned kComposed = ~0u; // no type of the table
};

// Whether the file bytes [offset, offset + size) overlap the ELF header or a header table, which
// libelf may read from the same mapping: writing there would change what it reads.
bool overlapsHeaders(Elf* elf, const GElf_Ehdr& ehdr, const GElf_Shdr& shdr) {
    const uint64_t begin = shdr.sh_offset;
    const uint64_t end = shdr.sh_offset + shdr.sh_size;
    auto overlaps = [&](uint64_t tableBegin, uint64_t tableEnd) {
        return tableBegin < end && begin < tableEnd;
    };
    size_t sections = 0;
    size_t programs = 0;
    if (elf_getshdrnum(elf, &sections) != 0 || elf_getphdrnum(elf, &programs) != 0)
        return true;
    return end < begin || overlaps(0, gelf_fsize(elf, ELF_T_EHDR, 1, EV_CURRENT)) ||
           overlaps(ehdr.e_shoff,
                    ehdr.e_shoff + sections * gelf_fsize(elf, ELF_T_SHDR, 1, EV_CURRENT)) ||
           (programs &&
            overlaps(ehdr.e_phoff,
                     ehdr.e_phoff + programs * gelf_fsize(elf, ELF_T_PHDR, 1, EV_CURRENT)));
}

class Relocator {
public:
    Relocator(Elf* elf, const GElf_Ehdr& ehdr) : elf_(elf), ehdr_(ehdr) {
        swap_ = (ehdr.e_ident[EI_DATA] == ELFDATA2MSB) != (std::endian::native == std::endian::big);
        // The machine's types by number, looked up once per relocation.
        for (const KnownRelocation& known : kKnownRelocations) {
            if (known.machine != ehdr.e_machine)
                continue;
            if (kinds_.size() <= known.type)
                kinds_.resize(known.type + 1);
            kinds_[known.type] = known;
        }
    }

    // Assigns the allocated sections their addresses, written into their headers as libdwfl
    // writes its layout, and finds the symbol table.
    bool layOut() {
        size_t count = 0;
        if (elf_getshdrnum(elf_, &count) != 0)
            return false;
        addresses_.assign(count, 0);
        uint64_t end = kLayoutBase;
        for (Elf_Scn* scn = elf_nextscn(elf_, nullptr); scn; scn = elf_nextscn(elf_, scn)) {
            GElf_Shdr shdr;
            if (!gelf_getshdr(scn, &shdr))
                return false;
            if (shdr.sh_type == SHT_SYMTAB) {
                if (symbols_ || (shdr.sh_flags & SHF_COMPRESSED))
                    return false; // which table libdwfl would take is its business
                symbols_ = elf_getdata(scn, nullptr);
                if (!symbols_)
                    return false;
            }
            if (shdr.sh_type == SHT_SYMTAB_SHNDX)
                return false; // more sections than a symbol's index can name
            if (!(shdr.sh_flags & SHF_ALLOC))
                continue;
            const uint64_t align = shdr.sh_addralign ? shdr.sh_addralign : 1;
            const uint64_t start = (end + align - 1) & ~(align - 1);
            if (!std::has_single_bit(align) || start < end || start + shdr.sh_size < start)
                return false;
            addresses_[elf_ndxscn(scn)] = start;
            end = start + shdr.sh_size;
            shdr.sh_addr = start;
            if (!gelf_update_shdr(scn, &shdr))
                return false;
        }
        return true;
    }

    // Applies the relocation section `scn` if its target is a DWARF section libdw reads.
    template <class Class> bool apply(Elf_Scn* scn, const GElf_Shdr& shdr, size_t shstrndx) {
        GElf_Shdr target;
        Elf_Scn* targetScn = elf_getscn(elf_, shdr.sh_info);
        const char* name = targetScn && gelf_getshdr(targetScn, &target)
                               ? elf_strptr(elf_, shstrndx, target.sh_name)
                               : nullptr;
        if (!name)
            return false;
        if (dwarfSectionKind(name) == DwarfSection::NotRead)
            return true;
        if ((target.sh_flags & SHF_COMPRESSED) || std::string_view(name).starts_with(".zdebug") ||
            (shdr.sh_flags & SHF_COMPRESSED))
            return false;
        if (target.sh_type == SHT_NOBITS || target.sh_size == 0)
            return true;
        if (overlapsHeaders(elf_, ehdr_, target) || overlapsHeaders(elf_, ehdr_, shdr))
            return false;
        Elf_Data* data = elf_getdata(targetScn, nullptr);
        const Elf_Data* relocations = elf_getdata(scn, nullptr);
        if (!data || !data->d_buf || !relocations)
            return false;
        std::span<uint8_t> bytes(static_cast<uint8_t*>(data->d_buf), data->d_size);
        const bool rela = shdr.sh_type == SHT_RELA;
        uleb128_.clear();
        if constexpr (std::is_same_v<Class, ElfClass64>) {
            if (ehdr_.e_machine == EM_MIPS)
                return applyMips64(bytes, scn, rela);
        }
        if (rela) {
            for (size_t i = 0, n = entryCount<typename Class::Rela>(relocations); i < n; ++i) {
                if (!relocate<Class>(
                        bytes, Class::decode(entry<typename Class::Rela>(relocations, i)), false))
                    return false;
            }
        } else {
            for (size_t i = 0, n = entryCount<typename Class::Rel>(relocations); i < n; ++i) {
                if (!relocate<Class>(
                        bytes, Class::decode(entry<typename Class::Rel>(relocations, i)), true))
                    return false;
            }
        }
        return !uleb128_.waitingSet(); // a SET without its SUB
    }

private:
    bool applyMips64(std::span<uint8_t> bytes, Elf_Scn* scn, bool rela) {
        const Elf_Data* raw = elf_rawdata(scn, nullptr);
        if (!raw || !raw->d_buf)
            return false;
        const size_t size = (rela ? 3 : 2) * Mips64Entries::kFieldBytes;
        const auto* at = static_cast<const uint8_t*>(raw->d_buf);
        for (size_t i = 0, n = raw->d_size / size; i < n; ++i) {
            if (!relocate<ElfClass64>(bytes, Mips64Entries::decode(at + i * size, rela, swap_),
                                      !rela))
                return false;
        }
        return true;
    }

    // Stores symbol + addend at the entry's offset (RELA; a label difference adds or subtracts
    // it), or adds the symbol to what is there (REL).
    template <class Class>
    bool relocate(std::span<uint8_t> bytes, const Entry& r, bool inPlaceAddend) {
        const unsigned type = r.type;
        if (type == 0)
            return true; // R_*_NONE: left where a discarded section was referred to
        if (type >= kinds_.size() || kinds_[type].apply == Apply::LeftToLibdwfl)
            return false;
        const Apply apply = kinds_[type].apply;
        if (apply == Apply::SetUleb128 || apply == Apply::SubUleb128)
            return !inPlaceAddend && relocateUleb128<Class>(bytes, r);
        if (uleb128_.waitingSet())
            return false; // a SET's SUB comes right after it
        const unsigned width = kinds_[type].width;
        if ((apply != Apply::Store && inPlaceAddend) || r.offset > bytes.size() ||
            bytes.size() - r.offset < width)
            return false;
        auto symbol = symbolLabel<Class>(r.symbol);
        if (!symbol)
            return false;
        uint64_t value = symbol->value;
        uint8_t* at = bytes.data() + r.offset;
        if (inPlaceAddend)
            value += load(at, width, swap_);
        else if (apply == Apply::Add)
            value = load(at, width, swap_) + (value + r.addend);
        else if (apply == Apply::Subtract)
            value = load(at, width, swap_) - (value + r.addend);
        else
            value += r.addend;
        store(at, width, swap_, value);
        return true;
    }

    // Symbol `index`: the section it is defined in and its address in the layout (section and
    // address 0 for none); nothing for a symbol resolved against other modules, or special:
    // libdwfl's.
    template <class Class> std::optional<elf::Uleb128Label> symbolLabel(unsigned index) const {
        if (index == STN_UNDEF)
            return elf::Uleb128Label{};
        if (index >= entryCount<typename Class::Sym>(symbols_))
            return std::nullopt;
        auto symbol = entry<typename Class::Sym>(symbols_, index);
        const unsigned section = symbol.st_shndx;
        if (section == SHN_ABS)
            return elf::Uleb128Label{section, symbol.st_value};
        if (section == SHN_UNDEF || section >= SHN_LORESERVE || section >= addresses_.size())
            return std::nullopt;
        return elf::Uleb128Label{section, symbol.st_value + addresses_[section]};
    }

    // A SET holds the end's address until the SUB at the same offset gives the difference: the
    // address alone would not fit a field of one or two bytes.
    template <class Class> bool relocateUleb128(std::span<uint8_t> bytes, const Entry& r) {
        auto label = symbolLabel<Class>(r.symbol);
        if (!label)
            return false;
        label->value += r.addend;
        switch (uleb128_.add(r.type, r.offset, *label)) {
        case elf::Uleb128LabelPairs::Outcome::SetTaken:
            return true;
        case elf::Uleb128LabelPairs::Outcome::Paired:
            return storeUleb128(bytes, r.offset, uleb128_.difference());
        default:
            return false;
        }
    }

    Elf* elf_;
    const GElf_Ehdr& ehdr_;
    bool swap_ = false; // the file's byte order is not the host's
    const Elf_Data* symbols_ = nullptr;
    std::vector<uint64_t> addresses_;
    std::vector<KnownRelocation> kinds_; // by type, for this machine
    elf::Uleb128LabelPairs uleb128_;
};

} // namespace

bool relocateDebugSections(Elf* elf) {
    GElf_Ehdr ehdr;
    size_t shstrndx = 0;
    if (!gelf_getehdr(elf, &ehdr) || ehdr.e_type != ET_REL ||
        elf_getshdrstrndx(elf, &shstrndx) != 0)
        return false;
    Relocator relocator(elf, ehdr);
    if (!relocator.layOut())
        return false;
    const bool is64 = ehdr.e_ident[EI_CLASS] == ELFCLASS64;
    for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr shdr;
        if (!gelf_getshdr(scn, &shdr))
            return false;
        if ((shdr.sh_type != SHT_REL && shdr.sh_type != SHT_RELA) || shdr.sh_size == 0)
            continue;
        bool applied = is64 ? relocator.apply<ElfClass64>(scn, shdr, shstrndx)
                            : relocator.apply<ElfClass32>(scn, shdr, shstrndx);
        if (!applied)
            return false;
    }
    return true;
}

} // namespace btforge::dwarf
