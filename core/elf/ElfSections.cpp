#include "btforge/elf/ElfSections.h"

#include <cstring>
#include <gelf.h>
#include <libelf.h>
#include <memory>

namespace btforge::elf {
namespace {

struct ElfCloser {
    void operator()(Elf* e) const { elf_end(e); }
};

Error elfError(const std::string& fileName, const std::string& what) {
    return Error::badInput(fileName + ": " + what + ": " + elf_errmsg(-1));
}

} // namespace

bool looksLikeElf(std::span<const std::byte> head) {
    return head.size() >= 4 && std::memcmp(head.data(), "\x7f"
                                                         "ELF",
                                           4) == 0;
}

Expected<std::optional<std::vector<std::byte>>>
readSection(std::span<const std::byte> image, const std::string& fileName,
            const std::string& sectionName) {
    elf_version(EV_CURRENT);
    // libelf wants a mutable pointer but ELF_C_READ_MMAP-style reads of memory never write.
    std::unique_ptr<Elf, ElfCloser> e(
        elf_memory(const_cast<char*>(reinterpret_cast<const char*>(image.data())), image.size()));
    if (!e || elf_kind(e.get()) != ELF_K_ELF)
        return elfError(fileName, "not a valid ELF file");
    size_t shstrndx = 0;
    if (elf_getshdrstrndx(e.get(), &shstrndx) != 0)
        return elfError(fileName, "cannot read the section name table");
    for (Elf_Scn* scn = elf_nextscn(e.get(), nullptr); scn; scn = elf_nextscn(e.get(), scn)) {
        GElf_Shdr shdr;
        if (!gelf_getshdr(scn, &shdr))
            return elfError(fileName, "cannot read a section header");
        const char* name = elf_strptr(e.get(), shstrndx, shdr.sh_name);
        if (!name || sectionName != name)
            continue;
        if (shdr.sh_type == SHT_NOBITS)
            return std::optional<std::vector<std::byte>>(std::vector<std::byte>{});
        if (shdr.sh_offset > image.size() || shdr.sh_size > image.size() - shdr.sh_offset)
            return Error::badInput(fileName + ": section " + sectionName +
                                   " extends past the end of the file");
        Elf_Data* data = elf_rawdata(scn, nullptr);
        if (!data)
            return elfError(fileName, "cannot read section " + sectionName);
        auto* begin = static_cast<const std::byte*>(data->d_buf);
        return std::optional<std::vector<std::byte>>(
            std::vector<std::byte>(begin, begin + data->d_size));
    }
    return std::optional<std::vector<std::byte>>();
}

} // namespace btforge::elf
