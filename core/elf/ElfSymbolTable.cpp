#include "btforge/elf/ElfSymbolTable.h"

#include "ElfImage.h"

#include <algorithm>
#include <functional>
#include <tuple>

namespace btforge::elf {
namespace {

using detail::elfError;

// Why the symbol table `header` (section `index`) cannot be read as one, or "": libelf reads
// one with a zero or odd entry size, a bad string table link or a size that is no multiple of
// the entries as empty or cut short, and every function would silently be dropped.
std::string symbolTableProblem(Elf* e, std::span<const std::byte> image, const GElf_Shdr& header,
                               size_t index) {
    const std::string where = ".symtab (section " + std::to_string(index) + "): ";
    const size_t entry = gelf_fsize(e, ELF_T_SYM, 1, EV_CURRENT);
    if (header.sh_entsize != entry)
        return where + "entry size " + std::to_string(header.sh_entsize) + ", expected " +
               std::to_string(entry);
    if (header.sh_size % entry != 0)
        return where + "size " + std::to_string(header.sh_size) +
               " is not a whole number of entries";
    if (header.sh_offset > image.size() || header.sh_size > image.size() - header.sh_offset)
        return where + "extends past the end of the file";
    if (header.sh_size == 0)
        return ""; // no symbols: no names to look up
    size_t sections = 0;
    GElf_Shdr strings;
    if (elf_getshdrnum(e, &sections) != 0 || header.sh_link == 0 || header.sh_link >= sections ||
        !gelf_getshdr(elf_getscn(e, header.sh_link), &strings) || strings.sh_type != SHT_STRTAB)
        return where + "links to section " + std::to_string(header.sh_link) +
               ", not a string table";
    if (strings.sh_offset > image.size() || strings.sh_size > image.size() - strings.sh_offset)
        return where + "its string table extends past the end of the file";
    return "";
}

} // namespace

std::string_view stripCompilerSuffix(std::string_view symbolName) {
    // Every suffix GCC and LLVM append to a specialised or split copy starts with '.', and C
    // identifiers never contain one.
    auto dot = symbolName.find('.');
    return dot == std::string_view::npos || dot == 0 ? symbolName : symbolName.substr(0, dot);
}

bool isCompilerGeneratedObject(std::string_view name) {
    for (std::string_view prefix :
         {"__UNIQUE_ID", "__tpstrtab_", "__exitcall_", "__gendwarfksyms_ptr_",
          "__func_stack_frame_non_standard_", "__BTF_ID__"}) {
        if (name.starts_with(prefix))
            return true;
    }
    return false;
}

Expected<std::shared_ptr<const ElfSymbolTable>>
ElfSymbolTable::read(std::shared_ptr<MappedFile> file) {
    elf_version(EV_CURRENT);
    auto image = file->bytes();
    const std::string& fileName = file->path();
    detail::ElfHandle e = detail::openImage(image);
    if (!e || elf_kind(e.get()) != ELF_K_ELF)
        return elfError(fileName, "not a valid ELF file");
    GElf_Ehdr ehdr;
    if (!gelf_getehdr(e.get(), &ehdr))
        return elfError(fileName, "cannot read the ELF header");
    if (std::string problem = detail::sectionTableProblem(e.get(), image); !problem.empty())
        return Error::badInput(fileName + ": " + problem);
    size_t shstrndx = 0;
    if (elf_getshdrstrndx(e.get(), &shstrndx) != 0)
        return elfError(fileName, "cannot read the section name table");

    auto table = std::make_shared<ElfSymbolTable>();
    table->file_ = file;
    table->relocatable_ = ehdr.e_type == ET_REL;
    auto target = targetOf(image);
    if (!target)
        return elfError(fileName, "invalid ELF class or data encoding");
    table->target_ = *target;
    Elf_Scn* symtab = nullptr;
    GElf_Shdr symtabHeader{};
    for (Elf_Scn* scn = elf_nextscn(e.get(), nullptr); scn; scn = elf_nextscn(e.get(), scn)) {
        GElf_Shdr shdr;
        if (!gelf_getshdr(scn, &shdr))
            return elfError(fileName, "cannot read a section header");
        const char* name = elf_strptr(e.get(), shstrndx, shdr.sh_name);
        ElfSection section;
        section.name = name ? name : "";
        section.index = static_cast<uint32_t>(elf_ndxscn(scn));
        section.address = shdr.sh_addr;
        section.size = shdr.sh_size;
        section.allocated = (shdr.sh_flags & SHF_ALLOC) != 0;
        section.isData = section.allocated && !(shdr.sh_flags & SHF_EXECINSTR);
        bool inFile = shdr.sh_type != SHT_NOBITS && shdr.sh_offset <= image.size() &&
                      shdr.sh_size <= image.size() - shdr.sh_offset;
        table->sections_.push_back(section);
        table->sectionFileOffsets_.push_back(inFile ? shdr.sh_offset : UINT64_MAX);
        if (shdr.sh_type == SHT_SYMTAB) {
            symtab = scn;
            symtabHeader = shdr;
        }
    }
    if (!symtab)
        return std::shared_ptr<const ElfSymbolTable>(table); // stripped: nothing to confirm
    table->hasSymbols_ = true;

    if (std::string problem = symbolTableProblem(e.get(), image, symtabHeader, elf_ndxscn(symtab));
        !problem.empty())
        return Error::badInput(fileName + ": " + problem);
    Elf_Data* data = elf_getdata(symtab, nullptr);
    if (!data)
        return elfError(fileName, "cannot read .symtab");
    size_t count = symtabHeader.sh_entsize ? symtabHeader.sh_size / symtabHeader.sh_entsize : 0;
    for (size_t i = 1; i < count; ++i) {
        GElf_Sym sym;
        if (!gelf_getsym(data, static_cast<int>(i), &sym))
            return elfError(fileName, ".symtab entry " + std::to_string(i));
        if (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE)
            continue;
        const char* name = elf_strptr(e.get(), symtabHeader.sh_link, sym.st_name);
        if (!name || !*name)
            continue;
        bool global = GELF_ST_BIND(sym.st_info) != STB_LOCAL;
        int type = GELF_ST_TYPE(sym.st_info);
        if (std::string_view(name).starts_with("__BTF_ID__")) {
            table->btfIds_.push_back({name, sym.st_value, sym.st_size, sym.st_shndx, global});
        } else if (type == STT_FUNC) {
            // Split-off pieces of a function (foo.cold, foo.part.0) are not entry points: a
            // tracer attaches to the function they belong to.
            std::string_view full(name);
            std::string_view suffix = full.substr(stripCompilerSuffix(full).size());
            if (suffix.find(".cold") != std::string_view::npos ||
                suffix.find(".part") != std::string_view::npos)
                continue;
            // On arm, bit 0 of a function symbol's value says the code is Thumb; the code
            // itself, where DWARF's low_pc points, starts at the even address.
            uint64_t address = sym.st_value;
            if (table->target_.machine == EM_ARM)
                address &= ~uint64_t{1};
            table->functions_.push_back(
                {stripCompilerSuffix(name), name, address, sym.st_size, sym.st_shndx, global});
        } else if (type == STT_OBJECT) {
            table->objects_.push_back({name, sym.st_value, sym.st_size, sym.st_shndx, global});
        } else if (type == STT_NOTYPE) {
            table->labels_.push_back({name, sym.st_value, sym.st_size, sym.st_shndx, global});
        }
    }
    auto byNameAddress = [](const ElfFunction& a, const ElfFunction& b) {
        return std::tie(a.name, a.address, a.symbolName) <
               std::tie(b.name, b.address, b.symbolName);
    };
    std::sort(table->functions_.begin(), table->functions_.end(), byNameAddress);
    table->indexFunctionNames();
    auto bySectionAddress = [](const ElfObject& a, const ElfObject& b) {
        return std::tie(a.section, a.address, a.name) < std::tie(b.section, b.address, b.name);
    };
    std::sort(table->objects_.begin(), table->objects_.end(), bySectionAddress);
    std::sort(table->labels_.begin(), table->labels_.end(),
              [](const ElfObject& a, const ElfObject& b) {
                  return std::tie(a.name, a.address) < std::tie(b.name, b.address);
              });
    std::sort(table->btfIds_.begin(), table->btfIds_.end(), bySectionAddress);
    return std::shared_ptr<const ElfSymbolTable>(std::move(table));
}

void ElfSymbolTable::indexFunctionNames() {
    size_t slots = 16;
    while (slots < functions_.size() * 2)
        slots *= 2;
    nameRuns_.assign(slots, NameRun{});
    const size_t mask = slots - 1;
    for (size_t first = 0, end; first < functions_.size(); first = end) {
        end = first + 1;
        while (end < functions_.size() && functions_[end].name == functions_[first].name)
            ++end;
        const size_t hash = std::hash<std::string_view>{}(functions_[first].name);
        size_t i = hash & mask;
        while (nameRuns_[i].count != 0)
            i = (i + 1) & mask;
        nameRuns_[i] = {hash, static_cast<uint32_t>(first), static_cast<uint32_t>(end - first)};
    }
}

std::span<const ElfFunction> ElfSymbolTable::functionsNamed(std::string_view name) const {
    if (nameRuns_.empty())
        return {};
    const size_t hash = std::hash<std::string_view>{}(name);
    const size_t mask = nameRuns_.size() - 1;
    for (size_t i = hash & mask; nameRuns_[i].count != 0; i = (i + 1) & mask) {
        const NameRun& run = nameRuns_[i];
        if (run.hash == hash && functions_[run.first].name == name)
            return std::span(functions_).subspan(run.first, run.count);
    }
    return {};
}

std::optional<uint64_t> ElfSymbolTable::addressOf(std::string_view name) const {
    auto label =
        std::lower_bound(labels_.begin(), labels_.end(), name,
                         [](const ElfObject& a, std::string_view n) { return a.name < n; });
    if (label != labels_.end() && label->name == name)
        return label->address;
    for (const ElfFunction& f : functionsNamed(name)) {
        if (f.symbolName == name)
            return f.address;
    }
    // Rarely asked (once per conversion, for an address base): a scan is enough.
    std::optional<uint64_t> lowest;
    for (const ElfObject& o : objects_) {
        if (o.name == name && (!lowest || o.address < *lowest))
            lowest = o.address;
    }
    return lowest;
}

std::span<const ElfObject> ElfSymbolTable::objectsIn(uint32_t section) const {
    auto first = std::lower_bound(objects_.begin(), objects_.end(), section,
                                  [](const ElfObject& o, uint32_t s) { return o.section < s; });
    auto last = std::upper_bound(first, objects_.end(), section,
                                 [](uint32_t s, const ElfObject& o) { return s < o.section; });
    return {first, last};
}

const ElfSection* ElfSymbolTable::section(std::string_view name) const {
    for (const ElfSection& s : sections_) {
        if (s.name == name)
            return &s;
    }
    return nullptr;
}

const ElfSection* ElfSymbolTable::section(uint32_t index) const {
    for (const ElfSection& s : sections_) {
        if (s.index == index)
            return &s;
    }
    return nullptr;
}

uint64_t ElfSymbolTable::offsetInSection(uint64_t value, uint32_t sectionIndex) const {
    if (relocatable_)
        return value;
    const ElfSection* s = section(sectionIndex);
    return s && value >= s->address ? value - s->address : value;
}

std::optional<std::span<const std::byte>> ElfSymbolTable::sectionBytes(const ElfSection& s) const {
    size_t i = static_cast<size_t>(&s - sections_.data());
    if (i >= sections_.size() || sectionFileOffsets_[i] == UINT64_MAX)
        return std::nullopt;
    return file_->bytes().subspan(sectionFileOffsets_[i], s.size);
}

} // namespace btforge::elf
