#include "DwarfFixture.h"

#include "btforge/dwarf/Forms.h"

#include <algorithm>
#include <dwarf.h>
#include <elf.h>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

namespace btforge::test {
namespace {

// Appends numbers in the fixture's byte order.
class Out {
public:
    explicit Out(Endian endian) : endian_(endian) {}

    void fixed(uint64_t value, size_t size) {
        for (size_t i = 0; i < size; ++i) {
            size_t shift = endian_ == Endian::Little ? i : size - 1 - i;
            bytes.push_back(shift < 8 ? static_cast<uint8_t>(value >> (8 * shift)) : 0);
        }
    }
    void uleb(uint64_t value) {
        do {
            uint8_t b = value & 0x7f;
            value >>= 7;
            bytes.push_back(value ? b | 0x80 : b);
        } while (value);
    }
    void sleb(int64_t value) {
        for (;;) {
            uint8_t b = value & 0x7f;
            value >>= 7; // arithmetic: the sign is kept
            bool done = (value == 0 && !(b & 0x40)) || (value == -1 && (b & 0x40));
            bytes.push_back(done ? b : b | 0x80);
            if (done)
                return;
        }
    }
    void raw(const std::vector<uint8_t>& data) {
        bytes.insert(bytes.end(), data.begin(), data.end());
    }
    void text(const std::string& s) {
        bytes.insert(bytes.end(), s.begin(), s.end());
        bytes.push_back(0);
    }
    void align(size_t to) {
        while (bytes.size() % to)
            bytes.push_back(0);
    }
    void patch(size_t at, uint64_t value, size_t size) {
        Out piece(endian_);
        piece.fixed(value, size);
        std::copy(piece.bytes.begin(), piece.bytes.end(), bytes.begin() + at);
    }

    std::vector<uint8_t> bytes;

private:
    Endian endian_;
};

// A string table (.debug_str, .strtab, .shstrtab): each string once, offset 0 the empty one.
class Strings {
public:
    Strings() { bytes_.push_back(0); }
    uint32_t add(const std::string& s) {
        if (s.empty())
            return 0;
        auto [it, added] = offsets_.try_emplace(s, static_cast<uint32_t>(bytes_.size()));
        if (added) {
            bytes_.insert(bytes_.end(), s.begin(), s.end());
            bytes_.push_back(0);
        }
        return it->second;
    }
    const std::vector<uint8_t>& bytes() const { return bytes_; }
    bool used() const { return bytes_.size() > 1; }

private:
    std::vector<uint8_t> bytes_;
    std::map<std::string, uint32_t> offsets_;
};

// An abbreviation: the tag, whether children follow, and each attribute's name and form (with
// the value of a DW_FORM_implicit_const, which lives here and not in the DIE).
using AbbrevKey = std::tuple<uint16_t, bool, std::vector<std::tuple<uint16_t, uint16_t, int64_t>>>;

class DebugInfoWriter {
public:
    DebugInfoWriter(const Fixture& f) : f_(f), info_(f.endian), abbrev_(f.endian) {}

    void write() {
        // A ref_udata's size depends on the offsets it encodes: lay out until they settle.
        for (int pass = 0;; ++pass) {
            if (pass == 8)
                throw std::invalid_argument("DWARF fixture: DIE offsets do not settle");
            auto before = labels_;
            labelled_.clear();
            info_.bytes.clear();
            strings_ = Strings();
            stringOffsets_.clear();
            for (const Die& unit : f_.units)
                writeUnit(unit);
            if (pass > 0 && labels_ == before)
                break;
        }
        std::vector<const AbbrevKey*> byCode(codes_.size());
        for (const auto& [key, code] : codes_)
            byCode[code - 1] = &key;
        for (size_t i = 0; i < byCode.size(); ++i)
            writeAbbrev(static_cast<uint32_t>(i + 1), *byCode[i]);
        abbrev_.uleb(0);
    }

    const std::vector<uint8_t>& info() const { return info_.bytes; }
    const std::vector<uint8_t>& abbrev() const { return abbrev_.bytes; }
    const Strings& strings() const { return strings_; }
    // .debug_str_offsets (DWARF 5's layout), empty when no strx form is used.
    std::vector<uint8_t> stringOffsets() const {
        if (stringOffsets_.empty())
            return {};
        Out out(f_.endian);
        out.fixed(4 + 4 * stringOffsets_.size(), 4); // unit_length
        out.fixed(5, 2);                             // version
        out.fixed(0, 2);                             // padding
        for (uint32_t offset : stringOffsets_)
            out.fixed(offset, 4);
        return out.bytes;
    }

private:
    uint8_t addressSize() const { return f_.elf64 ? 8 : 4; }

