#include "LibdwUnitReader.h"

#include "DebugRelocations.h"
#include "LibdwAttributes.h"

#include "btforge/dwarf/DieKeys.h"
#include "btforge/dwarf/DwarfSections.h"
#include "btforge/support/Hex.h"
#include "btforge/support/MappedFile.h"

#include <elfutils/version.h>
#include <gelf.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <dwarf.h>
#include <fcntl.h>
#include <optional>
#include <sstream>
#include <sys/mman.h>
#include <unistd.h>

namespace btforge::dwarf {
namespace {

#ifndef ELFCOMPRESS_ZSTD
#define ELFCOMPRESS_ZSTD 2
#endif

// libelf decompresses zstd from elfutils 0.189 on.
constexpr bool kLibelfReadsZstd = _ELFUTILS_PREREQ(0, 189);

// What ends an error about what libdw cannot read and LLVM's reader can.
constexpr const char* kTryLlvm = " (try -f llvm-dwarf)";

// libdw's and libdwfl's last error messages are null when they recorded none.
std::string orUnknown(const char* message) {
    return message ? message : "unknown error";
}

// libdwfl's interface has no error codes: this has been its message for a machine it has no
// backend for, and so cannot relocate objects of, since its first releases.
bool isUnknownMachine(std::string_view message) {
    return message == "no support library found for machine";
}

std::string elfutilsVersion() {
    return "0." + std::to_string(_ELFUTILS_VERSION % 1000);
}

// The name of `scn`, its header read into `shdr`; empty when either cannot be read.
std::string_view sectionHeader(Elf* elf, size_t shstrndx, Elf_Scn* scn, GElf_Shdr& shdr) {
    const char* name = gelf_getshdr(scn, &shdr) ? elf_strptr(elf, shstrndx, shdr.sh_name) : nullptr;
    return name ? std::string_view(name) : std::string_view();
}

Elf_Scn* findSection(Elf* elf, std::string_view name) {
    size_t shstrndx = 0;
    if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0)
        return nullptr;
    for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr shdr;
        const std::string_view candidate = sectionHeader(elf, shstrndx, scn, shdr);
        if (candidate.empty())
            continue;
        if (candidate == name ||
            (candidate.starts_with(".z") && candidate.substr(2) == name.substr(1)))
            return scn;
    }
    return nullptr;
}

// A section as libdw reads it (decompressed), by name (or its .zdebug_ form); null if absent.
Elf_Data* sectionData(Elf* elf, std::string_view name) {
    Elf_Scn* scn = findSection(elf, name);
    return scn ? elf_getdata(scn, nullptr) : nullptr;
}

// What libelf could not decompress, with what the header claims (libelf seldom says why).
std::string decompressionProblem(Elf_Scn* scn, const GElf_Shdr& shdr) {
    const int reason = elf_errno();
    std::string problem = ".debug_info cannot be decompressed";
    bool zstd = false;
    if (GElf_Chdr chdr; gelf_getchdr(scn, &chdr)) {
        problem += " (compression type " + std::to_string(chdr.ch_type) + ", " +
                   std::to_string(chdr.ch_size) + " bytes claimed from " +
                   std::to_string(shdr.sh_size) + ")";
        zstd = chdr.ch_type == ELFCOMPRESS_ZSTD;
    }
    if (reason)
        problem += ": " + orUnknown(elf_errmsg(reason));
    return zstd ? problem + kTryLlvm : problem; // a libelf built without zstd
}

// Why the compressed .debug_info of a file cannot be read (libelf knows zlib, zstd only from
// elfutils 0.189 on), or "" when it is not compressed or decompresses.
std::string compressionProblem(int fd) {
    std::string problem;
    if (Elf* elf = elf_begin(fd, ELF_C_READ, nullptr)) {
        Elf_Scn* scn = findSection(elf, ".debug_info");
        GElf_Shdr shdr;
        if (scn && gelf_getshdr(scn, &shdr) && (shdr.sh_flags & SHF_COMPRESSED) &&
            elf_compress(scn, 0, 0) < 0)
            problem = decompressionProblem(scn, shdr);
        elf_end(elf);
    }
    return problem;
}

