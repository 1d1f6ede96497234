// The libdw reader's attribute values: each wanted attribute of a kept DIE, read from its form
// into a value of its class and handed to the rules (DieAttributes.h). The common
// forms are read here, straight from the DIE's bytes (the walk has checked they are inside the
// unit); values that live elsewhere (string offset and address tables, other units, the alt
// file) go through libdw.
#pragma once

#include "Abbreviations.h"

#include "btforge/dwarf/DieAttributes.h"

#include <elfutils/libdw.h>

#include <span>
#include <string_view>
#include <utility>
#include <vector>

namespace btforge::dwarf {

// The bias of the DIEs of `cu`, a unit of `main` or of its alt file.
DieOffset biasOf(Dwarf* main, Dwarf_CU* cu);

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

// One attribute of the DIE being read, in the form libdw's dwarf_form* functions take it. An
// implicit constant's value is in the abbreviation, not at `valp`.
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

class AttributeDecoder {
public:
    // What is the same for all DIEs of a unit.
    struct Context {
        Dwarf* dwarf;
        DieOffset unitStart; // the unit header's key: unit-relative references count from it
        DieOffset bias;      // added to the unit's DIE offsets
        LocationSections* locations;
        std::vector<LocationOp>* scratchOps;
    };

    AttributeDecoder(UnitDies& unit, Die& die, const Context& context, const UnitForms& forms)
        : unit_(unit), context_(context), forms_(forms), rules_(unit, die, *context.scratchOps),
          unitDie_(die.parent == kNoIndex) {}

    // Whether the reader decodes an attribute: those DieAttributes uses, and the unit DIE's
    // facts (decodeUnitFact).
    static bool isRead(uint32_t attribute);
    void decode(const Attribute& attr);
    const DieAttributes& rules() const { return rules_; }
    DieAttributes& rules() { return rules_; }

private:
    uint64_t fixed(const Attribute& attr, size_t size) const;
    uint64_t uleb(const Attribute& attr) const;
    DieOffset reference(const Attribute& attr) const;
    bool udata(const Attribute& attr, uint64_t& value) const;
    int64_t signedValue(const Attribute& attr) const;
    std::pair<const char*, size_t> string(const Attribute& attr) const;
    void decodeConstant(const Attribute& attr);
    void decodeUnitFact(const Attribute& attr);
    void decodeOperations(const Attribute& attr);
    void decodeLocation(const Attribute& attr);
    bool readExpression(const Attribute& attr, std::span<const uint8_t> bytes,
                        bool withAddressTable, std::vector<LocationOp>& ops) const;
    void appendOps(const Attribute& attr, const Dwarf_Op* ops, size_t count,
                   std::vector<LocationOp>& out) const;

    UnitDies& unit_;
    const Context& context_;
    const UnitForms& forms_;
    DieAttributes rules_;
    bool unitDie_;
    uint8_t unitFactsRead_ = 0; // decodeUnitFact's bits
};

} // namespace btforge::dwarf
