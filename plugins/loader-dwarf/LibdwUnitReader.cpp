#include "LibdwUnitReader.h"

#include "LocationDecoder.h"

#include "btforge/dwarf/ReaderRules.h"
#include "btforge/dwarf/UnitMapper.h"
#include "btforge/support/Hex.h"
#include "btforge/support/MappedFile.h"

#include <gelf.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <dwarf.h>
#include <fcntl.h>
#include <sstream>
#include <unistd.h>

namespace btforge::dwarf {
namespace {

// libdw's and libdwfl's last error messages are null when they recorded none.
std::string orUnknown(const char* message) {
    return message ? message : "unknown error";
}

// The bias of the DIEs of `cu`, a unit of `main` or of its alt file.
DieOffset biasOf(Dwarf* main, Dwarf_CU* cu) {
    if (dwarf_cu_getdwarf(cu) != main)
        return kAltBias;
    Dwarf_Half version = 0;
    uint8_t unitType = 0;
    dwarf_cu_info(cu, &version, &unitType, nullptr, nullptr, nullptr, nullptr, nullptr);
    return version < 5 && unitType == DW_UT_type ? kTypesBias : 0;
}

// The sections location lists live in, and where this unit's loclistx table starts.
struct LocationSections {
    std::span<const uint8_t> lists;    // .debug_loclists (DWARF 5)
    std::span<const uint8_t> oldLists; // .debug_loc (DWARF 2-4)
    uint64_t listsBase = 0;
};

// Decodes one DIE's attributes in a single dwarf_getattrs pass.
struct AttributeDecoder {
    UnitDies& unit;
    Die& die;
    Dwarf* dwarf;
    DieOffset unitStart; // the unit header's key: unit-relative references count from it
    const LocationSections& locations;
    std::vector<LocationOp>& scratchOps;
    bool hasRanges = false;

    static int callback(Dwarf_Attribute* attr, void* arg) {
        static_cast<AttributeDecoder*>(arg)->decode(attr);
        return DWARF_CB_OK;
    }

    DieOffset reference(Dwarf_Attribute* attr) const {
        switch (dwarf_whatform(attr)) {
        case DW_FORM_ref1:
        case DW_FORM_ref2:
        case DW_FORM_ref4:
        case DW_FORM_ref8:
        case DW_FORM_ref_udata: {
            // The common case, unit-relative: no need to decode the target DIE, which is what
            // the non-deprecated dwarf_formref_die would do for every reference.
            Dwarf_Off offset;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
            int rc = dwarf_formref(attr, &offset);
#pragma GCC diagnostic pop
            return rc == 0 ? unitStart + offset : kNoDie;
        }
        default: {
            // ref_addr, type unit signatures, the alt file: libdw finds the DIE in its unit.
            Dwarf_Die target;
            if (!dwarf_formref_die(attr, &target))
                return kNoDie;
            return dwarf_dieoffset(&target) + biasOf(dwarf, target.cu);
        }
        }
    }

    static bool udata(Dwarf_Attribute* attr, uint64_t& value) {
        Dwarf_Word word;
        if (dwarf_formudata(attr, &word) != 0)
            return false;
        value = word;
        return true;
    }

    static bool isSignedForm(unsigned form) {
        return form == DW_FORM_sdata || form == DW_FORM_implicit_const;
    }

    void setFlag(Dwarf_Attribute* attr, DieFlag flag) {
        bool value = false;
        if (dwarf_formflag(attr, &value) == 0 && value)
            die.flags |= flag;
    }

    void setNumber(Dwarf_Attribute* attr, uint64_t& field, DieFlag flag) {
        if (udata(attr, field))
            die.flags |= flag;
    }

