// The DWARF of one unit as every DWARF reader hands it to core: a flat, pre-order array of DIEs
// with the attributes the mapping uses, already decoded. Loaders differ only in how they fill
// it (libdw, LLVM DebugInfo); everything that decides what a DIE means lives in core.
#pragma once

#include "btforge/Export.h"

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace btforge::dwarf {

// A DIE's offset in .debug_info (type units: in their own section, offset by the loader so keys
// never collide). Unique within one input, independent of the unit.
using DieOffset = uint64_t;
inline constexpr DieOffset kNoDie = UINT64_MAX;
// A reference a reader could not follow to any DIE: no unit has it, so it is read as void and
// counted with the other references to no DIE (a warning), unlike kNoDie (no reference at all).
inline constexpr DieOffset kLostDie = UINT64_MAX - 1;
inline constexpr uint32_t kNoIndex = UINT32_MAX;

// Vendor tags and values dwarf.h does not have.
inline constexpr uint16_t kTagLlvmAnnotation = 0x6000;
inline constexpr uint16_t kTagGnuAnnotation = 0x6001;

enum DieFlag : uint32_t {
    kDeclaration = 1u << 0,
    kExternal = 1u << 1,
    kPrototyped = 1u << 2,
    kArtificial = 1u << 3,
    kVector = 1u << 4, // DW_AT_GNU_vector on an array
    kHasByteSize = 1u << 5,
    kHasBitSize = 1u << 6,
    kHasDataMemberLocation = 1u << 7,
    kHasDataBitOffset = 1u << 8,
    kHasBitOffset = 1u << 9, // DWARF 2-4 bitfield position, counted from the storage unit's MSB
    kHasConstValue = 1u << 10,
    kConstValueSigned = 1u << 11, // the constant came in a signed form (DW_FORM_sdata, implicit)
    kHasUpperBound = 1u << 12,
    kHasCount = 1u << 13,
    kHasLowPc = 1u << 14,
    kHasLocation = 1u << 15,      // DW_AT_location present (expression or list)
    kLocationIsList = 1u << 16,   // ... and it is a location list
    kLocationKnown = 1u << 17,    // locationOps holds the (first) expression
    kInlined = 1u << 18,          // DW_AT_inline says declared or actually inlined
    kConstValueString = 1u << 19, // DW_AT_const_value is a string (annotations)
    kSignature = 1u << 20, // a stand-in for the type unit's type `type` names (DW_AT_signature)
};

// One decoded DWARF expression operation (DW_OP_*), as both readers decode them. Operations
// with a block operand (DW_OP_entry_value, DW_OP_implicit_value) hold its length in `number`
// and its first byte in `number2`: values only, never pointers into a reader's buffers.
struct LocationOp {
    uint8_t atom = 0;
    uint64_t number = 0;
    uint64_t number2 = 0;
};

// What few DIEs have (bitfield members, functions' code, located parameters and variables,
// annotations), kept beside the DIEs (UnitDies::rare): a DIE is 112 bytes instead of 168, and a
// small module's DIEs were a third of its run's page faults.
struct RareAttributes {
    uint64_t bitSize = 0;
    uint64_t dataBitOffset = 0;
    uint64_t bitOffset = 0;
    uint64_t lowPc = 0;
    std::string_view stringValue; // DW_AT_const_value of annotations
    // The location expression, as operations in UnitDies::locationOps (kLocationKnown): the
    // DW_AT_location expression, or for a location list its first entry's.
    uint32_t locationFirst = 0;
    uint32_t locationCount = 0;
    // A location list entry that is exactly DW_OP_entry_value(DW_OP_regN) names register N: the
    // register the value arrived in. 0xff when there is none.
    uint8_t entryValueRegister = 0xff;
};

struct Die {
    DieOffset offset = kNoDie;
    uint32_t parent = kNoIndex; // indexes into UnitDies::dies
    uint32_t nextSibling = kNoIndex;
    uint32_t firstChild = kNoIndex;
    uint16_t tag = 0;
    uint8_t encoding = 0;          // DW_AT_encoding
    uint8_t callingConvention = 0; // DW_AT_calling_convention (0: absent)
    uint32_t flags = 0;
    uint32_t alignment = 0;   // DW_AT_alignment (0: absent)
    uint32_t rare = kNoIndex; // its RareAttributes in UnitDies::rare, if it has any
    std::string_view name;
    DieOffset type = kNoDie; // DW_AT_type
    DieOffset abstractOrigin = kNoDie;
    DieOffset specification = kNoDie;
    uint64_t byteSize = 0;
    uint64_t dataMemberLocation = 0; // constant byte offset (simple expressions evaluated)
    uint64_t constValue = 0;         // raw bits; kConstValueSigned says how to widen
    uint64_t bound = 0;              // upper bound or count (see flags)

    bool has(DieFlag flag) const { return (flags & flag) != 0; }
};

struct BTFORGE_API UnitDies {
    DieOffset unitOffset = 0;
    uint16_t version = 0;
    uint16_t language = 0; // DW_AT_language of the unit DIE
    uint8_t addressSize = 8;
    bool isPartial = false;    // DW_TAG_partial_unit / type unit: types other units refer to
    std::string_view name;     // DW_AT_name of the unit
    std::string_view producer; // DW_AT_producer: which compiler, which decides some rules
    std::vector<Die> dies;     // pre-order; dies[0] is the unit DIE
    std::vector<RareAttributes> rare;
    std::vector<LocationOp> locationOps;

    // A DIE's rare attributes: the defaults when it has none.
    const RareAttributes& rareOf(const Die& die) const {
        static constexpr RareAttributes kNone{};
        return die.rare == kNoIndex ? kNone : rare[die.rare];
    }
    // ... to set them: made the first time (a reference until the next DIE's are made).
    RareAttributes& rareFor(Die& die) {
        if (die.rare == kNoIndex) {
            die.rare = static_cast<uint32_t>(rare.size());
            rare.emplace_back();
        }
        return rare[die.rare];
    }
    std::span<const LocationOp> location(const Die& die) const {
        const RareAttributes& r = rareOf(die);
        return {locationOps.data() + r.locationFirst, r.locationCount};
    }

    bool isClang() const { return producer.find("clang") != std::string_view::npos; }
    // The bytes its vectors hold (--stats). DIEs count as many as are used: room reserved for
    // them (DieTreeBuilder) takes no memory until written.
    size_t memoryUsage() const {
        return dies.size() * sizeof(Die) + rare.capacity() * sizeof(RareAttributes) +
               locationOps.capacity() * sizeof(LocationOp);
    }
    // Empties the unit but keeps the vectors' capacity: a worker reuses one UnitDies per unit.
    void clear();
    // Adds the DIEs of a unit whose offsets all follow this one's; its unit DIE gets no parent.
    void append(const UnitDies& other);
};

} // namespace btforge::dwarf
