#include "LibdwAttributes.h"

#include "LocationDecoder.h"

#include "btforge/dwarf/DieKeys.h"

#include <array>
#include <cstring>
#include <dwarf.h>

namespace btforge::dwarf {

DieOffset biasOf(Dwarf* main, Dwarf_CU* cu) {
    if (dwarf_cu_getdwarf(cu) != main)
        return kAltBias;
    Dwarf_Half version = 0;
    uint8_t unitType = 0;
    dwarf_cu_info(cu, &version, &unitType, nullptr, nullptr, nullptr, nullptr, nullptr);
    return version < 5 && unitType == DW_UT_type ? kTypesBias : 0;
}

namespace {

// Core's formClass for the forms of DWARF 5's table, asked once: called for every attribute
// across the plugin's library boundary, it was 2 % of a vmlinux's conversion.
FormClass classOf(unsigned form) {
    static const auto table = [] {
        std::array<FormClass, 0x30> classes;
        for (unsigned f = 0; f < classes.size(); ++f)
            classes[f] = formClass(f);
        return classes;
    }();
    return form < table.size() ? table[form] : formClass(form);
}

} // namespace

uint64_t AttributeDecoder::fixed(const Attribute& attr, size_t size) const {
    return Cursor({attr.raw.valp, size}, forms_.bigEndian).fixed(size);
}

// LEB128 values: the walk has found where they end.
uint64_t AttributeDecoder::uleb(const Attribute& attr) const {
    return Cursor({attr.raw.valp, 10}).uleb();
}

DieOffset AttributeDecoder::reference(const Attribute& attr) const {
    switch (attr.form()) {
    case DW_FORM_ref1:
        return context_.unitStart + fixed(attr, 1);
    case DW_FORM_ref2:
        return context_.unitStart + fixed(attr, 2);
    case DW_FORM_ref4:
        return context_.unitStart + fixed(attr, 4);
    case DW_FORM_ref8:
        return context_.unitStart + fixed(attr, 8);
    case DW_FORM_ref_udata:
        return context_.unitStart + uleb(attr);
    default: {
        // ref_addr, type unit signatures, the alt file: libdw finds the DIE in its unit.
        Dwarf_Die target;
        if (!dwarf_formref_die(attr.lib(), &target))
            return kLostDie;
        return dwarf_dieoffset(&target) + biasOf(context_.dwarf, target.cu);
    }
    }
}

bool AttributeDecoder::udata(const Attribute& attr, uint64_t& value) const {
    // Before DWARF 4, data4 and data8 may be section offsets, which libdw checks.
    bool plainData = forms_.layout.version >= 4;
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
int64_t AttributeDecoder::signedValue(const Attribute& attr) const {
    if (attr.form() == DW_FORM_implicit_const)
        return attr.implicitConst;
    return Cursor({attr.raw.valp, 10}).sleb();
}

// The string and how far its NUL may lie: the rest of .debug_str for DW_FORM_strp, whose last
// string may lack one in a broken file; no limit where the NUL was checked already (inline
// strings, by the walk) or by libdw (the other forms).
std::pair<const char*, size_t> AttributeDecoder::string(const Attribute& attr) const {
    constexpr size_t kChecked = std::string_view().max_size();
    switch (attr.form()) {
    case DW_FORM_string:
        return {reinterpret_cast<const char*>(attr.raw.valp), kChecked};
    case DW_FORM_strp: {
        uint64_t offset = fixed(attr, forms_.layout.offsetSize);
        if (offset >= forms_.strings.size())
            return {nullptr, 0};
        return {reinterpret_cast<const char*>(forms_.strings.data() + offset),
                forms_.strings.size() - offset};
    }
    default:
        return {dwarf_formstring(attr.lib()), kChecked};
    }
}

namespace {
// The bit of a unit fact in AttributeDecoder::unitFactsRead_; 0 for other attributes.
uint8_t unitFactBit(uint32_t attribute) {
    switch (attribute) {
    case DW_AT_language:
        return 1;
    case DW_AT_producer:
        return 2;
    case DW_AT_loclists_base:
        return 4;
    default:
        return 0;
    }
}
} // namespace

bool AttributeDecoder::isRead(uint32_t attribute) {
    return DieAttributes::isUsed(attribute) || unitFactBit(attribute) != 0;
}

// The unit DIE's language, compiler and location list base, read with its other attributes: asked
// of libdw, they cost a lookup of the unit DIE's abbreviation, for which libdw decodes the unit's
// table up to that code and keeps it until the end (vmlinux: 11 MB, gcc's tables being sorted by
// use). The unit DIE comes first, so its location list base is known before any list is read. As
// libdw answers, only the unit DIE's count, and of an attribute given twice its first.
void AttributeDecoder::decodeUnitFact(const Attribute& attr) {
    const uint8_t bit = unitFactBit(attr.name());
    if (!unitDie_ || (unitFactsRead_ & bit))
        return;
    unitFactsRead_ |= bit;
    uint64_t value = 0;
    switch (attr.name()) {
    case DW_AT_language:
        if (udata(attr, value))
            unit_.language = static_cast<uint16_t>(value);
        break;
    case DW_AT_loclists_base:
        if (udata(attr, value))
            context_.locations->listsBase = value;
        break;
    default:
        if (auto [text, limit] = string(attr); text) {
            const size_t length = strnlen(text, limit);
            if (length < limit)
                unit_.producer = {text, length};
        }
        break;
    }
}

void AttributeDecoder::decode(const Attribute& attr) {
    const unsigned name = attr.name();
    if (unitFactBit(name) != 0)
        return decodeUnitFact(attr);
    if (name == DW_AT_location)
        return decodeLocation(attr);
    if (name == DW_AT_ranges)
        return rules_.ranges(); // read by the walk if the rules need it
    const FormClass kind = classOf(attr.form());
    switch (kind) {
    case FormClass::Flag:
        rules_.flag(name, attr.form() == DW_FORM_flag_present || fixed(attr, 1) != 0);
        break;
    case FormClass::String:
        // Measured once the unit is read (the walk's measureNames): the string's first touch, a
        // cache miss, is started here and overlaps with reading the next DIEs. Until then the
        // view's size is how far the NUL may lie.
        if (auto [s, limit] = string(attr); s) {
            __builtin_prefetch(s);
            rules_.string(name, {s, limit});
        }
        break;
    case FormClass::Reference:
        rules_.reference(name, reference(attr));
        break;
    case FormClass::Address:
        if (attr.form() == DW_FORM_addr)
            rules_.address(name, fixed(attr, forms_.layout.addressSize));
        else if (Dwarf_Addr address; dwarf_formaddr(attr.lib(), &address) == 0)
            rules_.address(name, address);
        break;
    case FormClass::Block:
    case FormClass::Expression:
        if (DieAttributes::takesOperations(name, kind))
            decodeOperations(attr);
        else if (Dwarf_Block block;
                 kind == FormClass::Block && dwarf_formblock(attr.lib(), &block) == 0)
            rules_.block(name, {block.data, block.length}, forms_.bigEndian);
        break;
    case FormClass::Constant:
        decodeConstant(attr);
        break;
    }
}

void AttributeDecoder::decodeConstant(const Attribute& attr) {
    if (attr.form() == DW_FORM_data16) { // which libdw does not read as a number
        rules_.wideConstant(attr.name(), {attr.raw.valp, 16}, forms_.bigEndian);
        return;
    }
    if (isSignedForm(attr.form())) {
        rules_.constant(attr.name(), {static_cast<uint64_t>(signedValue(attr)), true});
        return;
    }
    if (uint64_t value = 0; udata(attr, value))
        rules_.constant(attr.name(), {value, false});
}

void AttributeDecoder::decodeOperations(const Attribute& attr) {
    Dwarf_Op* ops = nullptr;
    size_t count = 0;
    if (dwarf_getlocation(attr.lib(), &ops, &count) != 0)
        return;
    std::vector<LocationOp>& decoded = *context_.scratchOps;
    decoded.clear();
    appendOps(attr, ops, count, decoded);
    rules_.operations(attr.name(), decoded);
}

// libdw's operations as LocationOps. Indexed addresses (DWARF 5's DW_OP_addrx, via .debug_addr)
// become plain DW_OP_addr, so core sees one form.
void AttributeDecoder::appendOps(const Attribute& attr, const Dwarf_Op* ops, size_t count,
                                 std::vector<LocationOp>& out) const {
    for (size_t i = 0; i < count; ++i) {
        LocationOp op{ops[i].atom, ops[i].number, ops[i].number2};
        if (op.atom == DW_OP_entry_value || op.atom == DW_OP_GNU_entry_value ||
            op.atom == DW_OP_implicit_value) // libdw: a pointer to the block
            op.number2 = op.number ? *reinterpret_cast<const uint8_t*>(ops[i].number2) : 0;
        if (op.atom == DW_OP_addrx || op.atom == DW_OP_GNU_addr_index) {
            Dwarf_Attribute address;
            Dwarf_Addr value;
            if (dwarf_getlocation_attr(attr.lib(), const_cast<Dwarf_Op*>(&ops[i]), &address) == 0 &&
                dwarf_formaddr(&address, &value) == 0)
                op = {DW_OP_addr, value, 0};
        }
        out.push_back(op);
    }
}

// Appends the expression's operations to `ops`, decoded here; those with an index into
// .debug_addr go through libdw when `withAddressTable`. False when the expression cannot be
// read (the operations appended are then to be dropped).
bool AttributeDecoder::readExpression(const Attribute& attr, std::span<const uint8_t> bytes,
                                      bool withAddressTable, std::vector<LocationOp>& ops) const {
    const size_t first = ops.size();
    Decoded decoded = decodeExpression(bytes, unit_.addressSize, forms_.bigEndian, ops);
    if (decoded == Decoded::Ok)
        return true;
    ops.resize(first);
    Dwarf_Op* libdwOps = nullptr;
    size_t count = 0;
    if (!withAddressTable || decoded != Decoded::NeedsAddressTable ||
        dwarf_getlocation(attr.lib(), &libdwOps, &count) != 0)
        return false;
    appendOps(attr, libdwOps, count, ops);
    return true;
}

void AttributeDecoder::decodeLocation(const Attribute& attr) {
    const unsigned form = attr.form();
    const bool isList = DieAttributes::isLocationList(form, unit_.version);
    rules_.location(isList);
    if (!isList) {
        if (Dwarf_Block block; dwarf_formblock(attr.lib(), &block) == 0) {
            std::vector<LocationOp>& ops = rules_.expression();
            rules_.expressionRead(readExpression(attr, {block.data, block.length}, true, ops));
        }
        return;
    }
    uint64_t offset = 0;
    if (!udata(attr, offset))
        return;
    LocationSections& locations = *context_.locations;
    if (form == DW_FORM_loclistx) {
        // An index into the offsets table at the unit's DW_AT_loclists_base, both checked on
        // their own: summed unchecked, a huge index or base wraps around to a small slot.
        const uint64_t size = locations.lists.size();
        if (locations.listsBase > size || offset > (size - locations.listsBase) / 4 ||
            size - locations.listsBase - offset * 4 < 4)
            return;
        const uint64_t slot = locations.listsBase + offset * 4;
        auto relative =
            Cursor(std::span(locations.lists).subspan(slot, 4), forms_.bigEndian).fixed(4);
        offset = locations.listsBase + relative;
    }
    bool first = true;
    forEachLocationEntry(unit_.version >= 5 ? locations.lists : locations.oldLists, offset,
                         unit_.version, unit_.addressSize, forms_.bigEndian,
                         [&](std::span<const uint8_t> bytes) {
                             locations.touched(bytes);
                             if (rules_.wanted()) {
                                 std::vector<LocationOp>& ops = rules_.expression();
                                 // libdw reads the address table of the first one only.
                                 rules_.expressionRead(readExpression(attr, bytes, first, ops));
                             }
                             first = false;
                         });
}

} // namespace btforge::dwarf