// libdwfl looks for separate debug files and alt files with this callback: it finds none, so
// that no path the input names is opened (AltFile finds the alt file).
int findNoDebugInfo(Dwfl_Module*, void**, const char*, Dwarf_Addr, const char*, const char*,
                    GElf_Word, char**) {
    return -1;
}

} // namespace

namespace {

// The allocated sections of `elf` at the addresses its headers give: the linker's, or the layout
// libdwfl or DebugRelocations wrote into a relocatable file's headers. Not libdwfl's own lookup
// by address, which answers an empty section sharing an address with the next one, and
// relocates the section it answers.
SectionAddresses allocatedSections(Elf* elf) {
    SectionAddresses sections;
    for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr shdr;
        if (gelf_getshdr(scn, &shdr) && (shdr.sh_flags & SHF_ALLOC))
            sections.add(shdr.sh_addr, shdr.sh_size, static_cast<uint32_t>(elf_ndxscn(scn)));
    }
    sections.sort();
    return sections;
}

// Gives back the resident pages of the read-only file mapping in [begin, end).
void giveBack(const char* begin, const char* end) {
    dropFilePages(std::as_bytes(std::span(begin, end)));
}

} // namespace

Expected<std::unique_ptr<LibdwUnitReader>> LibdwUnitReader::open(std::shared_ptr<MappedFile> file,
                                                                 const std::string& altPath) {
    std::unique_ptr<LibdwUnitReader> reader(new LibdwUnitReader(std::move(file)));
    elf_version(EV_CURRENT);
    if (auto surveyed = reader->surveySections(); !surveyed)
        return std::move(surveyed).error();
    if (!reader->openDirect()) {
        if (auto opened = reader->openThroughDwfl(); !opened)
            return std::move(opened).error();
    }
    if (auto units = reader->enumerateUnits(altPath); !units)
        return std::move(units).error();
    // Test hook (tests/integration/hostile-files.sh): the input shrinks here, between reading
    // the unit headers and the units, as when another process truncates it during the run.
    if (const char* size = std::getenv("BTFORGE_TEST_TRUNCATE_INPUT"))
        (void)::truncate(reader->path_.c_str(), std::strtoll(size, nullptr, 10));
    reader->findLocationSections();
    return reader;
}

namespace {

// What is wrong with a compressed section libdw would read, or "": libelf allocates the size
// its header claims, and libdw takes a section it cannot decompress for missing, reading on
// without its strings or lists (or, for a .zdebug_ section, its compressed bytes as DWARF).
std::string compressedSectionProblem(Elf* elf, Elf_Scn* scn, const GElf_Shdr& shdr,
                                     std::string_view name) {
    const std::string where = "section " + std::string(name);
    if (shdr.sh_flags & SHF_COMPRESSED) {
        GElf_Chdr chdr;
        const size_t header = gelf_fsize(elf, ELF_T_CHDR, 1, EV_CURRENT);
        if (!gelf_getchdr(scn, &chdr) || shdr.sh_size < header)
            return {}; // decompressionProblem says why when libelf fails
        if (chdr.ch_type == ELFCOMPRESS_ZSTD && !kLibelfReadsZstd)
            return where + " is compressed with zstd, which libelf of elfutils " +
                   elfutilsVersion() + " cannot decompress" + kTryLlvm;
        if (chdr.ch_type != ELFCOMPRESS_ZLIB && chdr.ch_type != ELFCOMPRESS_ZSTD)
            return where + ": unknown compression type " + std::to_string(chdr.ch_type);
        std::string problem = claimedSizeProblem(chdr.ch_size, shdr.sh_size - header,
                                                 chdr.ch_type == ELFCOMPRESS_ZSTD);
        return problem.empty() ? problem : where + ": " + problem;
    }
    if (!name.starts_with(".zdebug_"))
        return {};
    Elf_Data* raw = elf_rawdata(scn, nullptr);
    if (!raw || !raw->d_buf)
        return {};
    std::span<const uint8_t> bytes(static_cast<const uint8_t*>(raw->d_buf), raw->d_size);
    auto claimed = gnuCompressedSize(bytes);
    if (!claimed)
        return {}; // read as it is, as libdw does
    std::string problem = claimedSizeProblem(*claimed, bytes.size() - kGnuCompressedHeader, false);
    return problem.empty() ? problem : where + ": " + problem;
}

} // namespace