    void writeUnit(const Die& root) {
        unitStart_ = info_.bytes.size();
        info_.fixed(0, 4); // unit_length, patched below
        info_.fixed(f_.dwarfVersion, 2);
        if (f_.dwarfVersion >= 5) {
            info_.fixed(root.tag == DW_TAG_partial_unit ? DW_UT_partial : DW_UT_compile, 1);
            info_.fixed(addressSize(), 1);
            info_.fixed(0, 4); // debug_abbrev_offset: one table for all units
        } else {
            info_.fixed(0, 4);
            info_.fixed(addressSize(), 1);
        }
        writeDie(root);
        info_.patch(unitStart_, info_.bytes.size() - unitStart_ - 4, 4);
    }

    void writeDie(const Die& die) {
        if (!die.label.empty()) {
            if (!labelled_.insert(die.label).second)
                throw std::invalid_argument("DWARF fixture: two DIEs are labelled '" + die.label +
                                            "'");
            labels_[die.label] = info_.bytes.size();
        }
        AbbrevKey key{die.tag, !die.children.empty(), {}};
        for (const Attribute& a : die.attributes)
            std::get<2>(key).emplace_back(
                a.name, a.form,
                a.form == DW_FORM_implicit_const ? static_cast<int64_t>(a.value.number) : 0);
        info_.uleb(codes_.try_emplace(key, static_cast<uint32_t>(codes_.size() + 1)).first->second);
        for (const Attribute& a : die.attributes)
            writeValue(a);
        if (die.children.empty())
            return;
        for (const Die& child : die.children)
            writeDie(child);
        info_.uleb(0);
    }

    // The .debug_info offset of a label; 0 until its DIE is laid out.
    uint64_t target(const Attribute& a) const {
        if (a.value.text.empty()) // a raw offset
            return a.form == DW_FORM_ref_addr ? a.value.number : unitStart_ + a.value.number;
        auto it = labels_.find(a.value.text);
        if (it != labels_.end())
            return it->second;
        if (!knownLabel(a.value.text))
            throw std::invalid_argument("DWARF fixture: no DIE is labelled '" + a.value.text + "'");
        return 0;
    }
    bool knownLabel(const std::string& label) const {
        auto search = [&](const Die& d, auto& self) -> bool {
            if (d.label == label)
                return true;
            return std::any_of(d.children.begin(), d.children.end(),
                               [&](const Die& c) { return self(c, self); });
        };
        return std::any_of(f_.units.begin(), f_.units.end(),
                           [&](const Die& u) { return search(u, search); });
    }

    // The value's number as its class has it: a reference's offset, a string's offset or index.
    uint64_t numberOf(const Attribute& a, dwarf::FormClass valueClass) {
        switch (valueClass) {
        case dwarf::FormClass::Reference:
            return a.form == DW_FORM_ref_addr ? target(a) : target(a) - unitStart_;
        case dwarf::FormClass::String:
            return a.form == DW_FORM_strp ? strings_.add(a.value.text) : stringIndex(a.value.text);
        default:
            return a.value.number;
        }
    }

    // Forms whose value lives where this writer writes nothing (.debug_addr, .debug_line_str,
    // type units, supplementary and alternate files) are refused, whatever their layout.
    static bool writable(unsigned form) {
        switch (form) {
        case DW_FORM_addrx:
        case DW_FORM_addrx1:
        case DW_FORM_addrx2:
        case DW_FORM_addrx3:
        case DW_FORM_addrx4:
        case DW_FORM_GNU_addr_index:
        case DW_FORM_line_strp:
        case DW_FORM_strp_sup:
        case DW_FORM_GNU_strp_alt:
        case DW_FORM_GNU_str_index:
        case DW_FORM_ref_sig8:
        case DW_FORM_ref_sup4:
        case DW_FORM_ref_sup8:
        case DW_FORM_GNU_ref_alt:
            return false;
        default:
            return true;
        }
    }

