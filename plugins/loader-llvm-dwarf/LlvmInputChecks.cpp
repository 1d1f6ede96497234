// Checks of an input before LLVM reads it, for what LLVM would end the process on or read past
// (each found by the fuzzer), and the inflation of .zdebug_ sections LLVM 19 does not know.
#include "LlvmInputChecks.h"

#include "btforge/dwarf/DwarfSections.h"
#include "btforge/dwarf/Forms.h"
#include "btforge/elf/Uleb128LabelPairs.h"

#include <array>
#include <cstring>
#include <llvm/DebugInfo/DWARF/DWARFDebugAbbrev.h>
#include <llvm/DebugInfo/DWARF/DWARFFormValue.h>
#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Object/RelocationResolver.h>
#include <llvm/Support/Compression.h>
#include <llvm/Support/Endian.h>
#include <llvm/Support/LEB128.h>
#include <optional>
#include <span>

namespace btforge::dwarf {
namespace {

namespace dw = llvm::dwarf;

// LLVM 19 neither applies RISC-V's ULEB128 label differences (Uleb128LabelPairs.h) nor relocates
// any ULEB128 it reads. The assembler has written each difference already, so a pair is read as
// it is when both labels lie in one section and the field holds their difference.
class Uleb128Check {
public:
    // `contents` of the section the pairs patch, empty if unknown (compressed).
    explicit Uleb128Check(llvm::ArrayRef<uint8_t> contents) : contents_(contents) {}

    // Takes relocation `type` at `offset` of symbol (its section, value) + addend; the problem
    // with it, or "".
    std::string add(uint32_t type, uint64_t offset, uint32_t section, uint64_t value) {
        const bool defined = section != llvm::ELF::SHN_UNDEF && section < llvm::ELF::SHN_LORESERVE;
        const auto set = pairs_.waitingSet();
        switch (pairs_.add(type, offset, {defined ? section : 0, value})) {
        case elf::Uleb128LabelPairs::Outcome::SetTaken:
            return {};
        case elf::Uleb128LabelPairs::Outcome::SetWithoutSub:
            return setWithoutSub(*set);
        case elf::Uleb128LabelPairs::Outcome::SubWithoutSet:
            return "a ULEB128 SUB at offset " + std::to_string(offset) + " follows no SET";
        case elf::Uleb128LabelPairs::Outcome::AcrossSections:
            return notWithinOneSection(offset);
        case elf::Uleb128LabelPairs::Outcome::Paired:
            break;
        }
        if (!defined)
            return notWithinOneSection(offset);
        const char* error = nullptr;
        unsigned length = 0;
        const uint64_t written =
            offset < contents_.size()
                ? llvm::decodeULEB128(contents_.data() + offset, &length, contents_.end(), &error)
                : 0;
        if (offset >= contents_.size() || error || written != pairs_.difference())
            return "the ULEB128 label difference at offset " + std::to_string(offset) +
                   " is not the value written there, and LLVM's DWARF reader does not apply it";
        return {};
    }

    std::string finish() const {
        const auto set = pairs_.waitingSet();
        return set ? setWithoutSub(*set) : std::string();
    }

private:
    static std::string setWithoutSub(uint64_t offset) {
        return "a ULEB128 SET at offset " + std::to_string(offset) + " has no SUB";
    }
    static std::string notWithinOneSection(uint64_t offset) {
        return "the ULEB128 label difference at offset " + std::to_string(offset) +
               " is not within one section";
    }