Expected<void> LibdwUnitReader::surveySections() {
    Elf* elf = elf_begin(input_->descriptor(), ELF_C_READ_MMAP, nullptr);
    size_t shstrndx = 0;
    if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0) {
        if (elf)
            elf_end(elf);
        return {}; // opening it says what is wrong
    }
    DwarfSectionCount count;
    bool grouped = false;
    std::string problem;
    for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr shdr;
        const std::string_view name = sectionHeader(elf, shstrndx, scn, shdr);
        if (name.empty())
            continue;
        count.add(name);
        grouped = grouped ||
                  (dwarfSectionKind(name) != DwarfSection::NotRead && (shdr.sh_flags & SHF_GROUP));
        if (problem.empty() && dwarfSectionKind(name) != DwarfSection::NotRead &&
            shdr.sh_type != SHT_NOBITS)
            problem = compressedSectionProblem(elf, scn, shdr, name);
    }
    elf_end(elf);
    if (problem.empty())
        problem = count.problem();
    if (!problem.empty())
        return Error::badInput(path_ + ": " + problem);
    join_ = count.repeats() || grouped;
    return {};
}

bool LibdwUnitReader::openDirect() {
    // libdw reads one section of a name, none in a group: such files are joined on the libdwfl
    // path.
    if (join_)
        return false;
    fd_ = ::fcntl(input_->descriptor(), F_DUPFD_CLOEXEC, 0);
    if (fd_ < 0)
        return false;
    elf_ = elf_begin(fd_, ELF_C_READ_MMAP, nullptr);
    GElf_Ehdr ehdr;
    size_t shstrndx = 0;
    if (!elf_ || !gelf_getehdr(elf_, &ehdr) || elf_getshdrstrndx(elf_, &shstrndx) != 0)
        return false;
    // A relocatable object's DWARF is relocated here, in a private writable mapping (written
    // pages become copies), or else by libdwfl.
    const bool relocated = ehdr.e_type == ET_REL;
    if (relocated) {
        elf_end(elf_);
        elf_ = elf_begin(fd_, ELF_C_READ_MMAP_PRIVATE, nullptr);
        if (!elf_ || !relocateDebugSections(elf_))
            return false;
    }
    size_t fileSize = 0;
    const char* file = elf_rawfile(elf_, &fileSize);
    for (Elf_Scn* scn = elf_nextscn(elf_, nullptr); scn; scn = elf_nextscn(elf_, scn)) {
        GElf_Shdr shdr;
        if (!gelf_getshdr(scn, &shdr))
            return false;
        const char* name = elf_strptr(elf_, shstrndx, shdr.sh_name);
        if (!name || std::string_view(name) != ".debug_info" || (shdr.sh_flags & SHF_COMPRESSED))
            continue;
        // Pages may be dropped only where the data is the file mapping itself, never a copy.
        Elf_Data* data = elf_rawdata(scn, nullptr);
        if (file && data && data->d_buf >= file && data->d_size <= fileSize &&
            static_cast<const char*>(data->d_buf) + data->d_size <= file + fileSize) {
            info_ = static_cast<const char*>(data->d_buf);
            infoSize_ = data->d_size;
        }
    }
    sections_ = allocatedSections(elf_);
    dwarf_ = info_ ? dwarf_begin_elf(elf_, DWARF_C_READ, nullptr) : nullptr;
    if (dwarf_ && !relocated) {
        file_ = file;
        fileSize_ = fileSize;
    }
    if (relocated)
        info_ = nullptr; // dropping relocated pages would read them back unrelocated
    return dwarf_ != nullptr;
}

