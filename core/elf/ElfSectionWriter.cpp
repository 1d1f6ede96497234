#include "elf/ElfSectionWriter.h"

#include "ElfImage.h"

#include "btforge/support/Hex.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string_view>
#include <vector>

namespace btforge::elf {
namespace {

using detail::elfError;

struct Range {
    uint64_t begin = 0;
    uint64_t end = 0;
};

uint64_t alignUp(uint64_t value, uint64_t alignment) {
    return (value + alignment - 1) / alignment * alignment;
}

// Fields in the file's class and byte order.
class Encoder {
public:
    Encoder(bool is64, bool bigEndian) : is64_(is64), bigEndian_(bigEndian) {}

    void put(std::vector<std::byte>& out, uint64_t value, unsigned width) const {
        for (unsigned i = 0; i < width; ++i) {
            unsigned shift = 8 * (bigEndian_ ? width - 1 - i : i);
            out.push_back(static_cast<std::byte>(value >> shift));
        }
    }
    void patch(std::byte* at, uint64_t value, unsigned width) const {
        std::vector<std::byte> bytes;
        put(bytes, value, width);
        std::memcpy(at, bytes.data(), width);
    }
    // Elf32_Shdr: every field 4 bytes; Elf64_Shdr: flags, addr, offset, size, addralign and
    // entsize 8.
    void putHeader(std::vector<std::byte>& out, const GElf_Shdr& s) const {
        unsigned wide = is64_ ? 8 : 4;
        put(out, s.sh_name, 4);
        put(out, s.sh_type, 4);
        put(out, s.sh_flags, wide);
        put(out, s.sh_addr, wide);
        put(out, s.sh_offset, wide);
        put(out, s.sh_size, wide);
        put(out, s.sh_link, 4);
        put(out, s.sh_info, 4);
        put(out, s.sh_addralign, wide);
        put(out, s.sh_entsize, wide);
    }
    size_t headerSize() const { return is64_ ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr); }
    // Where e_shoff and e_shnum sit in the ELF header, and e_shoff's width.
    size_t shoffAt() const {
        return is64_ ? offsetof(Elf64_Ehdr, e_shoff) : offsetof(Elf32_Ehdr, e_shoff);
    }
    size_t shnumAt() const {
        return is64_ ? offsetof(Elf64_Ehdr, e_shnum) : offsetof(Elf32_Ehdr, e_shnum);
    }
    unsigned wide() const { return is64_ ? 8 : 4; }

private:
    bool is64_;
    bool bigEndian_;
};

// Where `name` can be pointed at in a string table: any string ending with it will do.
std::optional<uint32_t> findName(std::span<const std::byte> table, const std::string& name) {
    std::string_view text(reinterpret_cast<const char*>(table.data()), table.size());
    std::string_view wanted(name.c_str(), name.size() + 1); // with its NUL
    size_t at = text.find(wanted);
    if (at == std::string_view::npos)
        return std::nullopt;
    return static_cast<uint32_t>(at);
}

// The headers of an image that can take `name`, checked.
struct Layout {
    GElf_Ehdr ehdr;
    bool is64 = false;
    std::vector<GElf_Shdr> headers;
    std::vector<GElf_Phdr> segments;
    size_t namesIndex = 0;
    std::span<const std::byte> names; // the section name table's bytes
    std::optional<size_t> target;     // the section of that name, if any
};

Expected<Layout> inspect(std::span<const std::byte> image, const std::string& fileName,
                         const std::string& name) {
    auto e = detail::openImage(image);
    if (!e || elf_kind(e.get()) != ELF_K_ELF)
        return Error::badInput(fileName + ": not an ELF file");
    Layout l;
    GElf_Ehdr& ehdr = l.ehdr;
    if (!gelf_getehdr(e.get(), &ehdr))
        return elfError(fileName, "cannot read the ELF header");
    l.is64 = gelf_getclass(e.get()) == ELFCLASS64;
    const bool is64 = l.is64;
    size_t count = 0, namesIndex = 0, segments = 0;
    if (elf_getshdrnum(e.get(), &count) != 0 || elf_getshdrstrndx(e.get(), &namesIndex) != 0 ||
        elf_getphdrnum(e.get(), &segments) != 0)
        return elfError(fileName, "cannot read the section or program header table");
    if (count == 0 || namesIndex == SHN_UNDEF || namesIndex >= count)
        return Error::badInput(fileName + ": has no section name table to add " + name + " to");
    if (ehdr.e_ehsize < (is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr)) ||
        ehdr.e_ehsize > image.size() ||
        ehdr.e_shentsize != (is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr)))
        return Error::badInput(fileName + ": unexpected ELF or section header size");

    std::vector<GElf_Shdr>& headers = l.headers;
    headers.resize(count);
    for (size_t i = 0; i < count; ++i) {
        Elf_Scn* scn = elf_getscn(e.get(), i);
        if (!scn || !gelf_getshdr(scn, &headers[i]))
            return elfError(fileName, "cannot read section header " + std::to_string(i));
        const GElf_Shdr& s = headers[i];
        if (s.sh_type != SHT_NOBITS &&
            (s.sh_offset > image.size() || s.sh_size > image.size() - s.sh_offset))
            return Error::badInput(fileName + ": section " + std::to_string(i) +
                                   " extends past the end of the file (offset " + hex(s.sh_offset) +
                                   ")");
    }
    if (headers[namesIndex].sh_type == SHT_NOBITS)
        return Error::badInput(fileName + ": the section name table has no bytes");
    const GElf_Shdr& namesHeader = headers[namesIndex];
    auto names = image.subspan(namesHeader.sh_offset, namesHeader.sh_size);
    for (size_t i = 0; i < segments; ++i) {
        GElf_Phdr p;
        if (!gelf_getphdr(e.get(), static_cast<int>(i), &p))
            return elfError(fileName, "cannot read program header " + std::to_string(i));
        l.segments.push_back(p);
    }
    l.namesIndex = namesIndex;
    l.names = names;

    std::optional<size_t>& target = l.target;
    for (size_t i = 1; i < count && !target; ++i) {
        auto at = headers[i].sh_name;
        if (at < names.size() &&
            std::string_view(reinterpret_cast<const char*>(names.data()) + at,
                             strnlen(reinterpret_cast<const char*>(names.data()) + at,
                                     names.size() - at)) == name)
            target = i;
    }
    // An empty one is a placeholder, not part of the image: ld.lld keeps the kernel's empty .BTF
    // output section in .tmp_vmlinux.btf, where GNU ld drops it, and pahole -J fills it.
    if (target && (headers[*target].sh_flags & SHF_ALLOC) && headers[*target].sh_size > 0)
        return Error::badInput(fileName + ": section " + name + " (index " +
                               std::to_string(*target) +
                               ") is part of the loaded image (SHF_ALLOC): its size and address "
                               "are fixed by the link; write the BTF with -o and link it in");
    return l;
}

} // namespace

