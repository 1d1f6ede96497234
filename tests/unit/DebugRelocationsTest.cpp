// The libdw loader's own relocation of a relocatable object's DWARF sections, on objects the test
// writes with libelf into a memory file: each machine's types give symbol + addend as the ELF
// psABIs define them, in the file's byte order and class (SHT_REL's addend read in place,
// RISC-V's label differences added and subtracted), sections laid out one after another; and
// what it leaves to libdwfl (other types, undefined or common symbols, bad offsets) gives false.
#include "DebugRelocations.h"

#include <doctest/doctest.h>
#include <gelf.h>

#include <cstring>
#include <string>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

using namespace btforge::dwarf;

namespace {

// The section indexes and symbols every test object has.
enum : unsigned { kText = 1, kData, kInfo, kStr, kRelocations, kSymtab, kStrtab, kShstrtab };
enum : uint32_t { kTextSymbol = 1, kDataSymbol, kStrSymbol, kFunc, kAbsolute, kUndefined, kCommon };
constexpr uint64_t kTextAddress = 0x10000; // the layout's start, .text's alignment (16) met
constexpr uint64_t kDataAddress = 0x10028; // after .text's 0x21 bytes, aligned to 8
constexpr uint64_t kFuncValue = 0x8;
constexpr uint64_t kAbsoluteValue = 0x777;

struct Relocation {
    uint64_t offset;
    uint32_t symbol;
    uint32_t type;
    int64_t addend = 0;
    uint8_t type2 = 0; // 64-bit MIPS: a type composed with `type`
};

struct Object {
    unsigned machine = EM_X86_64;
    bool elf64 = true;
    bool bigEndian = false;
    bool inPlaceAddends = false;                            // SHT_REL
    std::vector<uint8_t> info{std::vector<uint8_t>(32, 0)}; // .debug_info as written
    std::vector<Relocation> relocations;
};

// An open memory file, and libelf's reading of it after relocation.
struct Relocated {
    int fd = -1;
    Elf* elf = nullptr;
    bool relocated = false;
    ~Relocated() {
        if (elf)
            elf_end(elf);
        if (fd >= 0)
            close(fd);
    }
    // Where the layout put section `index`, as its header now says.
    uint64_t address(unsigned index) const {
        GElf_Shdr shdr;
        REQUIRE(gelf_getshdr(elf_getscn(elf, index), &shdr));
        return shdr.sh_addr;
    }
    std::vector<uint8_t> info() const {
        Elf_Data* data = elf_getdata(elf_getscn(elf, kInfo), nullptr);
        REQUIRE(data);
        const auto* bytes = static_cast<const uint8_t*>(data->d_buf);
        return {bytes, bytes + data->d_size};
    }
};

void addSection(Elf* elf, uint32_t nameOffset, uint32_t type, uint64_t flags, uint64_t align,
                void* bytes, size_t size, Elf_Type dataType, uint32_t link = 0, uint32_t info = 0,
                size_t entsize = 0) {
    Elf_Scn* scn = elf_newscn(elf);
    REQUIRE(scn);
    Elf_Data* data = elf_newdata(scn);
    data->d_buf = bytes;
    data->d_size = size;
    data->d_type = dataType;
    data->d_align = align;
    GElf_Shdr shdr;
    REQUIRE(gelf_getshdr(scn, &shdr));
    shdr.sh_name = nameOffset;
    shdr.sh_type = type;
    shdr.sh_flags = flags;
    shdr.sh_addralign = align;
    shdr.sh_size = size;
    shdr.sh_link = link;
    shdr.sh_info = info;
    shdr.sh_entsize = entsize;
    REQUIRE(gelf_update_shdr(scn, &shdr));
}

// Writes `o` into a memory file with libelf, reopens it as the loader does and relocates it.
void relocate(const Object& o, Relocated& out) {
    elf_version(EV_CURRENT);
    out.fd = memfd_create("relocations", MFD_CLOEXEC);
    REQUIRE(out.fd >= 0);
    Elf* elf = elf_begin(out.fd, ELF_C_WRITE, nullptr);
    REQUIRE(elf);
    REQUIRE(gelf_newehdr(elf, o.elf64 ? ELFCLASS64 : ELFCLASS32));
    GElf_Ehdr ehdr;
    REQUIRE(gelf_getehdr(elf, &ehdr));
    ehdr.e_ident[EI_DATA] = o.bigEndian ? ELFDATA2MSB : ELFDATA2LSB;
    ehdr.e_machine = static_cast<GElf_Half>(o.machine);
    ehdr.e_type = ET_REL;
    ehdr.e_version = EV_CURRENT;
    ehdr.e_shstrndx = kShstrtab;
    REQUIRE(gelf_update_ehdr(elf, &ehdr));

    // The section names, each after a NUL: ".rel.debug_info" or ".rela.debug_info" for
    // kRelocations.
    std::string shstrtab(1, '\0');
    for (const char* name : {".text", ".data", ".debug_info", ".debug_str",
                             o.inPlaceAddends ? ".rel.debug_info" : ".rela.debug_info", ".symtab",
                             ".strtab", ".shstrtab"})
        shstrtab.append(name).push_back('\0');
    auto nameAt = [&](const char* name) {
        return static_cast<uint32_t>(shstrtab.find(std::string(name) + '\0', 1));
    };
    std::vector<uint8_t> text(0x21, 0x90), data(8, 0), info = o.info, str{'x', 0};
    std::string strtab("\0func\0abs\0undefined\0common\0", 27);
    const Elf_Type relocationType = o.inPlaceAddends ? ELF_T_REL : ELF_T_RELA;
    const size_t relocationSize = gelf_fsize(elf, relocationType, 1, EV_CURRENT);
    const size_t symbolSize = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
    std::vector<uint8_t> relocations(o.relocations.size() * relocationSize);
    std::vector<uint8_t> symbols(8 * symbolSize);

    addSection(elf, nameAt(".text"), SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 16, text.data(),
               text.size(), ELF_T_BYTE);
    addSection(elf, nameAt(".data"), SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, 8, data.data(),
               data.size(), ELF_T_BYTE);
    addSection(elf, nameAt(".debug_info"), SHT_PROGBITS, 0, 1, info.data(), info.size(),
               ELF_T_BYTE);
    addSection(elf, nameAt(".debug_str"), SHT_PROGBITS, 0, 1, str.data(), str.size(), ELF_T_BYTE);
    addSection(elf, nameAt(o.inPlaceAddends ? ".rel.debug_info" : ".rela.debug_info"),
               o.inPlaceAddends ? SHT_REL : SHT_RELA, SHF_INFO_LINK, o.elf64 ? 8 : 4,
               relocations.data(), relocations.size(), relocationType, kSymtab, kInfo,
               relocationSize);
    addSection(elf, nameAt(".symtab"), SHT_SYMTAB, 0, o.elf64 ? 8 : 4, symbols.data(),
               symbols.size(), ELF_T_SYM, kStrtab, kFunc, symbolSize);
    addSection(elf, nameAt(".strtab"), SHT_STRTAB, 0, 1, strtab.data(), strtab.size(), ELF_T_BYTE);
    addSection(elf, nameAt(".shstrtab"), SHT_STRTAB, 0, 1, shstrtab.data(), shstrtab.size(),
               ELF_T_BYTE);

    Elf_Data* symbolData = elf_getdata(elf_getscn(elf, kSymtab), nullptr);
    auto symbol = [&](uint32_t index, uint32_t name, unsigned char info, uint16_t section,
                      uint64_t value) {
        GElf_Sym s{};
        s.st_name = name;
        s.st_info = info;
        s.st_shndx = section;
        s.st_value = value;
        REQUIRE(gelf_update_sym(symbolData, static_cast<int>(index), &s));
    };
    symbol(0, 0, 0, SHN_UNDEF, 0);
    symbol(kTextSymbol, 0, GELF_ST_INFO(STB_LOCAL, STT_SECTION), kText, 0);
    symbol(kDataSymbol, 0, GELF_ST_INFO(STB_LOCAL, STT_SECTION), kData, 0);
    symbol(kStrSymbol, 0, GELF_ST_INFO(STB_LOCAL, STT_SECTION), kStr, 0);
    symbol(kFunc, 1, GELF_ST_INFO(STB_GLOBAL, STT_FUNC), kText, kFuncValue);
    symbol(kAbsolute, 6, GELF_ST_INFO(STB_GLOBAL, STT_NOTYPE), SHN_ABS, kAbsoluteValue);
    symbol(kUndefined, 10, GELF_ST_INFO(STB_GLOBAL, STT_NOTYPE), SHN_UNDEF, 0);
    symbol(kCommon, 20, GELF_ST_INFO(STB_GLOBAL, STT_OBJECT), SHN_COMMON, 4);

    Elf_Data* relocationData = elf_getdata(elf_getscn(elf, kRelocations), nullptr);
    for (size_t i = 0; i < o.relocations.size(); ++i) {
        const Relocation& r = o.relocations[i];
        uint64_t info64 = GELF_R_INFO(r.symbol, r.type); // libelf converts for ELFCLASS32
        // 64-bit MIPS: the symbol's 4 bytes, a special symbol, type3, type2, type, as the file
        // holds them; libelf writes the number in the file's byte order.
        if (o.machine == EM_MIPS && o.elf64)
            info64 = o.bigEndian ? uint64_t(r.symbol) << 32 | uint64_t(r.type2) << 8 | r.type
                                 : r.symbol | uint64_t(r.type2) << 48 | uint64_t(r.type) << 56;
        if (o.inPlaceAddends) {
            GElf_Rel rel{r.offset, info64};
            REQUIRE(gelf_update_rel(relocationData, static_cast<int>(i), &rel));
        } else {
            GElf_Rela rela{r.offset, info64, r.addend};
            REQUIRE(gelf_update_rela(relocationData, static_cast<int>(i), &rela));
        }
    }
    REQUIRE(elf_update(elf, ELF_C_WRITE) > 0);
    elf_end(elf);

    out.elf = elf_begin(out.fd, ELF_C_READ_MMAP_PRIVATE, nullptr);
    REQUIRE(out.elf);
    out.relocated = relocateDebugSections(out.elf);
}

// `o`'s .debug_info after relocation, which must succeed.
std::vector<uint8_t> relocatedInfo(const Object& o) {
    Relocated r;
    relocate(o, r);
    REQUIRE(r.relocated);
    return r.info();
}

uint64_t field(const std::vector<uint8_t>& bytes, size_t at, unsigned width, bool bigEndian) {
    uint64_t value = 0;
    for (unsigned i = 0; i < width; ++i)
        value |= uint64_t(bytes[at + (bigEndian ? width - 1 - i : i)]) << (8 * i);
    return value;
}

} // namespace

