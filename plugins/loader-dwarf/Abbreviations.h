// A unit's abbreviation table, decoded once per unit into compact per-code records (the approach
// of drgn's DWARF reader): reading a DIE is then one pass over its bytes, attribute sizes known
// from the table, instead of libdw looking the abbreviation up (under a lock) for every DIE.
#pragma once

#include "Cursor.h"

#include <cstdint>
#include <span>
#include <vector>

namespace btforge::dwarf {

// The unit properties that fix the size of a form's value.
struct FormContext {
    uint16_t version = 4;
    uint8_t addressSize = 8;
    uint8_t offsetSize = 4;
};

inline constexpr uint8_t kSizeVaries = 0xff;  // read the value to know (LEB128, blocks, strings)
inline constexpr uint8_t kUnknownForm = 0xfe; // no DWARF version defines it

// The size in bytes of a value of `form` when it does not depend on the value; kSizeVaries or
// kUnknownForm otherwise.
uint8_t fixedFormSize(uint32_t form, const FormContext& context);

// Moves past one value of `form` (DW_FORM_indirect included). False for an unknown form.
bool skipFormValue(Cursor& in, uint32_t form, const FormContext& context);

struct AttributeSpec {
    uint32_t name;         // DW_AT_*
    uint32_t form;         // DW_FORM_*
    int64_t implicitConst; // DW_FORM_implicit_const: the value, which lives in the table
    uint8_t size;          // fixedFormSize
    bool wanted;           // the reader decodes it; others are only skipped
    // Where its value starts after the DIE's abbreviation code, when every attribute before it
    // has a fixed size (Abbreviation::skipSize).
    uint32_t offset;
};

struct Abbreviation {
    uint64_t code = 0;
    uint32_t tag = 0;
    bool hasChildren = false;
    uint32_t firstSpec = 0, specCount = 0;
    // The attributes' total size when all have fixed sizes, else -1: a DIE that is not decoded
    // is then skipped in one step.
    int64_t skipSize = -1;
    int32_t sibling = -1; // the DW_AT_sibling spec, if any: where the next sibling starts
    uint32_t firstWanted = 0, wantedCount = 0; // its wanted specs (AbbreviationTable::wanted)
};

class AbbreviationTable {
public:
    // Decodes the table at `offset` in `section` (.debug_abbrev). `wanted` says which attributes
    // get decoded. A table cut short keeps its complete entries: a DIE using another code fails.
    // Returns where the table ends.
    uint64_t parse(std::span<const uint8_t> section, uint64_t offset, const FormContext& context,
                   bool (*wanted)(uint32_t name));

    // The abbreviation with `code`, or null.
    const Abbreviation* find(uint64_t code) const {
        if (code < dense_.size())
            return dense_[code] == kNone ? nullptr : &abbreviations_[dense_[code]];
        return findSparse(code);
    }
    std::span<const AttributeSpec> specs(const Abbreviation& a) const {
        return {specs_.data() + a.firstSpec, a.specCount};
    }
    // Only the specs the reader decodes, in order: for a DIE of fixed size (skipSize), they are
    // read at their offsets, and the others never looked at (most DIEs: a member's or a type's
    // declaration coordinates are half its attributes).
    std::span<const AttributeSpec> wanted(const Abbreviation& a) const {
        return {wanted_.data() + a.firstWanted, a.wantedCount};
    }

private:
    static constexpr uint32_t kNone = UINT32_MAX;
    const Abbreviation* findSparse(uint64_t code) const;

    std::vector<Abbreviation> abbreviations_;
    std::vector<AttributeSpec> specs_;
    std::vector<AttributeSpec> wanted_;
    std::vector<uint32_t> dense_; // by code, for the small codes compilers use: the record index
};

} // namespace btforge::dwarf
