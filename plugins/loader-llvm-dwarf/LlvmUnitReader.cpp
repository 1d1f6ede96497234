#include "LlvmUnitReader.h"

#include "btforge/support/Hex.h"
#include "btforge/support/MappedFile.h"

#include <cctype>
#include <cstring>
#include <llvm/DebugInfo/DWARF/DWARFDebugAbbrev.h>
#include <llvm/DebugInfo/DWARF/DWARFDebugLoc.h>
#include <llvm/DebugInfo/DWARF/DWARFDie.h>
#include <llvm/DebugInfo/DWARF/DWARFExpression.h>
#include <llvm/DebugInfo/DWARF/DWARFTypeUnit.h>
#include <llvm/DebugInfo/DWARF/DWARFUnit.h>
#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Object/RelocationResolver.h>
#include <llvm/Support/Compression.h>
#include <llvm/Support/Endian.h>
#include <llvm/Support/LEB128.h>
#include <unordered_map>
#include <utility>

namespace btforge::dwarf {
namespace {

using llvm::DWARFDie;
using llvm::DWARFFormValue;
namespace dw = llvm::dwarf;

// LLVM reports what it cannot read to a handler rather than to the caller: each thread collects
// the first message of what it is reading at the time.
thread_local std::string* errorSink = nullptr;

// LLVM's messages may span lines (a cause after the message): errors are one line.
std::string oneLine(std::string message) {
    while (!message.empty() && std::isspace(static_cast<unsigned char>(message.back())))
        message.pop_back();
    for (size_t at = message.find('\n'); at != std::string::npos; at = message.find('\n', at))
        message.replace(at, 1, "; ");
    return message;
}

void recordError(llvm::Error error) {
    std::string message = oneLine(llvm::toString(std::move(error)));
    // LLVM also relocates .eh_frame, whose relocations do not matter here; those of the debug
    // sections were checked before (relocationProblem), so a relocation it cannot apply is in
    // .eh_frame (s390x PC32, i386 objects with three relocations at one offset).
    if (message.starts_with("failed to compute relocation") ||
        message.starts_with("At most two relocations per offset"))
        return;
    if (errorSink && errorSink->empty())
        *errorSink = std::move(message);
}

class ErrorSink {
public:
    ErrorSink() : previous_(errorSink) { errorSink = &message_; }
    ~ErrorSink() { errorSink = previous_; }
    ErrorSink(const ErrorSink&) = delete;
    ErrorSink& operator=(const ErrorSink&) = delete;
    const std::string& message() const { return message_; }

private:
    std::string message_;
    std::string* previous_;
};

// DW_OP_GNU_parameter_ref, which LLVM 19's dwarf::LocationAtom does not have.
constexpr uint8_t kGnuParameterRef = 0xfa;

const char* sectionName(DieOffset bias) {
    return bias >= kTypesBias ? " in .debug_types" : "";
}

// An offset of a unit's section as messages give it: in the sections of its name laid end to
// end, as the keys count (and as a linker would join them).
uint64_t joinedOffset(DieOffset bias, uint64_t offset) {
    return (bias >= kTypesBias ? bias - kTypesBias : bias) + offset;
}

// A constant as libdw's dwarf_formudata reads it: the signed forms as their bits.
std::optional<uint64_t> unsignedValue(const DWARFFormValue& value) {
    switch (value.getForm()) {
    case dw::DW_FORM_data1:
    case dw::DW_FORM_data2:
    case dw::DW_FORM_data4:
    case dw::DW_FORM_data8:
    case dw::DW_FORM_udata:
    case dw::DW_FORM_sdata:
    case dw::DW_FORM_implicit_const:
    case dw::DW_FORM_sec_offset:
        return value.getRawUValue();
    default:
        return std::nullopt;
    }
}

const char* stringValue(const DWARFFormValue& value) {
    auto string = value.getAsCString();
    if (!string) {
        llvm::consumeError(string.takeError());
        return nullptr;
    }
    return *string;
}

// Reads one DIE's attribute values from their forms and hands them to the rules (DieAttributes,
// ReaderRules.h).
struct AttributeDecoder {
    const LlvmUnitReader& reader;
    llvm::DWARFUnit& llvmUnit;
    UnitDies& unit;
    DieAttributes rules;
    DieOffset unitStart; // the unit header's key: unit-relative references count from it
    std::vector<LocationOp>& scratchOps;