TEST_CASE("DebugRelocations: x86-64's absolute types store symbol + addend, little-endian") {
    Object o;
    o.relocations = {{0, kFunc, R_X86_64_64, 0x10},       {8, kStrSymbol, R_X86_64_32, 0x1234},
                     {12, kDataSymbol, R_X86_64_32S, -8}, {16, kAbsolute, R_X86_64_64, 1},
                     {24, 0, R_X86_64_32, 0x55},          {28, kTextSymbol, R_X86_64_NONE, 0x99}};
    o.info[28] = 0xab;
    Relocated r;
    relocate(o, r);
    REQUIRE(r.relocated);
    CHECK(r.address(kText) == kTextAddress);
    CHECK(r.address(kData) == kDataAddress);
    CHECK(r.address(kInfo) == 0); // not allocated: offsets into it stay offsets
    const auto info = r.info();
    CHECK(field(info, 0, 8, false) == kTextAddress + kFuncValue + 0x10);
    CHECK(field(info, 8, 4, false) == 0x1234);                             // .debug_str + 0x1234
    CHECK(field(info, 12, 4, false) == ((kDataAddress - 8) & 0xffffffff)); // truncated, as stored
    CHECK(field(info, 16, 8, false) == kAbsoluteValue + 1);
    CHECK(field(info, 24, 4, false) == 0x55); // no symbol: the addend alone
    CHECK(info[28] == 0xab);                  // R_X86_64_NONE changes nothing
}