    llvm::ArrayRef<uint8_t> contents_;
    elf::Uleb128LabelPairs pairs_;
};

// What is wrong with the relocation sections of `file`, or "". LLVM's object library does not
// report these as errors when DWARFContext looks at relocations: it ends the process
// (report_fatal_error on a bad symbol table link or symbol index, a division by a zero entry
// size), so they are checked here first. Relocation entries are read only where LLVM reads
// them: in relocatable objects (it applies those of debug sections and of .eh_frame).
template <class ELFT>
std::string relocationProblem(const llvm::object::ELFFile<ELFT>& file,
                              llvm::object::SupportsRelocation supports) {
    auto sections = file.sections();
    if (!sections)
        return llvm::toString(sections.takeError());
    const bool relocatable = file.getHeader().e_type == llvm::ELF::ET_REL;
    for (const auto& section : *sections) {
        const bool rela = section.sh_type == llvm::ELF::SHT_RELA;
        if (section.sh_type != llvm::ELF::SHT_REL && !rela)
            continue;
        if (section.sh_entsize != (rela ? sizeof(typename ELFT::Rela) : sizeof(typename ELFT::Rel)))
            return "a relocation section's entry size is " + std::to_string(section.sh_entsize);
        if (section.sh_link >= sections->size())
            return "a relocation section links section " + std::to_string(section.sh_link) +
                   ", which does not exist";
        if (!relocatable)
            continue;
        auto symbols = file.symbols(&(*sections)[section.sh_link]);
        if (!symbols)
            return llvm::toString(symbols.takeError());
        // Relocations of debug sections must be ones LLVM applies, at most two at an offset.
        std::string target;
        // Bytes a relocation may patch; unknown for a compressed target (its size is the
        // compressed one), whose relocations apply to the bytes it inflates to.
        std::optional<uint64_t> targetSize;
        if (section.sh_info < sections->size()) {
            const auto& patched = (*sections)[section.sh_info];
            auto name = file.getSectionName(patched);
            if (name)
                target = name->str();
            else
                llvm::consumeError(name.takeError());
            if (!(patched.sh_flags & llvm::ELF::SHF_COMPRESSED) && !target.starts_with(".zdebug"))
                targetSize = patched.sh_size;
        }
        const bool debug = target.starts_with(".debug") || target.starts_with(".zdebug");
        std::unordered_map<uint64_t, uint8_t> atOffset;
        llvm::ArrayRef<uint8_t> contents;
        if (debug && targetSize && file.getHeader().e_machine == llvm::ELF::EM_RISCV) {
            auto bytes = file.getSectionContents((*sections)[section.sh_info]);
            if (!bytes)
                return llvm::toString(bytes.takeError());
            contents = *bytes;
        }
        Uleb128Check uleb128(contents);
        auto check = [&](auto relocations) -> std::string {
            if (!relocations)
                return llvm::toString(relocations.takeError());
            for (const auto& relocation : *relocations) {
                const uint32_t symbol = relocation.getSymbol(file.isMips64EL());
                if (symbol >= symbols->size())
                    return "a relocation names symbol " + std::to_string(symbol) +
                           ", past the end of its symbol table";
                if (!debug)
                    continue;
                const uint32_t type = relocation.getType(file.isMips64EL());
                if (file.getHeader().e_machine == llvm::ELF::EM_RISCV &&
                    elf::Uleb128LabelPairs::isPairType(type)) {
                    uint64_t addend = 0;
                    if constexpr (requires { relocation.r_addend; })
                        addend = relocation.r_addend;
                    const auto& named = (*symbols)[symbol];
                    if (std::string problem = uleb128.add(type, relocation.r_offset, named.st_shndx,
                                                          named.st_value + addend);
                        !problem.empty())
                        return problem + " of " + target;
                    continue;
                }
                if (!supports)
                    return "LLVM relocates no objects of machine " +
                           std::to_string(file.getHeader().e_machine);
                if (!supports(type))
                    return "relocation type " + file.getRelocationTypeName(type).str() +
                           " in the relocations of " + target +
                           " is not one LLVM's DWARF reader applies";
                // LLVM skips one it cannot place: the value there would be read unrelocated.
                if (targetSize && relocation.r_offset >= *targetSize)
                    return "a relocation at offset " + std::to_string(relocation.r_offset) +
                           " lies past the end of " + target + " (" + std::to_string(*targetSize) +
                           " bytes)";
                if (++atOffset[relocation.r_offset] > 2)
                    return "more than two relocations at offset " +
                           std::to_string(relocation.r_offset) + " of " + target;
            }
            return {};
        };
        std::string problem = rela ? check(file.relas(section)) : check(file.rels(section));
        if (problem.empty() && !uleb128.finish().empty())
            problem = uleb128.finish() + " of " + target;
        if (!problem.empty())
            return problem;
    }
    return {};
}

// Calls f with the ELFFile of an object known to be ELF, whatever its class and byte order.
template <class F> auto withElfFile(const llvm::object::ObjectFile& object, F f) {
    using namespace llvm::object;
    if (const auto* elf = llvm::dyn_cast<ELF64LEObjectFile>(&object))
        return f(elf->getELFFile());
    if (const auto* elf = llvm::dyn_cast<ELF64BEObjectFile>(&object))
        return f(elf->getELFFile());
    if (const auto* elf = llvm::dyn_cast<ELF32LEObjectFile>(&object))
        return f(elf->getELFFile());
    return f(llvm::cast<ELF32BEObjectFile>(&object)->getELFFile());
}

std::span<const uint8_t> asSpan(llvm::ArrayRef<uint8_t> bytes) {
    return {bytes.data(), bytes.size()};
}

// What is wrong with the compressed sections of `file`, or "". LLVM allocates the size a
// compression header claims before it inflates anything, and ends the process when that fails
// (claimedSizeProblem); the reader inflates .zdebug_ sections itself, checked alike.
template <class ELFT> std::string compressionProblem(const llvm::object::ELFFile<ELFT>& file) {
    auto sections = file.sections();
    if (!sections)
        return llvm::toString(sections.takeError());
    for (const auto& section : *sections) {
        if (section.sh_type == llvm::ELF::SHT_NOBITS)
            continue;
        const bool flagged = section.sh_flags & llvm::ELF::SHF_COMPRESSED;
        auto name = file.getSectionName(section);
        if (!name) {
            llvm::consumeError(name.takeError());
            if (!flagged)
                continue;
        }
        const bool gnu = !flagged && name->starts_with(".zdebug_");
        if (!flagged && !gnu)
            continue;
        const std::string where = "section " + (name ? name->str() : "?") + ": ";
        auto bytes = file.getSectionContents(section);
        if (!bytes)
            return where + llvm::toString(bytes.takeError());
        if (gnu) {
            // Without the magic it is read as it is, as libdw does.
            if (auto size = gnuCompressedSize(asSpan(*bytes))) {
                std::string problem =
                    claimedSizeProblem(*size, bytes->size() - kGnuCompressedHeader, false);
                if (!problem.empty())
                    return where + problem;
            }
            continue;
        }
        using Chdr = typename ELFT::Chdr;
        if (bytes->size() < sizeof(Chdr))
            return where + "too small for its compression header";
        Chdr header;
        std::memcpy(&header, bytes->data(), sizeof(Chdr));
        const uint64_t compressed = bytes->size() - sizeof(Chdr);
        if (header.ch_type != llvm::ELF::ELFCOMPRESS_ZLIB &&
            header.ch_type != llvm::ELF::ELFCOMPRESS_ZSTD)
            return where + "unknown compression type " + std::to_string(header.ch_type);
        std::string problem = claimedSizeProblem(header.ch_size, compressed,
                                                 header.ch_type == llvm::ELF::ELFCOMPRESS_ZSTD);
        if (!problem.empty())
            return where + problem;
    }
    return {};
}

// A copy of the file whose .zdebug_ sections are inflated: each one's bytes are appended, its
// section header points at them, and its name loses the "z" (LLVM 19 knows .debug_ names only),
// written over the old one, which is a byte longer. Section indexes, which relocations and
// symbols name, stay. Null when there is nothing to inflate. Claimed sizes were checked by
// compressionProblem.
template <class ELFT>
llvm::Expected<std::unique_ptr<llvm::WritableMemoryBuffer>>
inflateGnuSections(const llvm::object::ELFFile<ELFT>& file) {
    auto sections = file.sections();
    if (!sections)
        return sections.takeError();
    struct Inflated {
        size_t index;
        llvm::ArrayRef<uint8_t> stream;
        uint64_t size;
        uint64_t offset; // in the copy
        std::string name;
        uint64_t nameAt; // in the file
    };
    std::vector<Inflated> inflated;
    const llvm::StringRef image(reinterpret_cast<const char*>(file.base()), file.getBufSize());
    uint64_t end = llvm::alignTo(image.size(), 8);
    for (size_t i = 0; i < sections->size(); ++i) {
        const auto& section = (*sections)[i];
        auto name = file.getSectionName(section);
        if (!name) {
            llvm::consumeError(name.takeError());
            continue;
        }
        if (section.sh_type == llvm::ELF::SHT_NOBITS ||
            (section.sh_flags & llvm::ELF::SHF_COMPRESSED) || !name->starts_with(".zdebug_"))
            continue;
        auto bytes = file.getSectionContents(section);
        if (!bytes)
            return bytes.takeError();
        auto size = gnuCompressedSize(asSpan(*bytes));
        if (!size)
            continue;
        // Where the name is in the file (getSectionName read it there, so it is inside).
        const auto nameAt = static_cast<uint64_t>(name->data() - image.data());
        inflated.push_back(
            {i, bytes->drop_front(kGnuCompressedHeader), *size, end, name->str(), nameAt});
        end = llvm::alignTo(end + *size, 8);
    }
    if (inflated.empty())
        return nullptr;
    if (!llvm::compression::zlib::isAvailable())
        return llvm::createStringError("its .zdebug_ sections are compressed with zlib, which "
                                       "this LLVM was built without");
    if (!ELFT::Is64Bits && end > UINT32_MAX)
        return llvm::createStringError("its .zdebug_ sections inflate past what a 32-bit ELF "
                                       "file can address");
    auto copy = llvm::WritableMemoryBuffer::getNewUninitMemBuffer(end);
    if (!copy)
        return llvm::createStringError("no memory to inflate its .zdebug_ sections");
    uint8_t* out = reinterpret_cast<uint8_t*>(copy->getBufferStart());
    std::memcpy(out, image.data(), image.size());
    std::memset(out + image.size(), 0, end - image.size());
    const uint64_t headers = file.getHeader().e_shoff;
    const uint64_t entry = file.getHeader().e_shentsize;
    for (const Inflated& section : inflated) {
        const std::string& what = section.name;
        size_t size = section.size;
        if (llvm::Error error =
                llvm::compression::zlib::decompress(section.stream, out + section.offset, size))
            return llvm::createStringError("section " + what + ": " +
                                           llvm::toString(std::move(error)));
        if (size != section.size)
            return llvm::createStringError("section " + what + " inflates to " +
                                           std::to_string(size) + " bytes, not the " +
                                           std::to_string(section.size) + " it claims");
        // ".zdebug_x" becomes ".debug_x" where it is (a name ending another, ".rela.zdebug_x",
        // becomes ".rela.debug_x": relocation sections are known by their sh_info).
        std::string renamed = "." + what.substr(2);
        std::memcpy(out + section.nameAt, renamed.c_str(), renamed.size() + 1);
        // sh_offset and sh_size, in the file's byte order and class.
        uint8_t* header = out + headers + section.index * entry;
        using Word = std::conditional_t<ELFT::Is64Bits, uint64_t, uint32_t>;
        constexpr size_t offsetAt = ELFT::Is64Bits ? 24 : 16;
        llvm::support::endian::write<Word>(header + offsetAt, static_cast<Word>(section.offset),
                                           ELFT::Endianness);
        llvm::support::endian::write<Word>(header + offsetAt + sizeof(Word),
                                           static_cast<Word>(section.size), ELFT::Endianness);
    }
    return copy;
}

} // namespace

std::string relocationProblem(const llvm::object::ObjectFile& object) {
    llvm::object::SupportsRelocation supports = llvm::object::getRelocationResolver(object).first;
    return withElfFile(object, [&](const auto& elf) { return relocationProblem(elf, supports); });
}

namespace {

// Zero bytes, as many as any value of a fixed size takes: what forms are probed with.
const llvm::DataExtractor& zeroBytes() {
    static constexpr char zeros[16] = {};
    static const llvm::DataExtractor data(llvm::StringRef(zeros, sizeof zeros), true, 8);
    return data;
}

// The length of a block value (its bytes follow it), read at `*at`; nothing for the forms the
// shared form table does not lay out as a block.
std::optional<uint64_t> blockLength(unsigned form, const llvm::DataExtractor& data, uint64_t* at) {
    const auto info = formInfo(form);
    switch (info ? info->layout : FormLayout::Unsupported) {
    case FormLayout::BlockUleb:
        return data.getULEB128(at);
    case FormLayout::Block1:
        return data.getU8(at);
    case FormLayout::Block2:
        return data.getU16(at);
    case FormLayout::Block4:
        return data.getU32(at);
    default:
        return std::nullopt;
    }
}

} // namespace

// A value of a form LLVM knows can be skipped in zero bytes.
bool knownForm(unsigned form) {
    uint64_t at = 0;
    return form != llvm::dwarf::DW_FORM_indirect &&
           llvm::DWARFFormValue::skipValue(static_cast<llvm::dwarf::Form>(form), zeroBytes(), &at,
                                           {5, 8, llvm::dwarf::DWARF32});
}

namespace detail {

const std::array<bool, 0x30> kPlainStandardForms = [] {
    std::array<bool, 0x30> plain{};
    for (unsigned form = 0; form < plain.size(); ++form) {
        uint64_t at = 0;
        plain[form] = knownForm(form) && !blockLength(form, zeroBytes(), &at);
    }
    return plain;
}();

// LLVM's DIE decoder skips a block by adding its length to the offset unchecked and then reads
// the next value from wherever that points, past the section (found by the fuzzer).
bool checkedOtherForm(llvm::dwarf::Form& form, const llvm::DWARFDataExtractor& data,
                      uint64_t* offset, uint64_t end) {
    namespace dw = llvm::dwarf;
    while (form == dw::DW_FORM_indirect && *offset < end)
        form = static_cast<dw::Form>(data.getULEB128(offset));
    if (!knownForm(form))
        return false;
    uint64_t at = *offset;
    const auto length = blockLength(form, data, &at);
    if (!length)
        return true;
    return at <= end && *length <= end - at;
}

} // namespace detail

std::string compressionProblem(const llvm::object::ObjectFile& object) {
    return withElfFile(object, [](const auto& elf) { return compressionProblem(elf); });
}

llvm::Expected<std::unique_ptr<llvm::WritableMemoryBuffer>>
inflateGnuSections(const llvm::object::ObjectFile& object) {
    return withElfFile(object, [](const auto& elf) { return inflateGnuSections(elf); });
}

} // namespace btforge::dwarf
