// An ELF image held in memory, opened read-only through libelf (shared by section reading and
// section writing).
#pragma once

#include "btforge/support/Error.h"

#include <gelf.h>
#include <libelf.h>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <span>
#include <string>

namespace btforge::elf::detail {

struct ElfCloser {
    void operator()(Elf* e) const { elf_end(e); }
};
using ElfHandle = std::unique_ptr<Elf, ElfCloser>;

inline ElfHandle openImage(std::span<const std::byte> image) {
    elf_version(EV_CURRENT);
    // libelf wants a mutable pointer but only reads an image opened this way.
    return ElfHandle(
        elf_memory(const_cast<char*>(reinterpret_cast<const char*>(image.data())), image.size()));
}

// libelf's reason is added when it has one (elf_errmsg(-1) says "no error" when it has not).
inline Error elfError(const std::string& fileName, const std::string& what) {
    const int reason = elf_errno();
    return Error::badInput(fileName + ": " + what +
                           (reason ? std::string(": ") + elf_errmsg(reason) : ""));
}

// Why the section header table of `e` (opened on `image`) cannot be read, or "": libelf shows a
// table past the end of the file as no sections at all.
inline std::string sectionTableProblem(Elf* e, std::span<const std::byte> image) {
    GElf_Ehdr ehdr;
    if (!gelf_getehdr(e, &ehdr))
        return "cannot read the ELF header";
    if (ehdr.e_shoff == 0)
        return ""; // no sections
    const size_t entry = gelf_fsize(e, ELF_T_SHDR, 1, EV_CURRENT);
    if (ehdr.e_shentsize != entry)
        return "section header size " + std::to_string(ehdr.e_shentsize) + ", expected " +
               std::to_string(entry);
    // e_shnum 0: the count is in section 0 (extended numbering), which must be there to say so.
    size_t count = ehdr.e_shnum;
    if (count == 0 && elf_getshdrnum(e, &count) != 0)
        return "cannot read the section count";
    if (ehdr.e_shoff > image.size() ||
        std::max<size_t>(count, 1) > (image.size() - ehdr.e_shoff) / entry)
        return "the section header table (" + std::to_string(count) + " entries at offset " +
               std::to_string(ehdr.e_shoff) + ") extends past the end of the file";
    // Sections are found by name: a name table that is not one hides them all.
    size_t names = 0;
    GElf_Shdr header;
    if (elf_getshdrstrndx(e, &names) != 0)
        return "cannot read the section name table's index";
    // With extended numbering both numbers come from section 0, so either may be the wrong one.
    if (names >= count)
        return "the section name table's index " + std::to_string(names) + " is past the " +
               std::to_string(count) + " sections";
    if (names == 0 || !gelf_getshdr(elf_getscn(e, names), &header) || header.sh_type != SHT_STRTAB)
        return "the section name table (index " + std::to_string(names) + ") is not a string table";
    if (header.sh_offset > image.size() || header.sh_size > image.size() - header.sh_offset)
        return "the section name table extends past the end of the file";
    return "";
}

} // namespace btforge::elf::detail
