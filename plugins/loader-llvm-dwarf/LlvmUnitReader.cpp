#include "LlvmUnitReader.h"

#include "LlvmAttributeDecoder.h"
#include "LlvmInputChecks.h"

#include "btforge/dwarf/DieTreeBuilder.h"
#include "btforge/dwarf/DieVisit.h"
#include "btforge/dwarf/DwarfSections.h"
#include "btforge/support/Hex.h"
#include "btforge/support/MappedFile.h"

#include <cctype>
#include <llvm/DebugInfo/DWARF/DWARFDebugAbbrev.h>
#include <llvm/DebugInfo/DWARF/DWARFDie.h>
#include <llvm/DebugInfo/DWARF/DWARFTypeUnit.h>
#include <llvm/DebugInfo/DWARF/DWARFUnit.h>
#include <llvm/Object/ELFObjectFile.h>
#include <utility>

namespace btforge::dwarf {
namespace {

using llvm::DWARFDie;
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

// An offset of a unit's section as messages give it: in the sections of its name laid end to
// end, as the keys count (and as a linker would join them).
uint64_t joinedOffset(DieOffset bias, uint64_t offset) {
    return (bias >= kTypesBias ? bias - kTypesBias : bias) + offset;
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
    auto inflated = inflateGnuSections(*object_);
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
            // LLVM adds a relocatable section's sh_addr to its symbols' values (the module
            // linker script of 6.x kernels gives .data one): that part is replaced by `start`.
            sectionBase_[index] = start - section.getAddress();
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
    // in the file's order (DwarfSections.h), as libdw reads them. `end`: how far its units reach.
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
                                   sectionOfBias(bias) + ": " + what);
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
        // DWARF 4's GNU split units are compile units with a DW_AT_GNU_dwo_id.
        if (type == dw::DW_UT_skeleton ||
            (tag == dw::DW_TAG_compile_unit && root.find(dw::DW_AT_GNU_dwo_id)))
            return unitError(skeletonUnitProblem(
                llvm::dwarf::toStringRef(root.find({dw::DW_AT_dwo_name, dw::DW_AT_GNU_dwo_name}))));
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
            sectionOfBias(section.bias) + ": " +
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
            sectionOfBias(unit.bias) + ": " + (sink.message().empty() ? what : sink.message()));
    };
    // The DIEs are decoded one at a time, in order, abbreviation and values in one pass over
    // their bytes: LLVM's own DIE extraction would step over the values first, and fill the
    // unit's DIE array, which LLVM keeps until the context goes (gigabytes on a kernel).
    const llvm::DWARFDataExtractor data = llvmUnit.getDebugInfoExtractor();
    const dw::FormParams params = llvmUnit.getFormParams();
    const uint64_t end = llvmUnit.getNextUnitOffset();
    const llvm::DWARFAbbreviationDeclarationSet* abbreviations = llvmUnit.getAbbreviations();
    uint64_t offset = llvmUnit.getOffset() + llvmUnit.getHeaderSize();
    const llvm::StringRef strings = llvmUnit.getStringSection();
    const DieSource source{*this,
                           llvmUnit,
                           data,
                           params,
                           end,
                           llvmUnit.getOffset() + unit.bias,
                           strings.take_front(strings.rfind('\0') + 1)};
    // The abbreviation of the DIE at `offset`, moved past its code; null for the entry ending a
    // list, or nothing when LLVM cannot read it (it reports why).
    auto abbreviationAt =
        [&](uint64_t& offset) -> std::optional<const llvm::DWARFAbbreviationDeclaration*> {
        const uint64_t at = offset;
        if (offset < end) {
            const uint64_t code = data.getULEB128(&offset);
            if (code == 0)
                return nullptr;
            if (abbreviations && code <= UINT32_MAX)
                if (const auto* decl = abbreviations->getAbbreviationDeclaration(uint32_t(code)))
                    return decl;
        }
        llvm::DWARFDebugInfoEntry entry; // LLVM's extraction says what is wrong
        offset = at;
        entry.extractFast(llvmUnit, &offset, data, end, 0);
        return std::nullopt;
    };

    std::vector<LocationOp> scratchOps;
    DieTreeBuilder tree(out, end - llvmUnit.getOffset());
    // Reads the DIE whose abbreviation is `decl` into the tree; false when it runs past the unit.
    auto keep = [&](const llvm::DWARFAbbreviationDeclaration& decl, uint64_t dieOffset,
                    uint32_t parent) {
        Die& die = tree.add(dieOffset + unit.bias, decl.getTag(), parent);
        return decodeAttributes(source, decl, dieOffset, &offset, out, die, scratchOps);
    };
    // Said only once reading failed: which value is wrong, found by stepping over them again.
    auto badValues = [&](const llvm::DWARFAbbreviationDeclaration& decl, uint64_t dieOffset,
                         uint64_t valuesAt) {
        return failure("the DIE at " + hex(joinedOffset(unit.bias, dieOffset)) + ": " +
                       valuesProblem(source, decl, valuesAt));
    };
    const uint64_t rootOffset = offset;
    auto rootDecl = abbreviationAt(offset);
    if (!rootDecl || !*rootDecl)
        return failure("no unit DIE");
    if (const uint64_t valuesAt = offset; !keep(**rootDecl, rootOffset, kNoIndex))
        return badValues(**rootDecl, rootOffset, valuesAt);
    out.unitOffset = rootOffset + unit.bias;
    out.version = llvmUnit.getVersion();
    out.addressSize = llvmUnit.getAddressByteSize();
    out.isPartial = unit.partial;
    out.name = out.dies[0].name;
    {
        llvm::DWARFDebugInfoEntry root;
        uint64_t at = rootOffset;
        root.extractFast(llvmUnit, &at, data, end, 0);
        const DWARFDie rootDie(&llvmUnit, &root);
        if (auto language = rootDie.find(dw::DW_AT_language))
            out.language = static_cast<uint16_t>(unsignedValue(*language).value_or(0));
        if (auto producer = rootDie.find(dw::DW_AT_producer))
            if (const char* s = stringValue(*producer))
                out.producer = s;
    }
    if (!(*rootDecl)->hasChildren())
        return {};

    // One level per DIE whose children are being read, ended by a null entry.
    struct Level {
        uint16_t tag;       // the parent's (a lexical block passes its function's down)
        uint32_t keptOwner; // nearest kept ancestor (or itself)
        bool skipped;       // nothing below can be needed
    };
    std::vector<Level> levels{{(*rootDecl)->getTag(), 0, false}};
    while (!levels.empty()) {
        if (offset >= end)
            break; // some producers leave out the null entries that end the unit
        const uint64_t dieOffset = offset;
        auto decl = abbreviationAt(offset);
        if (!decl)
            return failure("a DIE at " + hex(joinedOffset(unit.bias, dieOffset)) +
                           " cannot be read");
        if (!*decl) { // the null entry that ends a list
            levels.pop_back();
            continue;
        }
        const Level parent = levels.back();
        const uint16_t tag = (*decl)->getTag();
        Visit visit = parent.skipped ? Visit::Skip : classifyDie(tag, parent.tag);
        uint32_t owner = parent.keptOwner;
        const uint64_t valuesAt = offset;
        if (visit == Visit::Keep) {
            if (!keep(**decl, dieOffset, owner))
                return badValues(**decl, dieOffset, valuesAt);
            owner = tree.lastIndex();
        } else if (!skipAttributes(source, **decl, &offset)) {
            return badValues(**decl, dieOffset, valuesAt);
        }
        if ((*decl)->hasChildren())
            levels.push_back({tag, owner, visit == Visit::Skip});
    }
    if (!sink.message().empty())
        return failure("");
    return {};
}

} // namespace btforge::dwarf