    // Copies a location expression's operations into the unit. Indexed addresses (DWARF 5's
    // DW_OP_addrx, via .debug_addr) become plain DW_OP_addr, so core sees one form.
    void storeOps(Dwarf_Attribute* attr, Dwarf_Op* ops, size_t count) {
        die.locationFirst = static_cast<uint32_t>(unit.locationOps.size());
        die.locationCount = static_cast<uint32_t>(count);
        for (size_t i = 0; i < count; ++i) {
            LocationOp op{ops[i].atom, ops[i].number, ops[i].number2};
            if (op.atom == DW_OP_entry_value || op.atom == DW_OP_GNU_entry_value ||
                op.atom == DW_OP_implicit_value) // libdw: a pointer to the block
                op.number2 = op.number ? *reinterpret_cast<const uint8_t*>(ops[i].number2) : 0;
            if (op.atom == DW_OP_addrx || op.atom == DW_OP_GNU_addr_index) {
                Dwarf_Attribute address;
                Dwarf_Addr value;
                if (dwarf_getlocation_attr(attr, &ops[i], &address) == 0 &&
                    dwarf_formaddr(&address, &value) == 0)
                    op = {DW_OP_addr, value, 0};
            }
            unit.locationOps.push_back(op);
        }
    }

    // The expression's operations, decoded here; the few with an index into .debug_addr go
    // through libdw. False when the expression cannot be read.
    bool storeExpression(Dwarf_Attribute* attr, std::span<const uint8_t> bytes) {
        auto first = static_cast<uint32_t>(unit.locationOps.size());
        Decoded decoded = decodeExpression(bytes, unit.addressSize, unit.locationOps);
        if (decoded == Decoded::Ok) {
            die.locationFirst = first;
            die.locationCount = static_cast<uint32_t>(unit.locationOps.size()) - first;
            return true;
        }
        unit.locationOps.resize(first);
        Dwarf_Op* ops = nullptr;
        size_t count = 0;
        if (decoded != Decoded::NeedsAddressTable || dwarf_getlocation(attr, &ops, &count) != 0)
            return false;
        storeOps(attr, ops, count);
        return true;
    }

    void noteEntryValue(std::span<const uint8_t> bytes) {
        if (die.entryValueRegister != 0xff)
            return;
        scratchOps.clear();
        if (decodeExpression(bytes, unit.addressSize, scratchOps) == Decoded::Ok)
            die.entryValueRegister = entryValueRegister(scratchOps);
    }

    void decodeLocation(Dwarf_Attribute* attr) {
        die.flags |= kHasLocation;
        // Only parameters and file-scope variables get here; their first expression and any
        // entry-value register are what the function and variable rules look at.
        unsigned form = dwarf_whatform(attr);
        bool isList = form == DW_FORM_sec_offset || form == DW_FORM_loclistx ||
                      (unit.version < 4 && (form == DW_FORM_data4 || form == DW_FORM_data8));
        if (!isList) {
            Dwarf_Block block;
            if (dwarf_formblock(attr, &block) == 0 &&
                storeExpression(attr, {reinterpret_cast<const uint8_t*>(block.data), block.length}))
                die.flags |= kLocationKnown;
            return;
        }
        die.flags |= kLocationIsList;
        uint64_t offset = 0;
        if (!udata(attr, offset))
            return;
        if (form == DW_FORM_loclistx) {
            // An index into the offsets table at the unit's DW_AT_loclists_base.
            uint64_t slot = locations.listsBase + offset * 4;
            if (slot + 4 > locations.lists.size())
                return;
            uint32_t relative;
            std::memcpy(&relative, locations.lists.data() + slot, 4);
            offset = locations.listsBase + relative;
        }
        bool first = true;
        forEachLocationEntry(unit.version >= 5 ? locations.lists : locations.oldLists, offset,
                             unit.version, unit.addressSize, [&](std::span<const uint8_t> bytes) {
                                 if (first && storeExpression(attr, bytes))
                                     die.flags |= kLocationKnown;
                                 first = false;
                                 if (die.tag == DW_TAG_formal_parameter)
                                     noteEntryValue(bytes);
                             });
    }