Expected<void> LibdwUnitReader::openThroughDwfl() {
    if (dwarf_)
        dwarf_end(dwarf_);
    if (elf_)
        elf_end(elf_);
    dwarf_ = nullptr;
    elf_ = nullptr;
    info_ = nullptr;
    file_ = nullptr;
    sections_ = {};
    if (fd_ >= 0)
        ::close(fd_);
    fd_ = -1;
    static const Dwfl_Callbacks callbacks = {dwfl_build_id_find_elf, findNoDebugInfo,
                                             dwfl_offline_section_address, nullptr};
    dwfl_ = dwfl_begin(&callbacks);
    if (!dwfl_)
        return Error::io(path_ + ": libdwfl: " + orUnknown(dwfl_errmsg(-1)));
    // The host's descriptor, never the path: libdwfl takes the copy when reporting succeeds.
    int fd = ::fcntl(input_->descriptor(), F_DUPFD_CLOEXEC, 0);
    if (fd < 0)
        return Error::io(path_ + ": cannot open: " + std::strerror(errno));
    module_ = dwfl_report_offline(dwfl_, path_.c_str(), path_.c_str(), fd);
    if (!module_)
        ::close(fd);
    dwfl_report_end(dwfl_, nullptr, nullptr);
    Dwarf_Addr bias = 0; // where libdwfl placed the file: in its section headers' addresses too
    dwarf_ = module_ ? dwfl_module_getdwarf(module_, &bias) : nullptr;
    if (!dwarf_) {
        std::string why = orUnknown(dwfl_errmsg(-1));
        if (isUnknownMachine(why)) {
            Dwarf_Addr ignored = 0;
            Elf* elf = module_ ? dwfl_module_getelf(module_, &ignored) : nullptr;
            GElf_Ehdr ehdr;
            std::string machine = elf && gelf_getehdr(elf, &ehdr)
                                      ? " of ELF machine " + std::to_string(ehdr.e_machine)
                                      : "";
            return Error::badInput(path_ + ": libdw cannot relocate the DWARF" + machine + " (" +
                                   why + ")" + kTryLlvm);
        }
        if (std::string compression = compressionProblem(input_->descriptor());
            !compression.empty())
            why = compression; // libdwfl only says it found no DWARF
        return Error::badInput(path_ + ": cannot read its DWARF (" + why + ")");
    }
    Elf* elf = dwarf_getelf(dwarf_); // relocated by now
    if (auto relocated = checkRelocated(elf); !relocated)
        return relocated;
    sections_ = allocatedSections(elf);
    if (join_)
        return joinSections(elf);
    return {};
}

Expected<void> LibdwUnitReader::checkRelocated(Elf* elf) const {
    GElf_Ehdr ehdr;
    size_t shstrndx = 0;
    // libdwfl relocates only ET_REL files (a linked file's relocation sections, --emit-relocs,
    // are applied already).
    if (!elf || !gelf_getehdr(elf, &ehdr) || ehdr.e_type != ET_REL ||
        elf_getshdrstrndx(elf, &shstrndx) != 0)
        return {};
    for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr shdr;
        GElf_Shdr target;
        Elf_Scn* targetScn = nullptr;
        if (!gelf_getshdr(scn, &shdr) || (shdr.sh_type != SHT_REL && shdr.sh_type != SHT_RELA) ||
            !(targetScn = elf_getscn(elf, shdr.sh_info)) || !gelf_getshdr(targetScn, &target))
            continue;
        const char* targetName = elf_strptr(elf, shstrndx, target.sh_name);
        if (!targetName || dwarfSectionKind(targetName) == DwarfSection::NotRead ||
            target.sh_type == SHT_NOBITS ||
            target.sh_size == 0) // libdwfl leaves those alone: nothing to relocate
            continue;
        // libdwfl took out of the section what it applied. What is left has an undefined symbol
        // (which stays unrelocated with LLVM too), or a type the machine's backend does not know.
        Elf_Data* relocations = elf_getdata(scn, nullptr);
        Elf_Scn* symtab = elf_getscn(elf, shdr.sh_link);
        Elf_Data* symbols = symtab ? elf_getdata(symtab, nullptr) : nullptr;
        const bool rela = shdr.sh_type == SHT_RELA;
        const size_t entry = gelf_fsize(elf, rela ? ELF_T_RELA : ELF_T_REL, 1, EV_CURRENT);
        if (!relocations || !symbols || entry == 0)
            continue;
        for (size_t i = 0; i < relocations->d_size / entry; ++i) {
            GElf_Rela r{};
            GElf_Rel rel;
            if (rela ? !gelf_getrela(relocations, static_cast<int>(i), &r)
                     : !gelf_getrel(relocations, static_cast<int>(i), &rel))
                break;
            if (!rela)
                r.r_info = rel.r_info;
            // Refused where it points into a DWARF section (a string, abbreviation or list
            // offset) and applying it would change the value: left, the value is the addend (REL)
            // or 0 (RELA); applied, it is the symbol's value plus the addend. Addresses (symbols
            // of allocated sections) are read as libdwfl leaves them, as they always were: BPF
            // objects have ABS64 relocations libdwfl 0.188 does not apply, RISC-V objects ULEB128
            // ones in location lists.
            GElf_Sym symbol;
            Elf_Scn* symbolScn = nullptr;
            GElf_Shdr symbolShdr;
            if (!gelf_getsym(symbols, static_cast<int>(GELF_R_SYM(r.r_info)), &symbol) ||
                symbol.st_shndx == SHN_UNDEF || symbol.st_shndx >= SHN_LORESERVE ||
                !(symbolScn = elf_getscn(elf, symbol.st_shndx)) ||
                !gelf_getshdr(symbolScn, &symbolShdr) || (symbolShdr.sh_flags & SHF_ALLOC) ||
                symbol.st_value + static_cast<uint64_t>(rela ? r.r_addend : 0) == 0)
                continue;
            const char* name = elf_strptr(elf, shstrndx, shdr.sh_name);
            return Error::badInput(path_ + ": libdw cannot apply relocation type " +
                                   std::to_string(GELF_R_TYPE(r.r_info)) + " of ELF machine " +
                                   std::to_string(ehdr.e_machine) + " (" +
                                   (name ? name : "a relocation section") + ")" + kTryLlvm);
        }
    }
    return {};
}

