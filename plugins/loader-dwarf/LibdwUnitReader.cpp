#include "LibdwUnitReader.h"

#include "Abbreviations.h"
#include "LocationDecoder.h"

#include "btforge/dwarf/ReaderRules.h"
#include "btforge/support/Hex.h"
#include "btforge/support/MappedFile.h"

#include <gelf.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <dwarf.h>
#include <fcntl.h>
#include <optional>
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
    // The bytes the unit's lists span: a unit's lists are together, and no other unit reads them.
    const uint8_t* lowest = nullptr;
    const uint8_t* highest = nullptr;

    void touched(std::span<const uint8_t> bytes) {
        if (!lowest || bytes.data() < lowest)
            lowest = bytes.data();
        if (!highest || bytes.data() + bytes.size() > highest)
            highest = bytes.data() + bytes.size();
    }
};

// The attributes AttributeDecoder::decode looks at; the walk only skips the others.
bool isDecoded(uint32_t name) {
    switch (name) {
    case DW_AT_name:
    case DW_AT_type:
    case DW_AT_abstract_origin:
    case DW_AT_specification:
    case DW_AT_signature:
    case DW_AT_byte_size:
    case DW_AT_bit_size:
    case DW_AT_data_bit_offset:
    case DW_AT_bit_offset:
    case DW_AT_data_member_location:
    case DW_AT_encoding:
    case DW_AT_calling_convention:
    case DW_AT_inline:
    case DW_AT_const_value:
    case DW_AT_upper_bound:
    case DW_AT_count:
    case DW_AT_low_pc:
    case DW_AT_ranges:
    case DW_AT_location:
    case DW_AT_declaration:
    case DW_AT_external:
    case DW_AT_prototyped:
    case DW_AT_artificial:
    case DW_AT_GNU_vector:
        return true;
    default:
        return false;
    }
}

// One attribute of the DIE being read, in the form libdw's dwarf_form* functions take it, for
// the values that live elsewhere (string offset and address tables, other units, the alt file).
// An implicit constant's value is in the abbreviation, not at `valp`.
struct Attribute {
    Dwarf_Attribute raw;
    int64_t implicitConst;

    unsigned name() const { return raw.code; }
    unsigned form() const { return raw.form; }
    Dwarf_Attribute* lib() const { return const_cast<Dwarf_Attribute*>(&raw); }
};

// What the values of a unit's attributes need: its sizes, its byte order, its string section.
struct UnitForms {
    FormContext layout;
    bool bigEndian = false;
    std::span<const uint8_t> strings; // .debug_str of the file the unit is in
};

// Decodes one DIE's wanted attributes. The common forms are read here, straight from the DIE's
// bytes (the walk has checked they are inside the unit); the rest goes through libdw.
struct AttributeDecoder {
    // What is the same for all DIEs of a unit.
    struct Context {
        Dwarf* dwarf;
        DieOffset unitStart; // the unit header's key: unit-relative references count from it
        DieOffset bias;      // added to the unit's DIE offsets
        LocationSections* locations;
        std::vector<LocationOp>* scratchOps;
    };

    UnitDies& unit;
    Die& die;
    const Context& context;
    const UnitForms& forms;
    bool hasRanges = false;

    uint64_t fixed(const Attribute& attr, size_t size) const {
        return Cursor({attr.raw.valp, size}, forms.bigEndian).fixed(size);
    }
    // LEB128 values: the walk has found where they end.
    uint64_t uleb(const Attribute& attr) const { return Cursor({attr.raw.valp, 10}).uleb(); }

    DieOffset reference(const Attribute& attr) const {
        switch (attr.form()) {
        case DW_FORM_ref1:
            return context.unitStart + fixed(attr, 1);
        case DW_FORM_ref2:
            return context.unitStart + fixed(attr, 2);
        case DW_FORM_ref4:
            return context.unitStart + fixed(attr, 4);
        case DW_FORM_ref8:
            return context.unitStart + fixed(attr, 8);
        case DW_FORM_ref_udata:
            return context.unitStart + uleb(attr);
        default: {
            // ref_addr, type unit signatures, the alt file: libdw finds the DIE in its unit.
            Dwarf_Die target;
            if (!dwarf_formref_die(attr.lib(), &target))
                return kNoDie;
            return dwarf_dieoffset(&target) + biasOf(context.dwarf, target.cu);
        }
        }
    }