    // Written as the form table (btforge/dwarf/Forms.h) lays the form out, as the readers read it.
    void writeValue(const Attribute& a) {
        const Value& v = a.value;
        if (a.raw)
            return info_.raw(v.bytes);
        const auto info = writable(a.form) ? dwarf::formInfo(a.form) : std::nullopt;
        using dwarf::FormLayout;
        switch (info ? info->layout : FormLayout::Unsupported) {
        case FormLayout::None:
            return;
        case FormLayout::Fixed:
            if (info->size == 16) // the number in the low half, sign-extended
                return signExtend16(v.number);
            return info_.fixed(numberOf(a, info->valueClass), info->size);
        case FormLayout::AddressSize:
            return info_.fixed(v.number, addressSize());
        case FormLayout::OffsetSize: // DWARF32
            return info_.fixed(numberOf(a, info->valueClass), 4);
        case FormLayout::RefAddr: // an address's size in DWARF 2, an offset's since
            return info_.fixed(target(a), f_.dwarfVersion == 2 ? addressSize() : 4);
        case FormLayout::Uleb:
            return info_.uleb(numberOf(a, info->valueClass));
        case FormLayout::Sleb:
            return info_.sleb(static_cast<int64_t>(v.number));
        case FormLayout::String:
            return info_.text(v.text);
        case FormLayout::Block1:
        case FormLayout::Block2:
        case FormLayout::Block4:
            info_.fixed(v.bytes.size(), info->layout == FormLayout::Block1   ? 1
                                        : info->layout == FormLayout::Block2 ? 2
                                                                             : 4);
            return info_.raw(v.bytes);
        case FormLayout::BlockUleb:
            info_.uleb(v.bytes.size());
            return info_.raw(v.bytes);
        case FormLayout::Indirect:
            if (a.indirectAs == DW_FORM_indirect || a.indirectAs == DW_FORM_implicit_const)
                break;
            info_.uleb(a.indirectAs);
            return writeValue({a.name, a.indirectAs, a.value});
        case FormLayout::Unsupported:
            break;
        }
        throw std::invalid_argument("DWARF fixture: form " + std::to_string(a.form) +
                                    (a.indirectAs ? "/" + std::to_string(a.indirectAs) : "") +
                                    " is not supported");
    }

    // The string's entry in .debug_str_offsets.
    uint32_t stringIndex(const std::string& text) {
        uint32_t offset = strings_.add(text);
        auto it = std::find(stringOffsets_.begin(), stringOffsets_.end(), offset);
        if (it != stringOffsets_.end())
            return static_cast<uint32_t>(it - stringOffsets_.begin());
        stringOffsets_.push_back(offset);
        return static_cast<uint32_t>(stringOffsets_.size() - 1);
    }

    void signExtend16(uint64_t low) {
        Out piece(f_.endian);
        piece.fixed(low, 8);
        std::vector<uint8_t> high(8, static_cast<int64_t>(low) < 0 ? 0xff : 0);
        bool little = f_.endian == Endian::Little;
        info_.raw(little ? piece.bytes : high);
        info_.raw(little ? high : piece.bytes);
    }

    void writeAbbrev(uint32_t code, const AbbrevKey& key) {
        const auto& [tag, children, attributes] = key;
        abbrev_.uleb(code);
        abbrev_.uleb(tag);
        abbrev_.fixed(children ? DW_CHILDREN_yes : DW_CHILDREN_no, 1);
        for (const auto& [name, form, implicitValue] : attributes) {
            abbrev_.uleb(name);
            abbrev_.uleb(form);
            if (form == DW_FORM_implicit_const)
                abbrev_.sleb(implicitValue);
        }
        abbrev_.uleb(0);
        abbrev_.uleb(0);
    }