Expected<void> LibdwUnitReader::joinSections(Elf* elf) {
    GElf_Ehdr ehdr;
    size_t shstrndx = 0;
    if (!gelf_getehdr(elf, &ehdr) || elf_getshdrstrndx(elf, &shstrndx) != 0)
        return Error::badInput(path_ + ": " + orUnknown(elf_errmsg(-1)));
    // The sections of each name, in section order: their data as libdwfl left it (relocated).
    struct Joined {
        std::string name;
        std::vector<const Elf_Data*> parts;
    };
    std::vector<Joined> joined;
    for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr shdr;
        const std::string_view name = sectionHeader(elf, shstrndx, scn, shdr);
        if (name.empty() || shdr.sh_type == SHT_NOBITS)
            continue;
        if (dwarfSectionKind(name) == DwarfSection::NotRead && name != ".gnu_debugaltlink")
            continue;
        // libdw and libdwfl decompressed the sections they read or relocated, not the others.
        // A .zdebug_ section keeps its name decompressed: its bytes tell.
        bool decompressed = true;
        if (name.starts_with(".zdebug_")) {
            Elf_Data* raw = elf_rawdata(scn, nullptr);
            if (raw && raw->d_size >= 4 && std::memcmp(raw->d_buf, "ZLIB", 4) == 0)
                decompressed = elf_compress_gnu(scn, 0, 0) >= 0;
        } else if (shdr.sh_flags & SHF_COMPRESSED) {
            decompressed = elf_compress(scn, 0, 0) >= 0;
        }
        Elf_Data* data = decompressed ? elf_getdata(scn, nullptr) : nullptr;
        if (!data || (data->d_size && !data->d_buf))
            return Error::badInput(path_ + ": section " + std::string(name) + " (" +
                                   std::to_string(elf_ndxscn(scn)) +
                                   ") cannot be read: " + orUnknown(elf_errmsg(-1)));
        const std::string canonical = dwarfSectionName(name);
        auto it = std::find_if(joined.begin(), joined.end(),
                               [&](const Joined& j) { return j.name == canonical; });
        if (it == joined.end())
            it = joined.insert(joined.end(), {canonical, {}});
        it->parts.push_back(data);
    }

    // Written by libelf (in the input's class and byte order) into an anonymous file, and read
    // back as libdw reads any file.
    auto failure = [&](const char* what) {
        return Error::io(path_ + ": cannot join its DWARF sections (" + what +
                         "): " + orUnknown(elf_errmsg(-1)));
    };
    joinedFd_ = ::memfd_create("btforge-joined-dwarf", MFD_CLOEXEC);
    if (joinedFd_ < 0)
        return Error::io(path_ + ": cannot join its DWARF sections: " + std::strerror(errno));
    Elf* out = elf_begin(joinedFd_, ELF_C_WRITE, nullptr);
    if (!out || !gelf_newehdr(out, gelf_getclass(elf))) {
        if (out)
            elf_end(out);
        return failure("header");
    }
    // The name table is made first: data given to libelf must not move until it is written.
    std::string names(1, '\0');
    std::vector<size_t> nameAt;
    for (const Joined& j : joined) {
        nameAt.push_back(names.size());
        names += j.name;
        names.push_back('\0');
    }
    const size_t tableNameAt = names.size();
    names += ".shstrtab";
    names.push_back('\0');
    Elf_Data table{};
    table.d_buf = names.data();
    table.d_size = names.size();
    const Elf_Data* const tableParts[] = {&table};

    auto addSection = [&](size_t nameOffset, uint32_t type,
                          std::span<const Elf_Data* const> parts) {
        Elf_Scn* scn = elf_newscn(out);
        if (!scn)
            return false;
        for (const Elf_Data* part : parts) {
            Elf_Data* data = elf_newdata(scn);
            if (!data)
                return false;
            data->d_buf = part->d_buf;
            data->d_size = part->d_size;
            data->d_type = ELF_T_BYTE;
            data->d_align = 1; // no padding between the joined sections
            data->d_version = EV_CURRENT;
        }
        GElf_Shdr shdr{};
        shdr.sh_name = static_cast<GElf_Word>(nameOffset);
        shdr.sh_type = type;
        shdr.sh_addralign = 1;
        return gelf_update_shdr(scn, &shdr) != 0;
    };
    bool written = true;
    for (size_t i = 0; i < joined.size() && written; ++i)
        written = addSection(nameAt[i], SHT_PROGBITS, joined[i].parts);
    written = written && addSection(tableNameAt, SHT_STRTAB, tableParts);
    const size_t nameSection = joined.size() + 1;
    GElf_Ehdr header{};
    if (written) {
        std::memcpy(header.e_ident, ehdr.e_ident, EI_NIDENT);
        header.e_type = ehdr.e_type;
        header.e_machine = ehdr.e_machine;
        header.e_version = EV_CURRENT;
        header.e_shstrndx = static_cast<GElf_Half>(nameSection);
        written = gelf_update_ehdr(out, &header) != 0 && elf_update(out, ELF_C_WRITE) >= 0;
    }
    elf_end(out);
    if (!written)
        return failure("writing");
    joinedElf_ = elf_begin(joinedFd_, ELF_C_READ_MMAP, nullptr);
    joined_ = joinedElf_ ? dwarf_begin_elf(joinedElf_, DWARF_C_READ, nullptr) : nullptr;
    if (!joined_)
        return Error::badInput(path_ + ": cannot read its joined DWARF sections (" +
                               orUnknown(dwarf_errmsg(-1)) + ")");
    dwarf_ = joined_;
    return {};
}

