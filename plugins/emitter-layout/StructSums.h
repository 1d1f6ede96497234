// What pahole sums up after a struct's members, gathered as they are printed: bytes and bits
// of members, holes, member types with holes or padding, forced alignments, flexible arrays.
#pragma once

#include "ClassLayout.h"

#include <cstdint>
#include <string>
#include <vector>

namespace btforge::layout {

class StructSums {
public:
    // A member, and the hole before it (its forced alignment's).
    void addMember(const MemberLayout& member, uint32_t holeBefore);
    void addHole(uint32_t bytes) { holes_ += bytes; }
    void addBitHole(uint32_t bits) { bitHoles_ += bits; }
    // A member whose own type is a struct: what its 'XXX last struct has ...' comment lists
    // ("a flexible array, 4 bytes of padding, 1 hole"), empty when nothing.
    std::string addMemberStruct(const ClassLayout& type);

    // The comment lines after the members, without their indentation: `start` is where the
    // struct lies (cachelines count from there).
    std::vector<std::string> lines(const ClassLayout& layout, uint64_t start,
                                   uint32_t cacheline) const;

private:
    uint64_t bytes_ = 0, bits_ = 0, holes_ = 0, bitHoles_ = 0;
    uint32_t paddings_ = 0, sumPaddings_ = 0;
    uint32_t typesWithHoles_ = 0, typeHoles_ = 0, typesWithBitHoles_ = 0, typeBitHoles_ = 0;
    uint32_t typesWithBitPadding_ = 0, typeBitPadding_ = 0;
    uint32_t forced_ = 0, forcedHoles_ = 0, sumForcedHoles_ = 0;
    uint32_t flexibleAtEnd_ = 0, flexibleInMiddle_ = 0;
};

// "1 byte", "7 bytes": a count and its unit, plural when it is not one.
std::string counted(uint64_t n, std::string_view unit);

} // namespace btforge::layout