TEST_CASE("DebugRelocations: big-endian 64-bit (s390x) and 32-bit (PowerPC) objects") {
    Object o;
    o.machine = EM_S390;
    o.bigEndian = true;
    o.relocations = {
        {0, kFunc, R_390_64, 2}, {8, kDataSymbol, R_390_32, 4}, {12, kStrSymbol, R_390_16, 3}};
    auto info = relocatedInfo(o);
    CHECK(field(info, 0, 8, true) == kTextAddress + kFuncValue + 2);
    CHECK(field(info, 8, 4, true) == kDataAddress + 4);
    CHECK(field(info, 12, 2, true) == 3);

    Object ppc;
    ppc.machine = EM_PPC;
    ppc.elf64 = false;
    ppc.bigEndian = true;
    ppc.relocations = {{4, kFunc, R_PPC_ADDR32, 0x20}, {8, kTextSymbol, R_PPC_UADDR32, 1}};
    info = relocatedInfo(ppc);
    CHECK(field(info, 4, 4, true) == kTextAddress + kFuncValue + 0x20);
    CHECK(field(info, 8, 4, true) == kTextAddress + 1);
}

TEST_CASE("DebugRelocations: SHT_REL (i386, Arm) adds the symbol to the addend in place") {
    for (unsigned machine : {unsigned(EM_386), unsigned(EM_ARM)}) {
        CAPTURE(machine);
        Object o;
        o.machine = machine;
        o.elf64 = false;
        o.inPlaceAddends = true;
        const uint32_t type = machine == EM_386 ? R_386_32 : R_ARM_ABS32;
        o.relocations = {{0, kFunc, type}, {4, kStrSymbol, type}};
        o.info[0] = 0x20; // the addends, little-endian
        o.info[4] = 0x34;
        o.info[5] = 0x12;
        const auto info = relocatedInfo(o);
        CHECK(field(info, 0, 4, false) == kTextAddress + kFuncValue + 0x20);
        CHECK(field(info, 4, 4, false) == 0x1234);
    }
}