void LibdwUnitReader::findLocationSections() {
    // After libdw opened the file: its sections are decompressed and relocated by then.
    Elf* elf = dwarf_getelf(dwarf_);
    auto bytes = [&](std::string_view name) -> std::span<const uint8_t> {
        Elf_Scn* scn = findSection(elf, name);
        Elf_Data* data = scn ? elf_getdata(scn, nullptr) : nullptr;
        if (!data || !data->d_buf)
            return {};
        return {static_cast<const uint8_t*>(data->d_buf), data->d_size};
    };
    loclists_ = bytes(".debug_loclists");
    loc_ = bytes(".debug_loc");
}

Expected<void> LibdwUnitReader::enumerateUnits(const std::string& altPath) {
    // dwz -m moves what several files share into one they name in .gnu_debugaltlink: its
    // partial units are read like this file's own. It is attached before libdw reads a unit,
    // which could make libdw look for it itself.
    auto alt = AltFile::attach(dwarf_, path_, altPath);
    if (!alt)
        return std::move(alt).error();
    alt_ = std::move(*alt);
    // Enumerating once, on this thread, lets libdw index every unit before workers share it.
    if (auto added = addUnits(dwarf_); !added)
        return added;
    if (units_.empty())
        return Error::badInput(path_ + ": .debug_info has no units");
    if (alt_) {
        if (auto added = addUnits(dwarf_getalt(dwarf_)); !added)
            return added;
    }
    // Reading every unit header faulted in (with the kernel's fault-around) much of the section;
    // workers bring back only the unit they read.
    dropPages(0, infoSize_);
    return {};
}