    DieOffset reference(const DWARFFormValue& value) const {
        switch (value.getForm()) {
        case dw::DW_FORM_ref1:
        case dw::DW_FORM_ref2:
        case dw::DW_FORM_ref4:
        case dw::DW_FORM_ref8:
        case dw::DW_FORM_ref_udata:
            return unitStart + value.getRawUValue();
        case dw::DW_FORM_ref_addr:
            return value.getRawUValue(); // always into .debug_info
        case dw::DW_FORM_ref_sig8:
            return reader.typeBySignature(value.getRawUValue());
        default:
            return kNoDie; // the supplementary (alt) file: refused when opened
        }
    }

    // Appends the operations of `bytes`, an expression starting at `sectionOffset` in the unit's
    // section when it is there (rather than in a location list entry LLVM copied): a DW_OP_addr
    // operand is then read through LLVM's relocations. Indexed addresses become DW_OP_addr.
    void decodeExpression(llvm::ArrayRef<uint8_t> bytes, std::optional<uint64_t> sectionOffset,
                          std::vector<LocationOp>& ops) const {
        const uint8_t addressSize = unit.addressSize;
        llvm::DataExtractor data(
            llvm::StringRef(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
            llvmUnit.isLittleEndian(), addressSize);
        llvm::DWARFExpression expression(data, addressSize, llvmUnit.getFormat());
        // LLVM decodes DW_OP_entry_value's sub-expression as the operations that follow it;
        // LocationOp keeps it as the entry-value operation's block.
        uint64_t start = 0, subExpressionEnd = 0;
        for (const auto& op : expression) {
            const uint64_t at = std::exchange(start, op.getEndOffset());
            if (at < subExpressionEnd)
                continue;
            LocationOp out{op.getCode(), 0, 0};
            if (op.isError() && op.getCode() == kGnuParameterRef && at + 5 <= bytes.size()) {
                // gcc writes it for parameters of clones; LLVM 19 does not know it. Its operand
                // is 4 bytes; decoding goes on after it.
                uint64_t operand = at + 1;
                out.number = data.getU32(&operand); // in the unit's byte order
                ops.push_back(out);
                std::optional<uint64_t> rest;
                if (sectionOffset)
                    rest = *sectionOffset + at + 5;
                decodeExpression(bytes.drop_front(at + 5), rest, ops);
                return;
            }
            if (op.isError()) {
                // An operation LLVM cannot decode (DW_OP_implicit_pointer in LLVM 19, or one cut
                // short) ends the expression, kept with unknown operands.
                ops.push_back(out);
                return;
            }
            auto operands = op.getRawOperands();
            if (!operands.empty())
                out.number = operands[0];
            if (operands.size() > 1)
                out.number2 = operands[1];
            switch (op.getCode()) {
            case dw::DW_OP_addr:
                if (sectionOffset) {
                    uint64_t at = *sectionOffset + op.getOperandEndOffset(0) - addressSize;
                    llvm::DWARFDataExtractor relocated(reader.dwarfObject(),
                                                       llvmUnit.getInfoSection(),
                                                       llvmUnit.isLittleEndian(), addressSize);
                    uint64_t section = llvm::object::SectionedAddress::UndefSection;
                    uint64_t value = relocated.getRelocatedAddress(&at, &section);
                    out.number = reader.address({value, section});
                }
                break;
            case dw::DW_OP_addrx:
            case dw::DW_OP_GNU_addr_index:
                if (auto address =
                        llvmUnit.getAddrOffsetSectionItem(static_cast<uint32_t>(out.number)))
                    out = {dw::DW_OP_addr, reader.address(*address), 0};
                break;
            case dw::DW_OP_entry_value:
            case dw::DW_OP_GNU_entry_value: // LocationOp holds the block's first byte
                subExpressionEnd = op.getEndOffset() + out.number;
                out.number2 =
                    out.number && op.getEndOffset() < bytes.size() ? bytes[op.getEndOffset()] : 0;
                break;
            case dw::DW_OP_implicit_value: { // LLVM: the block's length and offset
                uint64_t block = operands.size() > 1 ? operands[1] : bytes.size();
                out.number2 = out.number && block < bytes.size() ? bytes[block] : 0;
                break;
            }
            default:
                break;
            }
            ops.push_back(out);
        }
    }

    // A block attribute's bytes, when they lie inside the unit's section: LLVM takes a block's
    // length as the DIE gives it, and a broken one would point past the section.
    std::optional<llvm::ArrayRef<uint8_t>> blockOf(const DWARFFormValue& value) const {
        auto bytes = value.getAsBlock();
        llvm::StringRef section = llvmUnit.getInfoSection().Data;
        const auto* begin = reinterpret_cast<const uint8_t*>(section.data());
        if (!bytes || bytes->data() < begin || bytes->data() > begin + section.size() ||
            bytes->size() > static_cast<size_t>(begin + section.size() - bytes->data()))
            return std::nullopt;
        return bytes;
    }

    // Where an expression block of this unit's section starts in that section.
    uint64_t offsetInSection(llvm::ArrayRef<uint8_t> block) const {
        return static_cast<uint64_t>(reinterpret_cast<const char*>(block.data()) -
                                     llvmUnit.getInfoSection().Data.data());
    }

    void decodeLocation(const DWARFFormValue& value) {
        dw::Form form = value.getForm();
        const bool isList = DieAttributes::isLocationList(form, unit.version);
        rules.location(isList);
        if (!isList) {
            if (auto block = blockOf(value)) {
                decodeExpression(*block, offsetInSection(*block), rules.expression());
                rules.expressionRead(true);
            }
            return;
        }
        std::optional<uint64_t> offset = value.getRawUValue();
        if (form == dw::DW_FORM_loclistx)
            offset = llvmUnit.getLoclistOffset(static_cast<uint32_t>(value.getRawUValue()));
        // LLVM looks the first entry's relocation up before it checks the offset, and an offset
        // of ~0 (its hash map's empty key) finds an uninitialised entry.
        const llvm::DWARFObject& object = reader.dwarfObject();
        const llvm::DWARFSection& lists =
            llvmUnit.getVersion() >= 5 ? object.getLoclistsSection() : object.getLocSection();
        if (!offset || *offset >= lists.Data.size())
            return;
        auto visited = llvmUnit.getLocationTable().visitLocationList(
            &*offset, [&](const llvm::DWARFLocationEntry& entry) {
                switch (entry.Kind) {
                case dw::DW_LLE_end_of_list:
                case dw::DW_LLE_base_address:
                case dw::DW_LLE_base_addressx:
                    return true;
                default:
                    break;
                }
                if (rules.wanted()) {
                    decodeExpression(entry.Loc, std::nullopt, rules.expression());
                    rules.expressionRead(true);
                }
                return true;
            });
        llvm::consumeError(std::move(visited));
    }

    void decode(dw::Attribute attribute, const DWARFFormValue& value) {
        if (!DieAttributes::isUsed(attribute))
            return;
        if (attribute == dw::DW_AT_location)
            return decodeLocation(value);
        if (attribute == dw::DW_AT_ranges)
            return rules.ranges(); // read by the walk if the rules need it
        const FormClass kind = formClass(value.getForm());
        switch (kind) {
        case FormClass::Flag:
            rules.flag(attribute, value.getAsUnsignedConstant().value_or(0) != 0);
            break;
        case FormClass::String:
            if (const char* s = stringValue(value))
                rules.string(attribute, s);
            break;
        case FormClass::Reference:
            rules.reference(attribute, reference(value));
            break;
        case FormClass::Address:
            if (auto address = value.getAsSectionedAddress())
                rules.address(attribute, reader.address(*address));
            break;
        case FormClass::Block:
        case FormClass::Expression: {
            auto block = blockOf(value);
            if (DieAttributes::takesOperations(attribute, kind)) {
                scratchOps.clear();
                if (block)
                    decodeExpression(*block, std::nullopt, scratchOps);
                rules.operations(attribute, scratchOps);
            } else if (block && kind == FormClass::Block) {
                rules.block(attribute, *block, !llvmUnit.isLittleEndian());
            }
            break;
        }
        case FormClass::Constant:
            if (auto number = unsignedValue(value))
                rules.constant(attribute, {*number, isSignedForm(value.getForm())});
            break;
        }
    }
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
        if (section.sh_info < sections->size()) {
            auto name = file.getSectionName((*sections)[section.sh_info]);
            if (name)
                target = name->str();
            else
                llvm::consumeError(name.takeError());
        }
        const bool debug = target.starts_with(".debug") || target.starts_with(".zdebug");
        std::unordered_map<uint64_t, uint8_t> atOffset;
        auto check = [&](auto relocations) -> std::string {
            if (!relocations)
                return llvm::toString(relocations.takeError());
            for (const auto& relocation : *relocations) {
                if (relocation.getSymbol(file.isMips64EL()) >= symbols->size())
                    return "a relocation names symbol " +
                           std::to_string(relocation.getSymbol(file.isMips64EL())) +
                           ", past the end of its symbol table";
                if (!debug)
                    continue;
                const uint32_t type = relocation.getType(file.isMips64EL());
                if (!supports)
                    return "LLVM relocates no objects of machine " +
                           std::to_string(file.getHeader().e_machine);
                if (!supports(type))
                    return "relocation type " + file.getRelocationTypeName(type).str() +
                           " in the relocations of " + target +
                           " is not one LLVM's DWARF reader applies";
                if (++atOffset[relocation.r_offset] > 2)
                    return "more than two relocations at offset " +
                           std::to_string(relocation.r_offset) + " of " + target;
            }
            return {};
        };
        std::string problem = rela ? check(file.relas(section)) : check(file.rels(section));
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

std::string relocationProblem(const llvm::object::ObjectFile& object) {
    llvm::object::SupportsRelocation supports = llvm::object::getRelocationResolver(object).first;
    return withElfFile(object, [&](const auto& elf) { return relocationProblem(elf, supports); });
}

// Whether the attributes of the DIE at `offset` (at its abbreviation code, before `end`) end
// inside the unit. LLVM's DIE decoder skips a block by adding its length to the offset unchecked
// and then reads the next LEB128 from wherever that points, past the section (found by the
// fuzzer): the lengths are checked here first, with LLVM's own abbreviations.
bool attributesInBounds(const llvm::DWARFUnit& unit, const llvm::DWARFDataExtractor& data,
                        uint64_t offset, uint64_t end) {
    namespace dw = llvm::dwarf;
    const uint64_t code = data.getULEB128(&offset);
    const llvm::DWARFAbbreviationDeclarationSet* set = unit.getAbbreviations();
    const llvm::DWARFAbbreviationDeclaration* decl =
        code && set ? set->getAbbreviationDeclaration(static_cast<uint32_t>(code)) : nullptr;
    if (!decl)
        return true; // a null entry, or a code LLVM reports itself
    // Most DIEs hold only fixed-size values (no block, string or LEB128), whose size LLVM
    // computed with the abbreviation: one comparison instead of a walk.
    if (auto fixed = decl->getFixedAttributesByteSize(unit))
        return offset <= end && *fixed <= end - offset;
    const dw::FormParams params = unit.getFormParams();
    for (const auto& spec : decl->attributes()) {
        if (offset > end)
            return false;
        if (spec.isImplicitConst())
            continue;
        auto form = spec.Form;
        while (form == dw::DW_FORM_indirect && offset < end)
            form = static_cast<dw::Form>(data.getULEB128(&offset));
        uint64_t length = 0;
        switch (form) {
        case dw::DW_FORM_indirect:
            return false;
        case dw::DW_FORM_block:
        case dw::DW_FORM_exprloc:
            length = data.getULEB128(&offset);
            break;
        case dw::DW_FORM_block1:
            length = data.getU8(&offset);
            break;
        case dw::DW_FORM_block2:
            length = data.getU16(&offset);
            break;
        case dw::DW_FORM_block4:
            length = data.getU32(&offset);
            break;
        default:
            if (!llvm::DWARFFormValue::skipValue(form, data, &offset, params))
                return false;
            continue;
        }
        if (offset > end || length > end - offset)
            return false;
        offset += length;
    }
    return offset <= end;
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

std::string compressionProblem(const llvm::object::ObjectFile& object) {
    return withElfFile(object, [](const auto& elf) { return compressionProblem(elf); });
}

} // namespace

Expected<std::unique_ptr<LlvmUnitReader>> LlvmUnitReader::open(std::shared_ptr<MappedFile> file) {
    std::unique_ptr<LlvmUnitReader> reader(new LlvmUnitReader(std::move(file)));
    if (auto opened = reader->openObject(); !opened)
        return std::move(opened).error();
    reader->layOutSections();
    if (auto units = reader->enumerateUnits(); !units)
        return std::move(units).error();
    return reader;
}

Expected<void> LlvmUnitReader::openObject() {
    auto bytes = file_->bytes();
    llvm::MemoryBufferRef buffer(
        llvm::StringRef(reinterpret_cast<const char*>(bytes.data()), bytes.size()), path_);
    auto object = llvm::object::ObjectFile::createObjectFile(buffer);
    if (!object)
        return Error::badInput(path_ + ": " + oneLine(llvm::toString(object.takeError())));
    object_ = std::move(*object);
    if (!llvm::isa<llvm::object::ELFObjectFileBase>(object_.get()))
        return Error::badInput(path_ + ": not an ELF file");
    DwarfSectionCount count;
    for (const llvm::object::SectionRef& section : object_->sections()) {
        auto name = section.getName();
        if (!name) {
            llvm::consumeError(name.takeError());
            continue;
        }
        count.add(std::string_view(name->data(), name->size()));
        // LLVM does not follow dwz's supplementary files: types would silently be void.
        if (*name == ".gnu_debugaltlink")
            return Error::badInput(path_ + ": its DWARF continues in the file its "
                                           ".gnu_debugaltlink names, which LLVM's DWARF reader "
                                           "does not read (the dwarf loader does)");
    }
    // LLVM would read the last section of a repeated name, libdw the first.
    if (std::string problem = count.problem(); !problem.empty())
        return Error::badInput(path_ + ": " + problem);
    if (std::string problem = relocationProblem(*object_); !problem.empty())
        return Error::badInput(path_ + ": relocations: " + oneLine(problem));
    if (std::string problem = compressionProblem(*object_); !problem.empty())
        return Error::badInput(path_ + ": " + oneLine(problem));
    auto inflated = withElfFile(*object_, [](const auto& elf) { return inflateGnuSections(elf); });
    if (!inflated)
        return Error::badInput(path_ + ": " + oneLine(llvm::toString(inflated.takeError())));
    if (*inflated) {
        inflated_ = std::move(*inflated);
        auto reopened = llvm::object::ObjectFile::createObjectFile(llvm::MemoryBufferRef(
            llvm::StringRef(inflated_->getBufferStart(), inflated_->getBufferSize()), path_));
        if (!reopened)
            return Error::badInput(path_ + ": " + oneLine(llvm::toString(reopened.takeError())));
        object_ = std::move(*reopened);
    }
    ErrorSink sink;
    context_ = llvm::DWARFContext::create(
        *object_, llvm::DWARFContext::ProcessDebugRelocations::Process, nullptr, "", recordError,
        recordError, // LLVM's warnings include DIEs it could not read
        /*ThreadSafe=*/true);
    if (!sink.message().empty())
        return Error::badInput(path_ + ": cannot read its DWARF (" + sink.message() + ")");
    return {};
}

void LlvmUnitReader::layOutSections() {
    const auto& elf = *llvm::cast<llvm::object::ELFObjectFileBase>(object_.get());
    const bool relocatable = elf.getEType() == llvm::ELF::ET_REL;
    // A relocatable object's sections all start at 0: each gets a range of its own, above 0 so
    // that an address nothing relocated stays outside every section.
    uint64_t next = 0x1000;
    for (const llvm::object::ELFSectionRef section : elf.sections()) {
        if (!(section.getFlags() & llvm::ELF::SHF_ALLOC))
            continue;
        auto index = static_cast<uint32_t>(section.getIndex());
        uint64_t size = section.getSize();
        uint64_t start = section.getAddress();
        if (relocatable) {
            start = next;
            next += (size + 0xfff) & ~uint64_t(0xfff);
            next += 0x1000;
            if (sectionBase_.size() <= index)
                sectionBase_.resize(index + 1, 0);
            sectionBase_[index] = start;
        }
        sections_.add(start, size, index);
    }
    sections_.sort();
}

uint64_t LlvmUnitReader::address(llvm::object::SectionedAddress address) const {
    if (address.SectionIndex < sectionBase_.size())
        return sectionBase_[address.SectionIndex] + address.Address;
    return address.Address;
}

DieOffset LlvmUnitReader::typeBySignature(uint64_t signature) const {
    auto it = typeUnits_.find(signature);
    return it == typeUnits_.end() ? kNoDie : it->second;
}

Expected<void> LlvmUnitReader::enumerateUnits() {
    ErrorSink sink;
    // Where each section's units start among the keys: the sections of a name laid end to end,
    // in the file's order (ReaderRules.h), as libdw reads them. `end`: how far its units reach.
    struct Section {
        const llvm::DWARFSection* section;
        DieOffset bias;
        uint64_t end;
    };
    std::vector<Section> sections;
    DieOffset next = 0;
    auto add = [&](const llvm::DWARFSection& section) {
        sections.push_back({&section, next, 0});
        next += section.Data.size();
    };
    context_->getDWARFObj().forEachInfoSections(add);
    const size_t infoSections = sections.size();
    const uint64_t infoSize = next;
    next = kTypesBias;
    context_->getDWARFObj().forEachTypesSections(add);
    for (const auto& unit : context_->normal_units()) {
        auto in = std::find_if(sections.begin(), sections.end(), [&](const Section& s) {
            return s.section == &unit->getInfoSection();
        });
        if (in == sections.end())
            return Error::badInput(path_ + ": unit " + hex(unit->getOffset()) +
                                   ": in no .debug_info or .debug_types section");
        const DieOffset bias = in->bias;
        // Parsed here, once: LLVM parses abbreviations lazily into state all units share.
        unit->getAbbreviations();
        DWARFDie root = unit->getUnitDIE(/*ExtractUnitDIEOnly=*/true);
        auto unitError = [&](const std::string& what) {
            return Error::badInput(path_ + ": unit " + hex(joinedOffset(bias, unit->getOffset())) +
                                   sectionName(bias) + ": " + what);
        };
        if (!sink.message().empty() || !root)
            return unitError(sink.message().empty() ? "no unit DIE" : sink.message());
        // LLVM reads address n at base + n * size after checking only that this sum, which can
        // wrap, ends inside .debug_addr; a wrapped offset of ~0 finds an uninitialised relocation.
        const uint64_t addrSize = context_->getDWARFObj().getAddrSection().Data.size();
        if (auto base = unit->getAddrOffsetSectionBase(); base && *base > addrSize)
            return unitError("DW_AT_addr_base " + hex(*base) + " is past the end of .debug_addr (" +
                             std::to_string(addrSize) + " bytes)");
        uint8_t type = unit->getUnitType();
        auto tag = root.getTag();
        // DWARF 4 has no unit types in headers: partial units are known by their DIE.
        bool partial = type == dw::DW_UT_partial || type == dw::DW_UT_type ||
                       type == dw::DW_UT_split_type || tag == dw::DW_TAG_partial_unit ||
                       tag == dw::DW_TAG_type_unit || unit->isTypeUnit();
        // A signature names the type DIE of the unit that declares it, inside that unit.
        if (auto* typeUnit = llvm::dyn_cast<llvm::DWARFTypeUnit>(unit.get());
            typeUnit &&
            typeUnit->getTypeOffset() < typeUnit->getNextUnitOffset() - typeUnit->getOffset())
            typeUnits_.emplace(typeUnit->getTypeHash(),
                               typeUnit->getOffset() + typeUnit->getTypeOffset() + bias);
        in->end = unit->getNextUnitOffset();
        units_.push_back({unit.get(), bias, partial});
    }
    if (infoSections > 0) { // the host's file is always a mapping
        infoSection_ = sections.front().section;
        llvm::StringRef info = infoSection_->Data;
        auto file = file_->bytes();
        const auto* begin = reinterpret_cast<const std::byte*>(info.data());
        if (begin >= file.data() && begin + info.size() <= file.data() + file.size())
            info_ = std::as_bytes(std::span(info.data(), info.size()));
    }
    // Reading every unit header faulted in (with the kernel's fault-around) much of the section;
    // workers bring back only the unit they read.
    dropInfoPages(0, info_.size());
    if (units_.empty() && infoSize == 0)
        return Error::badInput(path_ + ": .debug_info has no units");
    // LLVM stops reading a section at the first unit header it cannot read, or one whose length
    // runs past the end.
    for (const Section& section : sections) {
        if (sink.message().empty() && section.end == section.section->Data.size())
            continue;
        return Error::badInput(
            path_ + ": unit " + hex(joinedOffset(section.bias, section.end)) +
            sectionName(section.bias) + ": " +
            (sink.message().empty() ? "its header cannot be read" : sink.message()));
    }
    return {};
}

void LlvmUnitReader::releaseUnit(size_t index) {
    // Type units live in .debug_types or between the compile units: only those are released.
    const Unit& unit = units_[index];
    if (&unit.unit->getInfoSection() == infoSection_ && !unit.unit->isTypeUnit())
        dropInfoPages(unit.unit->getOffset(), unit.unit->getNextUnitOffset());
}

void LlvmUnitReader::dropInfoPages(uint64_t begin, uint64_t end) const {
    if (begin < end && end <= info_.size())
        dropFilePages(info_.subspan(begin, end - begin));
}

Expected<void> LlvmUnitReader::readUnit(size_t index, UnitDies& out) {
    out.clear();
    const Unit& unit = units_[index];
    llvm::DWARFUnit& llvmUnit = *unit.unit;
    ErrorSink sink;
    auto failure = [&](const std::string& what) {
        return Error::badInput(
            path_ + ": unit " + hex(joinedOffset(unit.bias, llvmUnit.getOffset())) +
            sectionName(unit.bias) + ": " + (sink.message().empty() ? what : sink.message()));
    };
    // The DIEs are decoded one at a time, in order, with LLVM's DIE decoder: the unit's own DIE
    // array, which LLVM keeps until the context goes (gigabytes on a kernel), is never filled.
    const llvm::DWARFDataExtractor data = llvmUnit.getDebugInfoExtractor();
    const dw::FormParams params = llvmUnit.getFormParams();
    const uint64_t end = llvmUnit.getNextUnitOffset();
    uint64_t offset = llvmUnit.getOffset() + llvmUnit.getHeaderSize();
    auto pastUnit = [&] {
        return failure("the DIE at " + hex(joinedOffset(unit.bias, offset)) +
                       " ends past its unit");
    };
    llvm::DWARFDebugInfoEntry root;
    if (offset < end && !attributesInBounds(llvmUnit, data, offset, end))
        return pastUnit();
    if (!root.extractFast(llvmUnit, &offset, data, end, 0) || !root.getAbbreviationDeclarationPtr())
        return failure("no unit DIE");
    out.unitOffset = root.getOffset() + unit.bias;
    out.version = llvmUnit.getVersion();
    out.addressSize = llvmUnit.getAddressByteSize();
    out.isPartial = unit.partial;
    const DieOffset unitStart = llvmUnit.getOffset() + unit.bias;

    std::vector<LocationOp> scratchOps;
    DieTreeBuilder tree(out);
    auto keep = [&](const llvm::DWARFDebugInfoEntry& entry, uint32_t parent) {
        const DWARFDie d(&llvmUnit, &entry);
        const uint16_t tag = entry.getTag();
        Die& die = tree.add(d.getOffset() + unit.bias, tag, parent);
        AttributeDecoder decoder{*this,     llvmUnit,  out, DieAttributes(out, die, scratchOps),
                                 unitStart, scratchOps};
        // The values the rules use are decoded, the others stepped over (LLVM's attribute
        // iterator decodes every one: a seventh of this reader's time). The attributes start
        // after the abbreviation code, as that iterator takes them to.
        const llvm::DWARFAbbreviationDeclaration& decl = *entry.getAbbreviationDeclarationPtr();
        uint64_t at = entry.getOffset() + llvm::getULEB128Size(decl.getCode());
        for (const auto& spec : decl.attributes()) {
            if (spec.isImplicitConst()) {
                if (DieAttributes::isUsed(spec.Attr))
                    decoder.decode(spec.Attr, DWARFFormValue::createFromSValue(
                                                  spec.Form, spec.getImplicitConstValue()));
            } else if (!DieAttributes::isUsed(spec.Attr)) {
                DWARFFormValue::skipValue(spec.Form, data, &at, params);
            } else {
                decoder.decode(spec.Attr,
                               DWARFFormValue::createFromUnit(spec.Form, &llvmUnit, &at));
            }
        }
        if (decoder.rules.needsFirstRange()) {
            auto ranges = d.getAddressRanges();
            if (!ranges) {
                llvm::consumeError(ranges.takeError());
            } else if (!ranges->empty()) {
                decoder.rules.address(dw::DW_AT_low_pc, address({ranges->front().LowPC,
                                                                 ranges->front().SectionIndex}));
            }
        }
        return tree.lastIndex();
    };

    keep(root, kNoIndex);
    out.name = out.dies[0].name;
    const DWARFDie rootDie(&llvmUnit, &root);
    if (auto language = rootDie.find(dw::DW_AT_language))
        out.language = static_cast<uint16_t>(unsignedValue(*language).value_or(0));
    if (auto producer = rootDie.find(dw::DW_AT_producer))
        if (const char* s = stringValue(*producer))
            out.producer = s;
    if (!root.hasChildren())
        return {};

    // One level per DIE whose children are being read, ended by a null entry.
    struct Level {
        uint16_t tag;       // the parent's (a lexical block passes its function's down)
        uint32_t keptOwner; // nearest kept ancestor (or itself)
        bool skipped;       // nothing below can be needed
    };
    std::vector<Level> levels{{root.getTag(), 0, false}};
    while (!levels.empty()) {
        if (offset >= end)
            break; // some producers leave out the null entries that end the unit
        llvm::DWARFDebugInfoEntry entry;
        if (!attributesInBounds(llvmUnit, data, offset, end))
            return pastUnit();
        if (!entry.extractFast(llvmUnit, &offset, data, end, 0))
            return failure("a DIE at " + hex(joinedOffset(unit.bias, offset)) + " cannot be read");
        if (!entry.getAbbreviationDeclarationPtr()) { // the null entry that ends a list
            levels.pop_back();
            continue;
        }
        const Level parent = levels.back();
        const uint16_t tag = entry.getTag();
        Visit visit = parent.skipped ? Visit::Skip : classifyDie(tag, parent.tag);
        uint32_t owner = parent.keptOwner;
        if (visit == Visit::Keep)
            owner = keep(entry, owner);
        if (entry.hasChildren())
            levels.push_back(
                {visit == Visit::Descend ? parent.tag : tag, owner, visit == Visit::Skip});
    }
    if (!sink.message().empty())
        return failure("");
    return {};
}

} // namespace btforge::dwarf