    bool udata(const Attribute& attr, uint64_t& value) const {
        // Before DWARF 4, data4 and data8 may be section offsets, which libdw checks.
        bool plainData = forms.layout.version >= 4;
        switch (attr.form()) {
        case DW_FORM_data1:
            value = fixed(attr, 1);
            return true;
        case DW_FORM_data2:
            value = fixed(attr, 2);
            return true;
        case DW_FORM_data4:
            if (!plainData)
                break;
            value = fixed(attr, 4);
            return true;
        case DW_FORM_data8:
            if (!plainData)
                break;
            value = fixed(attr, 8);
            return true;
        case DW_FORM_udata:
            value = uleb(attr);
            return true;
        case DW_FORM_implicit_const:
            value = static_cast<uint64_t>(attr.implicitConst);
            return true;
        default:
            break;
        }
        Dwarf_Word word;
        if (dwarf_formudata(attr.lib(), &word) != 0)
            return false;
        value = word;
        return true;
    }

    // A value of one of the isSignedForm forms.
    int64_t signedValue(const Attribute& attr) const {
        if (attr.form() == DW_FORM_implicit_const)
            return attr.implicitConst;
        return Cursor({attr.raw.valp, 10}).sleb();
    }

    // The string and how far its NUL may lie: the rest of .debug_str for DW_FORM_strp, whose
    // last string may lack one in a broken file; no limit where the NUL was checked already
    // (inline strings, by the walk) or by libdw (the other forms).
    std::pair<const char*, size_t> string(const Attribute& attr) const {
        constexpr size_t kChecked = std::string_view().max_size();
        switch (attr.form()) {
        case DW_FORM_string:
            return {reinterpret_cast<const char*>(attr.raw.valp), kChecked};
        case DW_FORM_strp: {
            uint64_t offset = fixed(attr, forms.layout.offsetSize);
            if (offset >= forms.strings.size())
                return {nullptr, 0};
            return {reinterpret_cast<const char*>(forms.strings.data() + offset),
                    forms.strings.size() - offset};
        }
        default:
            return {dwarf_formstring(attr.lib()), kChecked};
        }
    }

    static bool isSignedForm(unsigned form) {
        return form == DW_FORM_sdata || form == DW_FORM_implicit_const;
    }

    void setFlag(const Attribute& attr, DieFlag flag) {
        bool value = false;
        switch (attr.form()) {
        case DW_FORM_flag_present:
            value = true;
            break;
        case DW_FORM_flag:
            value = fixed(attr, 1) != 0;
            break;
        default:
            if (dwarf_formflag(attr.lib(), &value) != 0)
                value = false;
            break;
        }
        if (value)
            die.flags |= flag;
    }

    void setNumber(const Attribute& attr, uint64_t& field, DieFlag flag) {
        if (udata(attr, field))
            die.flags |= flag;
    }