Expected<void> LibdwUnitReader::addUnits(Dwarf* dwarf) {
    Elf* elf = dwarf_getelf(dwarf);
    Elf_Data* info = sectionData(elf, ".debug_info");
    Elf_Data* types = sectionData(elf, ".debug_types");
    auto bytes = [](Elf_Data* data) -> std::span<const uint8_t> {
        if (!data || !data->d_buf)
            return {};
        return {static_cast<const uint8_t*>(data->d_buf), data->d_size};
    };
    std::span<const uint8_t> abbreviations = bytes(sectionData(elf, ".debug_abbrev"));
    std::span<const uint8_t> strings = bytes(sectionData(elf, ".debug_str"));
    if (const char* ident = elf_getident(elf, nullptr))
        bigEndian_ = ident[EI_DATA] == ELFDATA2MSB;
    const size_t first = units_.size();
    uint64_t keptFrom = 0; // of .debug_info: where the pages reading headers faulted in start
    Dwarf_CU* cu = nullptr;
    Dwarf_CU* next = nullptr;
    Dwarf_Half version = 0;
    uint8_t unitType = 0;
    Dwarf_Die unitDie;
    int rc;
    // No split unit is asked for: libdw would open the .dwo file a skeleton unit names, any path.
    while ((rc = dwarf_get_units(dwarf, cu, &next, &version, &unitType, &unitDie, nullptr)) == 0) {
        uint8_t addressSize = 8;
        uint8_t offsetSize = 0;
        dwarf_cu_info(next, nullptr, nullptr, nullptr, nullptr, nullptr, &addressSize, &offsetSize);
        Dwarf_Off offset = dwarf_dieoffset(&unitDie);
        Dwarf_Off headerOffset = offset - dwarf_cuoffset(&unitDie);
        DieOffset bias = biasOf(dwarf_, next);
        // libdw reads a unit as far as its header says, even past the end of the section (a file
        // cut short): such a unit is refused here, by its offset, rather than read in part.
        bool inTypes = bias == kTypesBias;
        Elf_Data* section = inTypes ? types : info;
        uint64_t signature = 0;
        Dwarf_Off end = 0;
        Dwarf_Off abbreviationsOffset = 0;
        Dwarf_Off typeOffset = 0; // a type unit's (DWARF 4's in .debug_types, DWARF 5's)
        if (!section ||
            dwarf_next_unit(dwarf, headerOffset, &end, nullptr, nullptr, &abbreviationsOffset,
                            nullptr, nullptr, inTypes ? &signature : nullptr, &typeOffset) != 0 ||
            end > section->d_size)
            return Error::badInput(path_ + ": unit " + hex(headerOffset) + sectionOfBias(bias) +
                                   ": its length runs past the end of the section");
        // The DIEs are read from the section libdw has: the unit DIE must be in it (libdw gives
        // none for a unit type it does not know).
        const auto* sectionStart = static_cast<const uint8_t*>(section->d_buf);
        if (!sectionStart || offset >= end || unitDie.addr != sectionStart + offset)
            return Error::badInput(path_ + ": unit " + hex(headerOffset) + sectionOfBias(bias) +
                                   ": its unit DIE cannot be read (unit type " + hex(unitType) +
                                   ")");
        if (addressSize != 4 && addressSize != 8)
            return Error::badInput(path_ + ": unit " + hex(headerOffset) + sectionOfBias(bias) +
                                   ": address size " + std::to_string(addressSize) +
                                   " is neither 4 nor 8");
        // libdw calls DWARF 4's GNU split units (DW_AT_GNU_dwo_id) skeletons too.
        if (unitType == DW_UT_skeleton) {
            Dwarf_Attribute attr;
            const char* dwo = nullptr;
            for (unsigned name : {unsigned(DW_AT_dwo_name), unsigned(DW_AT_GNU_dwo_name)})
                if (!dwo && dwarf_attr(&unitDie, name, &attr))
                    dwo = dwarf_formstring(&attr);
            return Error::badInput(path_ + ": unit " + hex(headerOffset) + sectionOfBias(bias) +
                                   ": " + skeletonUnitProblem(dwo ? dwo : ""));
        }
        // libdw follows a type unit's type_offset wherever it points: into the next unit, a
        // signature would resolve to a type of the wrong unit.
        const bool typeUnit =
            inTypes || (version >= 5 && (unitType == DW_UT_type || unitType == DW_UT_split_type));
        if (typeUnit && (typeOffset < offset - headerOffset || typeOffset >= end - headerOffset))
            return Error::badInput(
                path_ + ": unit " + hex(headerOffset) + sectionOfBias(bias) + ": type_offset " +
                hex(typeOffset) + " does not point into the unit's DIEs (" +
                hex(offset - headerOffset) + " to " + hex(end - headerOffset) + ")");
        units_.push_back({unitDie, offset, headerOffset, end, version, unitType, addressSize,
                          offsetSize, bias, sectionStart, abbreviations, abbreviationsOffset,
                          strings});
        // Each header read faults in the pages around it: given back as the headers go by, they
        // do not add up (vmlinux: to 118 MB, the run's peak).
        if (bias == 0 && headerOffset - keptFrom >= kBytesBetweenSweeps) {
            dropPages(keptFrom, headerOffset);
            keptFrom = headerOffset;
        }
        cu = next;
    }
    if (rc < 0) {
        const Unit* last = units_.size() > first ? &units_.back() : nullptr;
        std::string where =
            last ? "the unit after unit " + hex(last->headerOffset) + sectionOfBias(last->bias)
                 : "unit 0x0";
        // libdw gives no reason when a section libelf could not decompress looks missing.
        const int reason = dwarf_errno();
        std::string why =
            reason ? orUnknown(dwarf_errmsg(reason)) : compressionProblem(input_->descriptor());
        return Error::badInput(path_ + ": " + where + ": " + (why.empty() ? "unreadable" : why));
    }
    return {};
}