TEST_CASE("DebugRelocations: 64-bit MIPS's own r_info in either byte order, and 32-bit MIPS") {
    for (bool bigEndian : {false, true}) {
        CAPTURE(bigEndian);
        Object o;
        o.machine = EM_MIPS;
        o.bigEndian = bigEndian;
        o.relocations = {{0, kFunc, R_MIPS_64, 0x10}, {8, kStrSymbol, R_MIPS_32, 0x1234}};
        const auto info = relocatedInfo(o);
        CHECK(field(info, 0, 8, bigEndian) == kTextAddress + kFuncValue + 0x10);
        CHECK(field(info, 8, 4, bigEndian) == 0x1234);
    }
    Object o32; // mipsel: SHT_REL, the addend in place
    o32.machine = EM_MIPS;
    o32.elf64 = false;
    o32.inPlaceAddends = true;
    o32.relocations = {{4, kDataSymbol, R_MIPS_32}};
    o32.info[4] = 0x08;
    CHECK(field(relocatedInfo(o32), 4, 4, false) == kDataAddress + 8);
}

TEST_CASE("DebugRelocations: RISC-V's label differences add to and subtract from the field") {
    Object o;
    o.machine = EM_RISCV;
    // A length as a label difference: end - start, with the field starting at 0.
    o.relocations = {{0, kFunc, R_RISCV_ADD64, 0x18}, {0, kTextSymbol, R_RISCV_SUB64, 0x4},
                     {8, kFunc, R_RISCV_ADD32, 0},    {8, kTextSymbol, R_RISCV_SUB32, 0},
                     {12, kFunc, R_RISCV_SUB16, 1},   {16, kFunc, R_RISCV_SET8, 0x3},
                     {20, kDataSymbol, R_RISCV_32, 0}};
    o.info[12] = 0x00;
    o.info[13] = 0x01; // 0x100
    const auto info = relocatedInfo(o);
    CHECK(field(info, 0, 8, false) == kFuncValue + 0x18 - 0x4);
    CHECK(field(info, 8, 4, false) == kFuncValue);
    CHECK(field(info, 12, 2, false) == ((0x100 - (kTextAddress + kFuncValue + 1)) & 0xffff));
    CHECK(info[16] == ((kTextAddress + kFuncValue + 3) & 0xff));
    CHECK(field(info, 20, 4, false) == kDataAddress);
}