    void decodeConstValue(Dwarf_Attribute* attr) {
        unsigned form = dwarf_whatform(attr);
        switch (form) {
        case DW_FORM_string:
        case DW_FORM_strp:
        case DW_FORM_line_strp:
        case DW_FORM_strx:
        case DW_FORM_strx1:
        case DW_FORM_strx2:
        case DW_FORM_strx3:
        case DW_FORM_strx4:
        case DW_FORM_GNU_strp_alt:
            if (const char* s = dwarf_formstring(attr)) {
                die.stringValue = s;
                die.flags |= kHasConstValue | kConstValueString;
            }
            return;
        case DW_FORM_block:
        case DW_FORM_block1:
        case DW_FORM_block2:
        case DW_FORM_block4: {
            Dwarf_Block block;
            if (dwarf_formblock(attr, &block) == 0) {
                uint64_t value = 0;
                std::memcpy(&value, block.data, std::min<size_t>(block.length, 8));
                die.constValue = value;
                die.flags |= kHasConstValue;
            }
            return;
        }
        default:
            break;
        }
        if (isSignedForm(form)) {
            Dwarf_Sword value;
            if (dwarf_formsdata(attr, &value) == 0) {
                die.constValue = static_cast<uint64_t>(value);
                die.flags |= kHasConstValue | kConstValueSigned;
            }
            return;
        }
        setNumber(attr, die.constValue, kHasConstValue);
    }

    void decodeBound(Dwarf_Attribute* attr, DieFlag flag) {
        unsigned form = dwarf_whatform(attr);
        if (form == DW_FORM_exprloc || form == DW_FORM_ref4 || form == DW_FORM_ref_udata)
            return; // variable length: no static count
        // data1..data8 are unsigned here (char[256] has upper bound 0xff); only the explicitly
        // signed forms can say -1, as C's zero-length arrays do.
        if (isSignedForm(form)) {
            Dwarf_Sword value;
            if (dwarf_formsdata(attr, &value) != 0)
                return;
            die.bound = static_cast<uint64_t>(value);
            if (value < 0)
                die.flags |= kConstValueSigned;
        } else if (!udata(attr, die.bound)) {
            return;
        }
        die.flags |= flag;
    }

    void decodeMemberLocation(Dwarf_Attribute* attr) {
        if (dwarf_whatform(attr) == DW_FORM_exprloc) {
            Dwarf_Op* ops = nullptr;
            size_t count = 0;
            if (dwarf_getlocation(attr, &ops, &count) == 0 && count == 1 &&
                ops[0].atom == DW_OP_plus_uconst) {
                die.dataMemberLocation = ops[0].number;
                die.flags |= kHasDataMemberLocation;
            }
            return;
        }
        setNumber(attr, die.dataMemberLocation, kHasDataMemberLocation);
    }