    // Copies a location expression's operations into the unit. Indexed addresses (DWARF 5's
    // DW_OP_addrx, via .debug_addr) become plain DW_OP_addr, so core sees one form.
    void storeOps(const Attribute& attr, Dwarf_Op* ops, size_t count) {
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
                if (dwarf_getlocation_attr(attr.lib(), &ops[i], &address) == 0 &&
                    dwarf_formaddr(&address, &value) == 0)
                    op = {DW_OP_addr, value, 0};
            }
            unit.locationOps.push_back(op);
        }
    }

    // The expression's operations, decoded here; the few with an index into .debug_addr go
    // through libdw. False when the expression cannot be read.
    bool storeExpression(const Attribute& attr, std::span<const uint8_t> bytes) {
        auto first = static_cast<uint32_t>(unit.locationOps.size());
        Decoded decoded =
            decodeExpression(bytes, unit.addressSize, forms.bigEndian, unit.locationOps);
        if (decoded == Decoded::Ok) {
            die.locationFirst = first;
            die.locationCount = static_cast<uint32_t>(unit.locationOps.size()) - first;
            return true;
        }
        unit.locationOps.resize(first);
        Dwarf_Op* ops = nullptr;
        size_t count = 0;
        if (decoded != Decoded::NeedsAddressTable ||
            dwarf_getlocation(attr.lib(), &ops, &count) != 0)
            return false;
        storeOps(attr, ops, count);
        return true;
    }

    void noteEntryValue(std::span<const uint8_t> bytes) {
        if (die.entryValueRegister != 0xff)
            return;
        context.scratchOps->clear();
        if (decodeExpression(bytes, unit.addressSize, forms.bigEndian, *context.scratchOps) ==
            Decoded::Ok)
            die.entryValueRegister = entryValueRegister((*context.scratchOps));
    }

    void decodeLocation(const Attribute& attr) {
        die.flags |= kHasLocation;
        // Only parameters and file-scope variables get here; their first expression and any
        // entry-value register are what the function and variable rules look at.
        unsigned form = attr.form();
        bool isList = form == DW_FORM_sec_offset || form == DW_FORM_loclistx ||
                      (unit.version < 4 && (form == DW_FORM_data4 || form == DW_FORM_data8));
        if (!isList) {
            Dwarf_Block block;
            if (dwarf_formblock(attr.lib(), &block) == 0 &&
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
            uint64_t slot = context.locations->listsBase + offset * 4;
            if (slot + 4 > context.locations->lists.size())
                return;
            auto relative =
                Cursor(std::span(context.locations->lists).subspan(slot, 4), forms.bigEndian)
                    .fixed(4);
            offset = context.locations->listsBase + relative;
        }
        bool first = true;
        forEachLocationEntry(
            unit.version >= 5 ? context.locations->lists : context.locations->oldLists, offset,
            unit.version, unit.addressSize, forms.bigEndian, [&](std::span<const uint8_t> bytes) {
                context.locations->touched(bytes);
                if (first && storeExpression(attr, bytes))
                    die.flags |= kLocationKnown;
                first = false;
                if (die.tag == DW_TAG_formal_parameter)
                    noteEntryValue(bytes);
            });
    }

    void decodeConstValue(const Attribute& attr) {
        unsigned form = attr.form();
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
            if (auto [s, limit] = string(attr); s) {
                die.stringValue = {s, limit}; // measured with the names
                die.flags |= kHasConstValue | kConstValueString;
            }
            return;
        case DW_FORM_block:
        case DW_FORM_block1:
        case DW_FORM_block2:
        case DW_FORM_block4: {
            Dwarf_Block block;
            if (dwarf_formblock(attr.lib(), &block) == 0) {
                // A constant in a block is in the target's byte order; only its first 8 bytes
                // fit the IR.
                size_t length = std::min<size_t>(block.length, 8);
                die.constValue = Cursor({block.data, length}, forms.bigEndian).fixed(length);
                die.flags |= kHasConstValue;
            }
            return;
        }
        default:
            break;
        }
        if (isSignedForm(form)) {
            die.constValue = static_cast<uint64_t>(signedValue(attr));
            die.flags |= kHasConstValue | kConstValueSigned;
            return;
        }
        setNumber(attr, die.constValue, kHasConstValue);
    }

    void decodeBound(const Attribute& attr, DieFlag flag) {
        unsigned form = attr.form();
        if (form == DW_FORM_exprloc || form == DW_FORM_ref4 || form == DW_FORM_ref_udata)
            return; // variable length: no static count
        // data1..data8 are unsigned here (char[256] has upper bound 0xff); only the explicitly
        // signed forms can say -1, as C's zero-length arrays do.
        if (isSignedForm(form)) {
            int64_t value = signedValue(attr);
            die.bound = static_cast<uint64_t>(value);
            if (value < 0)
                die.flags |= kConstValueSigned;
        } else if (!udata(attr, die.bound)) {
            return;
        }
        die.flags |= flag;
    }

    void decodeMemberLocation(const Attribute& attr) {
        if (attr.form() == DW_FORM_exprloc) {
            Dwarf_Op* ops = nullptr;
            size_t count = 0;
            if (dwarf_getlocation(attr.lib(), &ops, &count) == 0 && count == 1 &&
                ops[0].atom == DW_OP_plus_uconst) {
                die.dataMemberLocation = ops[0].number;
                die.flags |= kHasDataMemberLocation;
            }
            return;
        }
        setNumber(attr, die.dataMemberLocation, kHasDataMemberLocation);
    }

    void decode(const Attribute& attr) {
        uint64_t value = 0;
        switch (attr.name()) {
        case DW_AT_name:
            // Measured once the unit is read (measureNames): the string's first touch, a cache
            // miss, is started here and overlaps with reading the next DIEs. Until then the
            // view's size is how far the NUL may lie.
            if (auto [s, limit] = string(attr); s) {
                __builtin_prefetch(s);
                die.name = {s, limit};
            }
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
            if (attr.form() == DW_FORM_addr) {
                die.lowPc = fixed(attr, forms.layout.addressSize);
                die.flags |= kHasLowPc;
            } else if (dwarf_formaddr(attr.lib(), &addr) == 0) {
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

// Gives the strings AttributeDecoder found (names, string constants) their length. Returns the
// key of a DIE with one that has no NUL before the end of its section.
std::optional<DieOffset> measureNames(UnitDies& unit) {
    auto measure = [](std::string_view& s) {
        if (!s.data())
            return true;
        const size_t length = strnlen(s.data(), s.size());
        if (length == s.size())
            return false; // no NUL within the limit
        s = s.substr(0, length);
        return true;
    };
    for (Die& die : unit.dies) {
        if (!measure(die.name) || !measure(die.stringValue))
            return die.offset;
    }
    return std::nullopt;
}

// Reads a unit's DIEs in one pass over its bytes: the DIEs classify() keeps are decoded into the
// unit, the others skipped, whole subtrees at a time where DW_AT_sibling says where they end.
class UnitWalk {
public:
    struct Failure {
        uint64_t offset; // of the DIE, in its section
        std::string what;
    };

    UnitWalk(UnitDies& out, const AbbreviationTable& table, const UnitForms& forms,
             const uint8_t* section, uint64_t headerOffset, uint64_t dieOffset, uint64_t end,
             Dwarf_CU* cu, AttributeDecoder::Context decoding)
        : out_(out), table_(table), forms_(forms), section_(section),
          header_(section + headerOffset), end_(section + end),
          in_({section + dieOffset, end - dieOffset}, forms.bigEndian), cu_(cu),
          decoding_(decoding), tree_(out) {}

    std::optional<Failure> run() {
        const uint8_t* start = in_.position();
        const Abbreviation* a = next();
        if (!a)
            return failure_ ? failure_ : Failure{offsetOf(start), "the unit has no DIE"};
        if (!keep(*a, start, kNoIndex))
            return failure_;
        struct Frame {
            uint32_t tag;       // what children are classified by
            uint32_t keptOwner; // nearest kept ancestor (or itself)
        };
        std::vector<Frame> stack;
        if (a->hasChildren)
            stack.push_back({a->tag, 0});
        // A unit may end without the null entries closing its last DIEs' children.
        while (!stack.empty() && !in_.atEnd()) {
            start = in_.position();
            a = next();
            if (failure_)
                return failure_;
            if (!a) {
                stack.pop_back();
                continue;
            }
            const Frame frame = stack.back();
            Visit visit =
                classifyDie(static_cast<uint16_t>(a->tag), static_cast<uint16_t>(frame.tag));
            if (visit == Visit::Skip) {
                if (!skipDie(*a, start))
                    return failure_;
                continue;
            }
            uint32_t owner = frame.keptOwner;
            if (visit == Visit::Keep) {
                if (!keep(*a, start, owner))
                    return failure_;
                owner = static_cast<uint32_t>(out_.dies.size() - 1);
            } else if (!attributes(*a, start, nullptr)) {
                return failure_;
            }
            // A lexical block passes its function's tag down, so parameters stay recognisable.
            if (a->hasChildren)
                stack.push_back({visit == Visit::Descend ? frame.tag : a->tag, owner});
        }
        return std::nullopt;
    }

private:
    uint64_t offsetOf(const uint8_t* p) const { return static_cast<uint64_t>(p - section_); }

    bool fail(const uint8_t* die, std::string what) {
        failure_ = Failure{offsetOf(die), std::move(what)};
        return false;
    }

    // The abbreviation of the DIE at the cursor; null for the null entry ending a list of
    // siblings, or on failure.
    const Abbreviation* next() {
        const uint8_t* start = in_.position();
        uint64_t code = in_.uleb();
        if (!in_.ok()) {
            fail(start, "the DIE runs past the end of the unit");
            return nullptr;
        }
        if (code == 0)
            return nullptr;
        const Abbreviation* a = table_.find(code);
        if (!a)
            fail(start,
                 "abbreviation code " + std::to_string(code) + " is not in the unit's table");
        return a;
    }

    // Reads the attributes of the DIE at `start` (abbreviation `a`), decoding the wanted ones
    // when `decoder` is given. `sibling`, when given, gets where DW_AT_sibling points (or null).
    bool attributes(const Abbreviation& a, const uint8_t* start, AttributeDecoder* decoder,
                    const uint8_t** sibling = nullptr) {
        if (!decoder && !sibling && a.skipSize >= 0) {
            in_.skip(static_cast<uint64_t>(a.skipSize));
            return in_.ok() || fail(start, "its attributes run past the end of the unit");
        }
        std::span<const AttributeSpec> specs = table_.specs(a);
        for (size_t i = 0; i < specs.size(); ++i) {
            const AttributeSpec& spec = specs[i];
            uint32_t form = spec.form;
            if (form == DW_FORM_indirect) {
                uint64_t actual = in_.uleb();
                if (actual == DW_FORM_indirect || actual == DW_FORM_implicit_const ||
                    actual > UINT32_MAX)
                    return fail(start,
                                "attribute " + hex(spec.name) + " has an invalid indirect form");
                form = static_cast<uint32_t>(actual);
            }
            const uint8_t* value = in_.position();
            if (form == spec.form && spec.size != kSizeVaries && spec.size != kUnknownForm)
                in_.skip(spec.size);
            else if (!skipFormValue(in_, form, forms_.layout))
                return fail(start,
                            "attribute " + hex(spec.name) + " has an unknown form " + hex(form));
            if (!in_.ok())
                return fail(start, "its attributes run past the end of the unit");
            if (sibling && static_cast<int32_t>(i) == a.sibling)
                *sibling = siblingTarget(form, value);
            if (decoder && spec.wanted)
                decoder->decode({{spec.name, form, const_cast<unsigned char*>(value), cu_},
                                 spec.implicitConst});
        }
        return true;
    }

    // Where a DW_AT_sibling value points, if it is a reference into this unit past `value`.
    const uint8_t* siblingTarget(uint32_t form, const uint8_t* value) const {
        Cursor at({value, static_cast<size_t>(end_ - value)}, forms_.bigEndian);
        const uint8_t* target = nullptr;
        switch (form) {
        case DW_FORM_ref1:
        case DW_FORM_ref2:
        case DW_FORM_ref4:
        case DW_FORM_ref8: {
            uint64_t offset = at.fixed(fixedFormSize(form, forms_.layout));
            if (offset < static_cast<uint64_t>(end_ - header_))
                target = header_ + offset;
            break;
        }
        case DW_FORM_ref_udata: {
            uint64_t offset = at.uleb();
            if (offset < static_cast<uint64_t>(end_ - header_))
                target = header_ + offset;
            break;
        }
        default:
            break;
        }
        return target && target > value ? target : nullptr;
    }

    // Moves past the DIE at `start` and everything below it.
    bool skipDie(const Abbreviation& first, const uint8_t* start) {
        const Abbreviation* a = &first;
        size_t depth = 0; // open DIEs whose children are being skipped
        while (true) {
            const uint8_t* sibling = nullptr;
            if (!attributes(*a, start, nullptr,
                            a->hasChildren && a->sibling >= 0 ? &sibling : nullptr))
                return false;
            if (sibling && sibling >= in_.position())
                in_.seek(sibling);
            else if (a->hasChildren)
                ++depth;
            // Null entries close the lists of children.
            while (true) {
                if (depth == 0)
                    return true;
                if (in_.atEnd())
                    return true; // the unit ends: so do all lists
                start = in_.position();
                a = next();
                if (failure_)
                    return false;
                if (a)
                    break;
                --depth;
            }
        }
    }

    bool keep(const Abbreviation& a, const uint8_t* start, uint32_t parent) {
        Die& die =
            tree_.add(offsetOf(start) + decoding_.bias, static_cast<uint16_t>(a.tag), parent);
        AttributeDecoder decoder{out_, die, decoding_, forms_};
        if (!attributes(a, start, &decoder))
            return false;
        if (decoder.hasRanges && !die.has(kHasLowPc) && a.tag == DW_TAG_subprogram) {
            // libdw reads range lists: the DIE as it knows one (its abbreviation looked up anew).
            Dwarf_Die d{const_cast<uint8_t*>(start), cu_, nullptr, 0};
            Dwarf_Addr base, begin, end;
            if (dwarf_ranges(&d, 0, &base, &begin, &end) > 0) {
                die.lowPc = begin;
                die.flags |= kHasLowPc;
            }
        }
        return true;
    }

    UnitDies& out_;
    const AbbreviationTable& table_;
    const UnitForms& forms_;
    const uint8_t* section_;
    const uint8_t* header_; // the unit header: unit-relative references count from it
    const uint8_t* end_;
    Cursor in_;
    Dwarf_CU* cu_;
    AttributeDecoder::Context decoding_;
    DieTreeBuilder tree_;
    std::optional<Failure> failure_;
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

// What libelf could not decompress, with what the header claims (libelf seldom says why).
std::string decompressionProblem(Elf_Scn* scn, const GElf_Shdr& shdr) {
    const int reason = elf_errno();
    std::string problem = ".debug_info cannot be decompressed";
    if (GElf_Chdr chdr; gelf_getchdr(scn, &chdr))
        problem += " (compression type " + std::to_string(chdr.ch_type) + ", " +
                   std::to_string(chdr.ch_size) + " bytes claimed from " +
                   std::to_string(shdr.sh_size) + ")";
    return reason ? problem + ": " + orUnknown(elf_errmsg(reason)) : problem;
}

// Why the compressed .debug_info of a file cannot be read (libelf knows zlib, zstd only from
// elfutils 0.189 on), or "" when it is not compressed or decompresses.
std::string compressionProblem(int fd) {
    std::string problem;
    if (Elf* elf = elf_begin(fd, ELF_C_READ, nullptr)) {
        Elf_Scn* scn = findSection(elf, ".debug_info");
        GElf_Shdr shdr;
        if (scn && gelf_getshdr(scn, &shdr) && (shdr.sh_flags & SHF_COMPRESSED) &&
            elf_compress(scn, 0, 0) < 0)
            problem = decompressionProblem(scn, shdr);
        elf_end(elf);
    }
    return problem;
}

// libdwfl looks for separate debug files and alt files with this callback: it finds none, so
// that no path the input names is opened (AltFile finds the alt file).
int findNoDebugInfo(Dwfl_Module*, void**, const char*, Dwarf_Addr, const char*, const char*,
                    GElf_Word, char**) {
    return -1;
}

// Where the DIEs of a bias are, for messages (.debug_info goes without saying).
const char* sectionName(DieOffset bias) {
    return bias == kTypesBias ? " in .debug_types"
           : bias == kAltBias ? " in the .gnu_debugaltlink file"
                              : "";
}

// Gives back the resident pages of the read-only file mapping in [begin, end).
void giveBack(const char* begin, const char* end) {
    dropFilePages(std::as_bytes(std::span(begin, end)));
}

} // namespace

Expected<std::unique_ptr<LibdwUnitReader>> LibdwUnitReader::open(std::shared_ptr<MappedFile> file,
                                                                 const std::string& altPath) {
    std::unique_ptr<LibdwUnitReader> reader(new LibdwUnitReader(std::move(file)));
    if (!reader->openDirect()) {
        if (auto opened = reader->openThroughDwfl(); !opened)
            return std::move(opened).error();
    }
    if (auto units = reader->enumerateUnits(altPath); !units)
        return std::move(units).error();
    // Test hook (tests/integration/hostile-files.sh): the input shrinks here, between reading
    // the unit headers and the units, as when another process truncates it during the run.
    if (const char* size = std::getenv("BTFORGE_TEST_TRUNCATE_INPUT"))
        (void)::truncate(reader->path_.c_str(), std::strtoll(size, nullptr, 10));
    reader->findLocationSections();
    return reader;
}

bool LibdwUnitReader::openDirect() {
    elf_version(EV_CURRENT);
    fd_ = ::fcntl(input_->descriptor(), F_DUPFD_CLOEXEC, 0);
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
    if (dwarf_) {
        file_ = file;
        fileSize_ = fileSize;
    }
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
    file_ = nullptr;
    sections_ = {};
    if (fd_ >= 0)
        ::close(fd_);
    fd_ = -1;
    static const Dwfl_Callbacks callbacks = {dwfl_build_id_find_elf, findNoDebugInfo,
                                             dwfl_offline_section_address, nullptr};
    dwfl_ = dwfl_begin(&callbacks);
    if (!dwfl_)
        return Error::io(path_ + ": libdwfl: " + orUnknown(dwfl_errmsg(-1)));
    // The host's descriptor, never the path: libdwfl takes the copy when reporting succeeds.
    int fd = ::fcntl(input_->descriptor(), F_DUPFD_CLOEXEC, 0);
    if (fd < 0)
        return Error::io(path_ + ": cannot open: " + std::strerror(errno));
    module_ = dwfl_report_offline(dwfl_, path_.c_str(), path_.c_str(), fd);
    if (!module_)
        ::close(fd);
    dwfl_report_end(dwfl_, nullptr, nullptr);
    dwarf_ = module_ ? dwfl_module_getdwarf(module_, &bias_) : nullptr;
    if (!dwarf_) {
        std::string why = orUnknown(dwfl_errmsg(-1));
        if (std::string compression = compressionProblem(input_->descriptor());
            !compression.empty())
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

Expected<void> LibdwUnitReader::enumerateUnits(const std::string& altPath) {
    // dwz -m moves what several files share into one they name in .gnu_debugaltlink: its
    // partial units are read like this file's own. It is attached before libdw reads a unit,
    // which could make libdw look for it itself.
    auto alt = AltFile::attach(dwarf_, path_, altPath);
    if (!alt)
        return std::move(alt).error();
    alt_ = std::move(*alt);
    // Enumerating once, on this thread, lets libdw index every unit before workers share it.
    if (auto added = addUnits(dwarf_); !added)
        return added;
    if (units_.empty())
        return Error::badInput(path_ + ": .debug_info has no units");
    if (alt_) {
        if (auto added = addUnits(dwarf_getalt(dwarf_)); !added)
            return added;
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
    auto bytes = [](Elf_Data* data) -> std::span<const uint8_t> {
        if (!data || !data->d_buf)
            return {};
        return {static_cast<const uint8_t*>(data->d_buf), data->d_size};
    };
    std::span<const uint8_t> abbreviations = bytes(sectionData(elf, ".debug_abbrev"));
    std::span<const uint8_t> strings = bytes(sectionData(elf, ".debug_str"));
    if (const char* ident = elf_getident(elf, nullptr))
        bigEndian_ = ident[EI_DATA] == ELFDATA2MSB;
    const size_t first = units_.size();
    Dwarf_CU* cu = nullptr;
    Dwarf_CU* next = nullptr;
    Dwarf_Half version = 0;
    uint8_t unitType = 0;
    Dwarf_Die unitDie;
    int rc;
    // No split unit is asked for: libdw would open the .dwo file a skeleton unit names, any path.
    while ((rc = dwarf_get_units(dwarf, cu, &next, &version, &unitType, &unitDie, nullptr)) == 0) {
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
        Dwarf_Off abbreviationsOffset = 0;
        if (!section ||
            dwarf_next_unit(dwarf, headerOffset, &end, nullptr, nullptr, &abbreviationsOffset,
                            nullptr, nullptr, inTypes ? &signature : nullptr, nullptr) != 0 ||
            end > section->d_size)
            return Error::badInput(path_ + ": unit " + hex(headerOffset) + sectionName(bias) +
                                   ": its length runs past the end of the section");
        // The DIEs are read from the section libdw has: the unit DIE must be in it (libdw gives
        // none for a unit type it does not know).
        const auto* sectionStart = static_cast<const uint8_t*>(section->d_buf);
        if (!sectionStart || offset >= end || unitDie.addr != sectionStart + offset)
            return Error::badInput(path_ + ": unit " + hex(headerOffset) + sectionName(bias) +
                                   ": its unit DIE cannot be read (unit type " + hex(unitType) +
                                   ")");
        if (addressSize != 4 && addressSize != 8)
            return Error::badInput(path_ + ": unit " + hex(headerOffset) + sectionName(bias) +
                                   ": address size " + std::to_string(addressSize) +
                                   " is neither 4 nor 8");
        units_.push_back({unitDie, offset, headerOffset, end, version, unitType, addressSize,
                          offsetSize, bias, sectionStart, abbreviations, abbreviationsOffset,
                          strings});
        cu = next;
    }
    if (rc < 0) {
        const Unit* last = units_.size() > first ? &units_.back() : nullptr;
        std::string where =
            last ? "the unit after unit " + hex(last->headerOffset) + sectionName(last->bias)
                 : "unit 0x0";
        // libdw gives no reason when a section libelf could not decompress looks missing.
        const int reason = dwarf_errno();
        std::string why =
            reason ? orUnknown(dwarf_errmsg(reason)) : compressionProblem(input_->descriptor());
        return Error::badInput(path_ + ": " + where + ": " + (why.empty() ? "unreadable" : why));
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

void LibdwUnitReader::giveBackMapped(const uint8_t* begin, const uint8_t* end) const {
    // Only the file mapping: decompressed sections are copies on the heap.
    const auto* file = reinterpret_cast<const uint8_t*>(file_);
    if (file && begin >= file && end <= file + fileSize_ && begin < end)
        giveBack(reinterpret_cast<const char*>(begin), reinterpret_cast<const char*>(end));
}

void LibdwUnitReader::dropPages(uint64_t begin, uint64_t end) const {
    if (!info_ || end <= begin || end > infoSize_)
        return;
    giveBack(info_ + begin, info_ + end);
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
    Expected<void> read = decodeUnit(index, out);
    // Once every unit is read, what stays resident of the file (string, abbreviation and
    // location sections) is no longer needed: the end phase, where memory peaks, goes without.
    if (++unitsRead_ == units_.size() && file_)
        giveBack(file_, file_ + fileSize_);
    return read;
}

Expected<void> LibdwUnitReader::decodeUnit(size_t index, UnitDies& out) {
    out.clear();
    Unit& unit = units_[index];
    out.unitOffset = unit.offset + unit.bias;
    out.version = unit.version;
    out.addressSize = unit.addressSize;
    out.isPartial = isPartialUnit(index);

    Dwarf_Die root = unit.die;
    LocationSections locations{loclists_, loc_};
    {
        Dwarf_Attribute base;
        Dwarf_Word value;
        if (dwarf_attr(&root, DW_AT_loclists_base, &base) && dwarf_formudata(&base, &value) == 0)
            locations.listsBase = value;
    }
    std::vector<LocationOp> scratchOps;
    AttributeDecoder::Context decoding{dwarf_, unit.headerOffset + unit.bias, unit.bias, &locations,
                                       &scratchOps};
    UnitForms forms{{unit.version, unit.addressSize, unit.offsetSize}, bigEndian_, unit.strings};
    thread_local AbbreviationTable abbreviations;
    uint64_t tableEnd =
        abbreviations.parse(unit.abbreviations, unit.abbreviationsOffset, forms.layout, isDecoded);
    // Decoded: the table's pages may go (another unit sharing it reads them back).
    giveBackMapped(unit.abbreviations.data() + std::min(unit.abbreviationsOffset, tableEnd),
                   unit.abbreviations.data() + tableEnd);
    UnitWalk walk(out, abbreviations, forms, unit.section, unit.headerOffset, unit.offset, unit.end,
                  root.cu, decoding);
    if (auto failure = walk.run())
        return Error::badInput(path_ + ": DIE " + hex(failure->offset) + sectionName(unit.bias) +
                               ": " + failure->what);

    if (auto unterminated = measureNames(out))
        return Error::badInput(path_ + ": DIE " + hex(*unterminated - unit.bias) +
                               sectionName(unit.bias) +
                               ": its name or string value runs past the end of .debug_str");
    if (locations.lowest)
        giveBackMapped(locations.lowest, locations.highest);
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
    return {};
}

} // namespace btforge::dwarf