TEST_CASE("DebugRelocations: RISC-V's ULEB128 label differences keep the field's length") {
    // clang's location lists: SET_ULEB128 of the end, then SUB_ULEB128 of the start at the same
    // offset (types 60 and 61), over fields it padded to the length it needed.
    constexpr uint32_t kSet = 60, kSub = 61;
    Object o;
    o.machine = EM_RISCV;
    o.relocations = {{0, kFunc, kSet, 0x10},    {0, kTextSymbol, kSub, 0x2},
                     {4, kFunc, kSet, 0x200},   {4, kTextSymbol, kSub, 0},
                     {8, kTextSymbol, kSet, 0}, {8, kTextSymbol, kSub, 0}};
    o.info[0] = 0x7f; // one byte: what the assembler wrote before the link
    o.info[4] = 0x80; // two bytes, padded
    o.info[5] = 0x00;
    o.info[8] = 0x85; // three bytes
    o.info[9] = 0x80;
    o.info[10] = 0x00;
    o.info[11] = 0x2a;
    const auto info = relocatedInfo(o);
    CHECK(info[0] == kFuncValue + 0x10 - 0x2);
    const uint64_t twoBytes = kFuncValue + 0x200;
    CHECK(info[4] == ((twoBytes & 0x7f) | 0x80));
    CHECK(info[5] == (twoBytes >> 7));
    CHECK(std::vector<uint8_t>(info.begin() + 8, info.begin() + 12) ==
          std::vector<uint8_t>{0x80, 0x80, 0x00, 0x2a}); // 0 padded to three bytes; next kept
}

TEST_CASE("DebugRelocations: what it does not apply is left to libdwfl") {
    struct Case {
        const char* what;
        Object object;
    };
    auto with = [](unsigned machine, Relocation relocation) {
        Object o;
        o.machine = machine;
        o.relocations = {{0, kTextSymbol, machine == EM_X86_64 ? R_X86_64_64 : 0u}, relocation};
        return o;
    };
    const Case cases[] = {
        {"a PC-relative type", with(EM_X86_64, {8, kFunc, R_X86_64_PC32})},
        {"an undefined symbol", with(EM_X86_64, {8, kUndefined, R_X86_64_64})},
        {"a common symbol", with(EM_X86_64, {8, kCommon, R_X86_64_64})},
        {"a symbol past the table", with(EM_X86_64, {8, 99, R_X86_64_64})},
        {"a field past the section", with(EM_X86_64, {28, kFunc, R_X86_64_64})},
        {"an offset far past it", with(EM_X86_64, {~uint64_t(0) - 2, kFunc, R_X86_64_32})},
        {"RISC-V's 6-bit difference", with(EM_RISCV, {8, kFunc, R_RISCV_SUB6})},
        {"a ULEB128 SUB without its SET", with(EM_RISCV, {8, kFunc, 61})},
        {"a ULEB128 SET without its SUB", with(EM_RISCV, {8, kFunc, 60})},
        {"a ULEB128 pair too wide for its field",
         [] {
             Object o;
             o.machine = EM_RISCV;
             o.relocations = {{8, kFunc, 60, 0x80}, {8, kTextSymbol, 61}};
             return o;
         }()},
        {"a ULEB128 pair at two offsets",
         [] {
             Object o;
             o.machine = EM_RISCV;
             o.relocations = {{8, kFunc, 60}, {9, kTextSymbol, 61}};
             return o;
         }()},
        {"a ULEB128 pair whose labels lie in two sections",
         [] {
             Object o;
             o.machine = EM_RISCV;
             o.relocations = {{8, kDataSymbol, 60}, {8, kTextSymbol, 61}};
             return o;
         }()},
        {"another type between a ULEB128 pair",
         [] {
             Object o;
             o.machine = EM_RISCV;
             o.relocations = {{8, kFunc, 60}, {16, kFunc, R_RISCV_64}, {8, kTextSymbol, 61}};
             return o;
         }()},
        {"a ULEB128 field with no end",
         [] {
             Object o;
             o.machine = EM_RISCV;
             o.info.assign(32, 0x80);
             o.relocations = {{24, kFunc, 60}, {24, kTextSymbol, 61}};
             return o;
         }()},
        {"a machine it has no table for", with(EM_SPARCV9, {8, kFunc, R_SPARC_64})},
        {"64-bit MIPS's composed types", with(EM_MIPS, {8, kFunc, R_MIPS_32, 0, R_MIPS_64})},
    };
    for (const Case& c : cases) {
        INFO(c.what);
        Relocated r;
        relocate(c.object, r);
        CHECK_FALSE(r.relocated);
    }
}
