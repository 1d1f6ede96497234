#include "btforge/elf/ElfSections.h"

#include "ElfImage.h"

#include <cstring>

namespace btforge::elf {

using detail::elfError;
using detail::openImage;

bool looksLikeElf(std::span<const std::byte> head) {
    return head.size() >= 4 && std::memcmp(head.data(),
                                           "\x7f"
                                           "ELF",
                                           4) == 0;
}

namespace {

// Calls visit(scn, shdr, name) for each section until it returns true; false if none did.
template <typename Visit>
Expected<bool> findSection(Elf* e, std::span<const std::byte> image, const std::string& fileName,
                           Visit&& visit) {
    if (std::string problem = detail::sectionTableProblem(e, image); !problem.empty())
        return Error::badInput(fileName + ": " + problem);
    size_t shstrndx = 0;
    if (elf_getshdrstrndx(e, &shstrndx) != 0)
        return elfError(fileName, "cannot read the section name table");
    for (Elf_Scn* scn = elf_nextscn(e, nullptr); scn; scn = elf_nextscn(e, scn)) {
        GElf_Shdr shdr;
        if (!gelf_getshdr(scn, &shdr))
            return elfError(fileName, "cannot read a section header");
        const char* name = elf_strptr(e, shstrndx, shdr.sh_name);
        if (name && visit(scn, shdr, std::string_view(name)))
            return true;
    }
    return false;
}

} // namespace

bool hasSection(std::span<const std::byte> image, const std::string& sectionName) {
    auto e = openImage(image);
    if (!e || elf_kind(e.get()) != ELF_K_ELF)
        return false;
    auto found =
        findSection(e.get(), image, "", [&](Elf_Scn*, const GElf_Shdr&, std::string_view name) {
            return name == sectionName;
        });
    return found && *found;
}

Expected<std::optional<std::span<const std::byte>>> sectionView(std::span<const std::byte> image,
                                                                const std::string& fileName,
                                                                const std::string& sectionName) {
    auto e = openImage(image);
    if (!e || elf_kind(e.get()) != ELF_K_ELF)
        return elfError(fileName, "not a valid ELF file");
    std::optional<std::span<const std::byte>> bytes;
    std::optional<Error> error;
    auto found = findSection(
        e.get(), image, fileName, [&](Elf_Scn*, const GElf_Shdr& shdr, std::string_view name) {
            if (name != sectionName)
                return false;
            if (shdr.sh_type == SHT_NOBITS)
                bytes.emplace();
            else if (shdr.sh_offset > image.size() || shdr.sh_size > image.size() - shdr.sh_offset)
                error = Error::badInput(fileName + ": section " + sectionName +
                                        " extends past the end of the file");
            else
                bytes = image.subspan(shdr.sh_offset, shdr.sh_size);
            return true;
        });
    if (!found)
        return std::move(found).error();
    if (error)
        return std::move(*error);
    return bytes;
}

Expected<std::optional<std::vector<std::byte>>> readSection(std::span<const std::byte> image,
                                                            const std::string& fileName,
                                                            const std::string& sectionName) {
    auto view = sectionView(image, fileName, sectionName);
    if (!view)
        return std::move(view).error();
    if (!*view)
        return std::optional<std::vector<std::byte>>();
    return std::optional<std::vector<std::byte>>(std::in_place, (*view)->begin(), (*view)->end());
}

} // namespace btforge::elf