Expected<void> checkSectionWritable(std::span<const std::byte> image, const std::string& fileName,
                                    const std::string& name) {
    auto layout = inspect(image, fileName, name);
    if (!layout)
        return std::move(layout).error();
    return {};
}

Expected<void> writeWithSection(std::span<const std::byte> image, const std::string& fileName,
                                const std::string& name, std::span<const std::byte> contents,
                                std::ostream& out) {
    auto layout = inspect(image, fileName, name);
    if (!layout)
        return std::move(layout).error();
    Layout& l = *layout;
    const GElf_Ehdr& ehdr = l.ehdr;
    const bool is64 = l.is64;
    const Encoder encoder(is64, ehdr.e_ident[EI_DATA] == ELFDATA2MSB);
    std::vector<GElf_Shdr>& headers = l.headers;
    const size_t count = headers.size();
    const size_t namesIndex = l.namesIndex;
    const GElf_Shdr namesHeader = headers[namesIndex];
    const auto names = l.names;
    const std::optional<size_t> target = l.target;
    std::optional<uint32_t> nameAt =
        target ? std::optional(headers[*target].sh_name) : findName(names, name);

    // What the output no longer refers to: the old header table, the old contents, the old names.
    std::vector<Range> dropped{{ehdr.e_shoff, ehdr.e_shoff + count * uint64_t(ehdr.e_shentsize)}};
    if (target && headers[*target].sh_type != SHT_NOBITS)
        dropped.push_back(
            {headers[*target].sh_offset, headers[*target].sh_offset + headers[*target].sh_size});
    // The name table moves behind the new contents when it must grow, and when it lies after the
    // old contents: then a later rewrite finds old contents, names and header table together at
    // the end and can leave all three out.
    const bool moveNames =
        !nameAt || (target && namesHeader.sh_offset > headers[*target].sh_offset);
    if (moveNames)
        dropped.push_back({namesHeader.sh_offset, namesHeader.sh_offset + namesHeader.sh_size});
    uint64_t keptEnd = ehdr.e_phoff + l.segments.size() * uint64_t(ehdr.e_phentsize);
    keptEnd = std::max<uint64_t>(keptEnd, ehdr.e_ehsize);
    for (const GElf_Phdr& p : l.segments)
        keptEnd = std::max(keptEnd, p.p_offset + p.p_filesz);
    for (size_t i = 1; i < count; ++i) {
        const GElf_Shdr& s = headers[i];
        if (s.sh_type != SHT_NOBITS && i != target && !(moveNames && i == namesIndex))
            keptEnd = std::max(keptEnd, s.sh_offset + s.sh_size);
    }
    // Leave out the tail only when it holds nothing but the dropped parts and their padding.
    constexpr uint64_t kPadding = 64;
    uint64_t unknown = 0;
    for (uint64_t at = keptEnd; at < image.size() && unknown < kPadding;) {
        auto inside = std::find_if(dropped.begin(), dropped.end(),
                                   [&](const Range& r) { return r.begin <= at && at < r.end; });
        if (inside != dropped.end()) {
            at = inside->end;
        } else {
            ++unknown;
            ++at;
        }
    }
    const uint64_t tail =
        unknown < kPadding ? std::min<uint64_t>(keptEnd, image.size()) : image.size();

    const uint64_t contentsAt = alignUp(tail, 8);
    uint64_t end = contentsAt + contents.size();
    std::vector<std::byte> newNames;
    if (moveNames) {
        newNames.assign(names.begin(), names.end());
        if (!nameAt) {
            nameAt = static_cast<uint32_t>(newNames.size());
            for (char c : name)
                newNames.push_back(static_cast<std::byte>(c));
            newNames.push_back(std::byte{0});
        }
        headers[namesIndex].sh_offset = end;
        headers[namesIndex].sh_size = newNames.size();
        end += newNames.size();
    }
    if (target) {
        GElf_Shdr& s = headers[*target];
        s.sh_type = SHT_PROGBITS;
        // A placeholder (empty, allocated) becomes what an added section is: not loaded.
        s.sh_flags &= ~static_cast<uint64_t>(SHF_ALLOC);
        s.sh_addr = 0;
        s.sh_offset = contentsAt;
        s.sh_size = contents.size();
    } else {
        GElf_Shdr added{};
        added.sh_name = *nameAt;
        added.sh_type = SHT_PROGBITS;
        added.sh_offset = contentsAt;
        added.sh_size = contents.size();
        added.sh_addralign = 1;
        headers.push_back(added);
    }
    // Past SHN_LORESERVE sections the count moves to section 0's sh_size (SHN_XINDEX scheme).
    const bool extended = headers.size() >= SHN_LORESERVE;
    headers[0].sh_size = extended ? headers.size() : 0;
    const uint64_t tableAt = alignUp(end, encoder.wide());
    const uint64_t total = tableAt + headers.size() * encoder.headerSize();
    if (!is64 && total > UINT32_MAX)
        return Error::badInput(fileName + ": a 32-bit ELF file cannot grow past 4 GiB");

    std::vector<std::byte> header(image.begin(), image.begin() + ehdr.e_ehsize);
    encoder.patch(header.data() + encoder.shoffAt(), tableAt, encoder.wide());
    encoder.patch(header.data() + encoder.shnumAt(), extended ? 0 : headers.size(), 2);
    std::vector<std::byte> table;
    table.reserve(headers.size() * encoder.headerSize());
    for (const GElf_Shdr& s : headers)
        encoder.putHeader(table, s);

    auto write = [&](std::span<const std::byte> bytes) {
        out.write(reinterpret_cast<const char*>(bytes.data()),
                  static_cast<std::streamsize>(bytes.size()));
    };
    auto pad = [&](uint64_t from, uint64_t to) {
        static constexpr std::byte kZeros[8]{};
        write(std::span(kZeros, to - from));
    };
    write(header);
    write(image.subspan(header.size(), tail - header.size()));
    pad(tail, contentsAt);
    write(contents);
    write(newNames);
    pad(end, tableAt);
    write(table);
    return {};
}

} // namespace btforge::elf