LibdwUnitReader::~LibdwUnitReader() {
    if (joined_)
        dwarf_end(joined_);
    if (joinedElf_)
        elf_end(joinedElf_);
    if (joinedFd_ >= 0)
        ::close(joinedFd_);
    if (dwfl_) {
        dwfl_end(dwfl_); // owns the Dwarf and the descriptor
        return;
    }
    if (dwarf_)
        dwarf_end(dwarf_);
    if (elf_)
        elf_end(elf_);
    if (fd_ >= 0)
        ::close(fd_);
}

void LibdwUnitReader::releaseUnit(size_t index) {
    // A unit's DIEs are decoded; the kernel's 164 MB of .debug_info need not all stay resident.
    // Type units live in another section: only .debug_info units are released.
    if (units_[index].unitType == DW_UT_type || units_[index].bias != 0)
        return;
    bool nextInInfo = index + 1 < units_.size() && units_[index + 1].bias == 0;
    uint64_t end = nextInInfo ? units_[index + 1].headerOffset : infoSize_;
    dropPages(units_[index].headerOffset, end);
}

void LibdwUnitReader::giveBackMapped(const uint8_t* begin, const uint8_t* end) const {
    // Only the file mapping: decompressed sections are copies on the heap.
    const auto* file = reinterpret_cast<const uint8_t*>(file_);
    if (file && begin >= file && end <= file + fileSize_ && begin < end)
        giveBack(reinterpret_cast<const char*>(begin), reinterpret_cast<const char*>(end));
}

void LibdwUnitReader::dropPages(uint64_t begin, uint64_t end) const {
    if (!info_ || end <= begin || end > infoSize_)
        return;
    giveBack(info_ + begin, info_ + end);
}

std::optional<SectionOffset> LibdwUnitReader::locate(uint64_t dwarfAddress) const {
    return sections_.locate(dwarfAddress);
}

bool LibdwUnitReader::isPartialUnit(size_t index) const {
    uint8_t type = units_[index].unitType;
    return type == DW_UT_partial || type == DW_UT_type || type == DW_UT_split_type;
}

} // namespace btforge::dwarf