    void decode(Dwarf_Attribute* attr) {
        uint64_t value = 0;
        switch (dwarf_whatattr(attr)) {
        case DW_AT_name:
            if (const char* s = dwarf_formstring(attr))
                die.name = s;
            break;
        case DW_AT_type:
            die.type = reference(attr);
            break;
        case DW_AT_abstract_origin:
            die.abstractOrigin = reference(attr);
            break;
        case DW_AT_specification:
            die.specification = reference(attr);
            break;
        case DW_AT_signature:
            die.type = reference(attr);
            die.flags |= kSignature;
            break;
        case DW_AT_byte_size:
            setNumber(attr, die.byteSize, kHasByteSize);
            break;
        case DW_AT_bit_size:
            setNumber(attr, die.bitSize, kHasBitSize);
            break;
        case DW_AT_data_bit_offset:
            setNumber(attr, die.dataBitOffset, kHasDataBitOffset);
            break;
        case DW_AT_bit_offset:
            setNumber(attr, die.bitOffset, kHasBitOffset);
            break;
        case DW_AT_data_member_location:
            decodeMemberLocation(attr);
            break;
        case DW_AT_encoding:
            if (udata(attr, value))
                die.encoding = static_cast<uint8_t>(value);
            break;
        case DW_AT_calling_convention:
            if (udata(attr, value))
                die.callingConvention = static_cast<uint8_t>(value);
            break;
        case DW_AT_inline:
            if (udata(attr, value) && value != DW_INL_not_inlined)
                die.flags |= kInlined;
            break;
        case DW_AT_const_value:
            decodeConstValue(attr);
            break;
        case DW_AT_upper_bound:
            decodeBound(attr, kHasUpperBound);
            break;
        case DW_AT_count:
            decodeBound(attr, kHasCount);
            break;
        case DW_AT_low_pc: {
            Dwarf_Addr addr;
            if (dwarf_formaddr(attr, &addr) == 0) {
                die.lowPc = addr;
                die.flags |= kHasLowPc;
            }
            break;
        }
        case DW_AT_ranges:
            hasRanges = true;
            break;
        case DW_AT_location:
            decodeLocation(attr);
            break;
        case DW_AT_declaration:
            setFlag(attr, kDeclaration);
            break;
        case DW_AT_external:
            setFlag(attr, kExternal);
            break;
        case DW_AT_prototyped:
            setFlag(attr, kPrototyped);
            break;
        case DW_AT_artificial:
            setFlag(attr, kArtificial);
            break;
        case DW_AT_GNU_vector:
            setFlag(attr, kVector);
            break;
        default:
            break;
        }
    }
};

Elf_Scn* findSection(Elf* elf, std::string_view name) {
    size_t shstrndx = 0;
    if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0)
        return nullptr;
    for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr shdr;
        const char* found =
            gelf_getshdr(scn, &shdr) ? elf_strptr(elf, shstrndx, shdr.sh_name) : nullptr;
        if (!found)
            continue;
        std::string_view candidate(found);
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

// Why the compressed .debug_info of a file cannot be read (libelf knows zlib, zstd only from
// elfutils 0.189 on), or "" when it is not compressed or decompresses.
std::string compressionProblem(const std::string& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return {};
    std::string problem;
    if (Elf* elf = elf_begin(fd, ELF_C_READ, nullptr)) {
        Elf_Scn* scn = findSection(elf, ".debug_info");
        GElf_Shdr shdr;
        if (scn && gelf_getshdr(scn, &shdr) && (shdr.sh_flags & SHF_COMPRESSED) &&
            elf_compress(scn, 0, 0) < 0)
            problem = ".debug_info: " + orUnknown(elf_errmsg(-1));
        elf_end(elf);
    }
    ::close(fd);
    return problem;
}

// Where the DIEs of a bias are, for messages (.debug_info goes without saying).
const char* sectionName(DieOffset bias) {
    return bias == kTypesBias ? " in .debug_types"
           : bias == kAltBias ? " in the .gnu_debugaltlink file"
                              : "";
}

} // namespace

Expected<std::unique_ptr<LibdwUnitReader>> LibdwUnitReader::open(const std::string& path) {
    std::unique_ptr<LibdwUnitReader> reader(new LibdwUnitReader(path));
    if (!reader->openDirect()) {
        if (auto opened = reader->openThroughDwfl(); !opened)
            return std::move(opened).error();
    }
    if (auto units = reader->enumerateUnits(); !units)
        return std::move(units).error();
    reader->findLocationSections();
    return reader;
}

bool LibdwUnitReader::openDirect() {
    elf_version(EV_CURRENT);
    fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0)
        return false;
    elf_ = elf_begin(fd_, ELF_C_READ_MMAP, nullptr);
    GElf_Ehdr ehdr;
    size_t shstrndx = 0;
    if (!elf_ || !gelf_getehdr(elf_, &ehdr) || ehdr.e_type == ET_REL ||
        elf_getshdrstrndx(elf_, &shstrndx) != 0)
        return false;
    size_t fileSize = 0;
    const char* file = elf_rawfile(elf_, &fileSize);
    for (Elf_Scn* scn = elf_nextscn(elf_, nullptr); scn; scn = elf_nextscn(elf_, scn)) {
        GElf_Shdr shdr;
        if (!gelf_getshdr(scn, &shdr))
            return false;
        if (shdr.sh_flags & SHF_ALLOC)
            sections_.add(shdr.sh_addr, shdr.sh_size, static_cast<uint32_t>(elf_ndxscn(scn)));
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
    sections_.sort();
    dwarf_ = info_ ? dwarf_begin_elf(elf_, DWARF_C_READ, nullptr) : nullptr;
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
    sections_ = {};
    if (fd_ < 0)
        return Error::io(path_ + ": cannot open: " + std::strerror(errno));
    static char* debuginfoPath = nullptr;
    static const Dwfl_Callbacks callbacks = {dwfl_build_id_find_elf, dwfl_standard_find_debuginfo,
                                             dwfl_offline_section_address, &debuginfoPath};
    dwfl_ = dwfl_begin(&callbacks);
    if (!dwfl_)
        return Error::io(path_ + ": libdwfl: " + orUnknown(dwfl_errmsg(-1)));
    // libdwfl opens the file itself: a descriptor it is given stays open when reporting fails.
    ::close(fd_);
    fd_ = -1;
    module_ = dwfl_report_offline(dwfl_, path_.c_str(), path_.c_str(), -1);
    dwfl_report_end(dwfl_, nullptr, nullptr);
    dwarf_ = module_ ? dwfl_module_getdwarf(module_, &bias_) : nullptr;
    if (!dwarf_) {
        std::string why = orUnknown(dwfl_errmsg(-1));
        if (std::string compression = compressionProblem(path_); !compression.empty())
            why = compression; // libdwfl only says it found no DWARF
        return Error::badInput(path_ + ": cannot read its DWARF (" + why + ")");
    }
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

Expected<void> LibdwUnitReader::enumerateUnits() {
    // Enumerating once, on this thread, lets libdw index every unit before workers share it.
    if (auto added = addUnits(dwarf_); !added)
        return added;
    if (units_.empty())
        return Error::badInput(path_ + ": .debug_info has no units");
    // dwz -m moves what several files share into one they name in .gnu_debugaltlink: its
    // partial units are read like this file's own.
    if (Dwarf* alt = dwarf_getalt(dwarf_)) {
        if (auto added = addUnits(alt); !added)
            return added;
    } else if (Elf_Data* link = sectionData(dwarf_getelf(dwarf_), ".gnu_debugaltlink")) {
        const auto* bytes = static_cast<const char*>(link->d_buf);
        std::string name = bytes ? std::string(bytes, strnlen(bytes, link->d_size)) : "";
        // The name is the file's bytes: the message stays one printable line.
        std::replace_if(
            name.begin(), name.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; }, '?');
        return Error::badInput(path_ + ": cannot read the file its .gnu_debugaltlink names, '" +
                               name + "'");
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
    const size_t first = units_.size();
    Dwarf_CU* cu = nullptr;
    Dwarf_CU* next = nullptr;
    Dwarf_Half version = 0;
    uint8_t unitType = 0;
    Dwarf_Die unitDie, subDie;
    int rc;
    while ((rc = dwarf_get_units(dwarf, cu, &next, &version, &unitType, &unitDie, &subDie)) == 0) {
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
        if (!section ||
            dwarf_next_unit(dwarf, headerOffset, &end, nullptr, nullptr, nullptr, nullptr, nullptr,
                            inTypes ? &signature : nullptr, nullptr) != 0 ||
            end > section->d_size)
            return Error::badInput(path_ + ": unit " + hex(headerOffset) + sectionName(bias) +
                                   ": its length runs past the end of the section");
        units_.push_back({unitDie, offset, headerOffset, version, unitType, addressSize, bias});
        cu = next;
    }
    if (rc < 0) {
        const Unit* last = units_.size() > first ? &units_.back() : nullptr;
        std::string where =
            last ? "the unit after unit " + hex(last->headerOffset) + sectionName(last->bias)
                 : "unit 0x0";
        return Error::badInput(path_ + ": " + where + ": " + orUnknown(dwarf_errmsg(-1)));
    }
    return {};
}

LibdwUnitReader::~LibdwUnitReader() {
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

void LibdwUnitReader::dropPages(uint64_t begin, uint64_t end) const {
    if (!info_ || end <= begin || end > infoSize_)
        return;
    dropFilePages(std::as_bytes(std::span(info_ + begin, end - begin)));
}

std::optional<SectionOffset> LibdwUnitReader::locate(uint64_t dwarfAddress) const {
    if (!dwfl_)
        return sections_.locate(dwarfAddress);
    // libdwfl knows where it placed each section of a relocatable file.
    Dwarf_Addr address = dwarfAddress + bias_;
    Dwarf_Addr bias = 0;
    Elf_Scn* scn = dwfl_module_address_section(module_, &address, &bias);
    if (!scn)
        return std::nullopt;
    return SectionOffset{static_cast<uint32_t>(elf_ndxscn(scn)), address};
}

bool LibdwUnitReader::isPartialUnit(size_t index) const {
    uint8_t type = units_[index].unitType;
    return type == DW_UT_partial || type == DW_UT_type || type == DW_UT_split_type;
}

Expected<void> LibdwUnitReader::readUnit(size_t index, UnitDies& out) {
    out.clear();
    Unit& unit = units_[index];
    out.unitOffset = unit.offset + unit.bias;
    out.version = unit.version;
    out.addressSize = unit.addressSize;
    out.isPartial = isPartialUnit(index);

    Dwarf_Die root = unit.die;
    DieOffset unitStart = unit.headerOffset + unit.bias;
    LocationSections locations{loclists_, loc_};
    {
        Dwarf_Attribute base;
        Dwarf_Word value;
        if (dwarf_attr(&root, DW_AT_loclists_base, &base) && dwarf_formudata(&base, &value) == 0)
            locations.listsBase = value;
    }
    std::vector<LocationOp> scratchOps;
    DieTreeBuilder tree(out);
    auto keep = [&](Dwarf_Die* d, int tag, uint32_t parent) -> Expected<uint32_t> {
        Die& die = tree.add(dwarf_dieoffset(d) + unit.bias, static_cast<uint16_t>(tag), parent);
        AttributeDecoder decoder{out, die, dwarf_, unitStart, locations, scratchOps};
        if (dwarf_getattrs(d, AttributeDecoder::callback, &decoder, 0) < 0)
            return Error::badInput(path_ + ": DIE " + hex(dwarf_dieoffset(d)) +
                                   sectionName(unit.bias) + ": " + orUnknown(dwarf_errmsg(-1)));
        if (decoder.hasRanges && !die.has(kHasLowPc) && tag == DW_TAG_subprogram) {
            Dwarf_Addr base, start, end;
            if (dwarf_ranges(d, 0, &base, &start, &end) > 0) {
                die.lowPc = start;
                die.flags |= kHasLowPc;
            }
        }
        return tree.lastIndex();
    };

    int rootTag = dwarf_tag(&root);
    auto rootIndex = keep(&root, rootTag, kNoIndex);
    if (!rootIndex)
        return std::move(rootIndex).error();
    out.language = 0;
    {
        Dwarf_Attribute attr;
        Dwarf_Word language;
        if (dwarf_attr(&root, DW_AT_language, &attr) && dwarf_formudata(&attr, &language) == 0)
            out.language = static_cast<uint16_t>(language);
        out.name = out.dies[0].name;
        if (dwarf_attr(&root, DW_AT_producer, &attr))
            if (const char* producer = dwarf_formstring(&attr))
                out.producer = producer;
    }

    struct Frame {
        Dwarf_Die die;   // the DIE whose children are being walked
        Dwarf_Die child; // the current child
        bool started;
        int tag;
        uint32_t keptOwner; // nearest kept ancestor (or itself)
    };
    std::vector<Frame> stack;
    stack.push_back({root, {}, false, rootTag, 0});
    while (!stack.empty()) {
        Frame& frame = stack.back();
        int rc = frame.started ? dwarf_siblingof(&frame.child, &frame.child)
                               : dwarf_child(&frame.die, &frame.child);
        frame.started = true;
        if (rc < 0)
            return Error::badInput(path_ + ": unit " + hex(unit.headerOffset) +
                                   sectionName(unit.bias) + ": DIE after " +
                                   hex(dwarf_dieoffset(&frame.die)) + ": " +
                                   orUnknown(dwarf_errmsg(-1)));
        if (rc > 0) {
            stack.pop_back();
            continue;
        }
        Dwarf_Die child = frame.child;
        int tag = dwarf_tag(&child);
        Visit visit = classifyDie(static_cast<uint16_t>(tag), static_cast<uint16_t>(frame.tag));
        if (visit == Visit::Skip)
            continue;
        uint32_t owner = frame.keptOwner;
        int parentTag = frame.tag;
        if (visit == Visit::Keep) {
            auto idx = keep(&child, tag, owner);
            if (!idx)
                return std::move(idx).error();
            owner = *idx;
        }
        if (dwarf_haschildren(&child) > 0) {
            // A lexical block passes its function's tag down, so parameters stay recognisable.
            int childContextTag = visit == Visit::Descend ? parentTag : tag;
            stack.push_back({child, {}, false, childContextTag, owner});
        }
    }
    return {};
}

} // namespace btforge::dwarf