    const Fixture& f_;
    Out info_;
    Out abbrev_;
    Strings strings_;
    std::vector<uint32_t> stringOffsets_; // .debug_str offsets by strx index
    size_t unitStart_ = 0;
    std::map<std::string, uint64_t> labels_;
    std::set<std::string> labelled_; // in this pass: each label once
    std::map<AbbrevKey, uint32_t> codes_;
};

struct Section {
    std::string name;
    uint32_t type = SHT_PROGBITS;
    uint64_t flags = 0;
    uint64_t address = 0;
    std::vector<uint8_t> bytes;
    uint32_t link = 0;
    uint32_t info = 0;
    uint64_t align = 1;
    uint64_t entrySize = 0;
};

// .symtab's bytes and the index of its first global symbol (locals come first).
std::pair<std::vector<uint8_t>, uint32_t> symbolTable(const Fixture& f, Strings& names,
                                                      uint16_t textIndex, uint16_t dataIndex) {
    std::vector<const Symbol*> order;
    for (bool local : {true, false}) {
        for (const Symbol& s : f.symbols) {
            if ((s.binding == STB_LOCAL) == local)
                order.push_back(&s);
        }
    }
    Out out(f.endian);
    out.fixed(0, f.elf64 ? 24 : 16); // the null symbol
    uint32_t firstGlobal = 1;
    for (const Symbol* s : order) {
        if (s->section != ".text" && s->section != ".data")
            throw std::invalid_argument("DWARF fixture: symbol in unknown section " + s->section);
        uint16_t shndx = s->section == ".text" ? textIndex : dataIndex;
        uint8_t info = static_cast<uint8_t>(s->binding << 4 | s->type);
        if (s->binding == STB_LOCAL)
            ++firstGlobal;
        if (f.elf64) {
            out.fixed(names.add(s->name), 4);
            out.fixed(info, 1);
            out.fixed(STV_DEFAULT, 1);
            out.fixed(shndx, 2);
            out.fixed(s->value, 8);
            out.fixed(s->size, 8);
        } else {
            out.fixed(names.add(s->name), 4);
            out.fixed(s->value, 4);
            out.fixed(s->size, 4);
            out.fixed(info, 1);
            out.fixed(STV_DEFAULT, 1);
            out.fixed(shndx, 2);
        }
    }
    return {out.bytes, firstGlobal};
}

} // namespace

std::vector<std::byte> writeElf(const Fixture& f) {
    DebugInfoWriter dwarf(f);
    dwarf.write();

    std::vector<Section> sections(1); // the null section
    sections.push_back({".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, f.textAddress,
                        std::vector<uint8_t>(f.textSize), 0, 0, 16});
    const uint16_t textIndex = 1;
    sections.push_back({".data", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, f.dataAddress,
                        std::vector<uint8_t>(f.dataSize), 0, 0, 8});
    const uint16_t dataIndex = 2;
    sections.push_back({".debug_abbrev", SHT_PROGBITS, 0, 0, dwarf.abbrev()});
    sections.push_back({".debug_info", SHT_PROGBITS, 0, 0, dwarf.info()});
    if (dwarf.strings().used())
        sections.push_back({".debug_str", SHT_PROGBITS, SHF_MERGE | SHF_STRINGS, 0,
                            dwarf.strings().bytes(), 0, 0, 1, 1});
    if (auto offsets = dwarf.stringOffsets(); !offsets.empty())
        sections.push_back({".debug_str_offsets", SHT_PROGBITS, 0, 0, offsets, 0, 0, 4});
    if (!f.symbols.empty()) {
        Strings names;
        auto [symtab, firstGlobal] = symbolTable(f, names, textIndex, dataIndex);
        const auto strtabIndex = static_cast<uint32_t>(sections.size() + 1);
        sections.push_back({".symtab", SHT_SYMTAB, 0, 0, symtab, strtabIndex, firstGlobal,
                            f.elf64 ? 8u : 4u, f.elf64 ? 24u : 16u});
        sections.push_back({".strtab", SHT_STRTAB, 0, 0, names.bytes()});
    }
    Strings sectionNames;
    for (const Section& s : sections)
        sectionNames.add(s.name);
    sectionNames.add(".shstrtab");
    sections.push_back({".shstrtab", SHT_STRTAB, 0, 0, sectionNames.bytes()});

    const size_t headerSize = f.elf64 ? 64 : 52;
    const size_t word = f.elf64 ? 8 : 4;
    Out out(f.endian);
    out.bytes.resize(headerSize);
    std::vector<uint64_t> offsets;
    for (const Section& s : sections) {
        out.align(std::max<uint64_t>(s.align, 1));
        offsets.push_back(s.type == SHT_NULL ? 0 : out.bytes.size());
        out.raw(s.bytes);
    }
    out.align(word);
    const uint64_t sectionHeaders = out.bytes.size();
    for (size_t i = 0; i < sections.size(); ++i) {
        const Section& s = sections[i];
        out.fixed(i == 0 ? 0 : sectionNames.add(s.name), 4);
        out.fixed(i == 0 ? SHT_NULL : s.type, 4);
        out.fixed(s.flags, word);
        out.fixed(s.address, word);
        out.fixed(offsets[i], word);
        out.fixed(s.bytes.size(), word);
        out.fixed(s.link, 4);
        out.fixed(s.info, 4);
        out.fixed(i == 0 ? 0 : s.align, word);
        out.fixed(s.entrySize, word);
    }

    Out header(f.endian);
    header.raw({ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3,
                static_cast<uint8_t>(f.elf64 ? ELFCLASS64 : ELFCLASS32),
                static_cast<uint8_t>(f.endian == Endian::Little ? ELFDATA2LSB : ELFDATA2MSB),
                EV_CURRENT, ELFOSABI_NONE});
    header.align(EI_NIDENT);
    header.fixed(ET_EXEC, 2);
    header.fixed(f.machine, 2);
    header.fixed(EV_CURRENT, 4);
    header.fixed(f.textAddress, word); // e_entry
    header.fixed(0, word);             // e_phoff: no program headers
    header.fixed(sectionHeaders, word);
    header.fixed(0, 4); // e_flags
    header.fixed(headerSize, 2);
    header.fixed(0, 2); // e_phentsize
    header.fixed(0, 2); // e_phnum
    header.fixed(f.elf64 ? 64 : 40, 2);
    header.fixed(sections.size(), 2);
    header.fixed(sections.size() - 1, 2); // .shstrtab is last
    std::copy(header.bytes.begin(), header.bytes.end(), out.bytes.begin());

    std::vector<std::byte> image(out.bytes.size());
    std::transform(out.bytes.begin(), out.bytes.end(), image.begin(),
                   [](uint8_t b) { return std::byte{b}; });
    return image;
}

void writeFile(const std::string& path, const std::vector<std::byte>& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
    if (!out.flush())
        throw std::runtime_error("cannot write " + path);
}

} // namespace btforge::test
