// How pahole reads the layout of a struct or union: where each member's storage starts (a
// bitfield's unit aligned to its type's size), the holes and bit holes between members, the
// padding after them, whether the layout needs __attribute__((__packed__)), and each member's and
// the type's __attribute__((__aligned__(N))): as declared when the graph records declarations
// (DWARF's DW_AT_alignment, which the DWARF loaders keep as attribute DECL_TAGs 'aligned(N)'),
// or else inferred from the offsets, as pahole infers them for BTF.
#pragma once

#include "btforge/ir/TypeGraph.h"

#include <cstdint>
#include <memory>
#include <span>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace btforge::layout {

struct MemberLayout {
    ir::Member member;
    uint32_t byteOffset = 0;     // a bitfield's storage unit
    uint32_t byteSize = 0;       // the size of the member's type (a bitfield's unit)
    uint32_t bitfieldOffset = 0; // in the unit, in BTF's numbering (from the MSB on big-endian)
    uint32_t hole = 0;           // bytes between this member's end and the next member
    uint32_t bitHole = 0;        // bits unused in a bitfield's unit before the next member
    uint32_t alignment = 0;      // declared or inferred __aligned__(N); 0: none
    bool flexibleArray = false;  // an array of no elements
};

struct ClassLayout {
    bool isUnion = false;
    uint32_t size = 0;
    std::vector<MemberLayout> members;
    uint32_t preHole = 0, preBitHole = 0; // before the first member
    uint32_t holes = 0, bitHoles = 0;     // how many
    uint32_t padding = 0, bitPadding = 0; // after the last member
    uint32_t alignment = 0;               // the type's own __aligned__(N); 0: none
    bool packed = false;                  // needs __attribute__((__packed__)) (inferPacked)
    bool packedInferred = false;
    bool flexibleArray = false;         // its last member is a flexible array
    bool embeddedFlexibleArray = false; // a member's type has one, not at its end
};

class LayoutAnalyzer {
public:
    // `declared`: the graph comes from declarations (DWARF), whose alignment attributes are
    // DECL_TAGs; otherwise (BTF) alignment is inferred from the offsets, which depends on the
    // cacheline size.
    LayoutAnalyzer(const ir::TypeGraph& graph, uint32_t cacheline, bool declared);
    bool declaresAlignment() const { return declared_; }

    // The layout of a STRUCT or UNION, computed once.
    const ClassLayout& of(ir::TypeId composite);
    // Through typedefs, qualifiers and type tags, as pahole strips a member's type.
    ir::TypeId resolved(ir::TypeId id) const;
    // Bytes a value of the type takes (pahole's: an unknown size is 0).
    uint32_t sizeOf(ir::TypeId id) const;
    // The alignment a type has without attributes: its own size for scalars, the largest of its
    // members' for structs and unions.
    uint32_t naturalAlignment(ir::TypeId id);
    // Whether the DWARF declares member `component`'s anonymous type inside the struct, right
    // after it (clang does; the DWARF loaders tag such members, dwarf::kNestedTypeTag).
    bool declaresNestedType(ir::TypeId id, uint32_t component) const;
    // Whether the DWARF declares the type inside a function (dwarf::kLocalTypeTag).
    bool declaredInFunction(ir::TypeId id) const;
    // Decides whether a struct needs __attribute__((__packed__)), as pahole does when it prints
    // one or a struct with a member of its type: a member off its type's natural alignment, or
    // a size that is no multiple of it; a struct that has holes or padding is not, and marks
    // the struct types of its members found off their alignment packed (markPacked). A union
    // (as pahole, when it prints one) marks its struct members whose alignment does not divide
    // its size. So the answer depends on what was printed before, as pahole's.
    void inferPacked(ir::TypeId id);

private:
    void markPacked(ir::TypeId id);
    ClassLayout& layout(ir::TypeId composite);
    void place(ClassLayout& layout, std::span<const ir::Member> members, ir::TypeId id);
    void findHoles(ClassLayout& layout);
    void inferAlignment(ClassLayout& layout);
    uint32_t declaredAlignment(ir::TypeId id, int32_t component) const;

    const ir::TypeGraph& graph_;
    uint32_t cacheline_;
    bool declared_ = false;
    std::unordered_map<ir::TypeId, std::unique_ptr<ClassLayout>> layouts_;
    std::unordered_map<ir::TypeId, uint32_t> natural_;
    // (type id << 32 | component + 1) -> N, from DECL_TAG attributes 'aligned(N)'.
    std::unordered_map<uint64_t, uint32_t> alignments_;
    std::unordered_set<uint64_t> nestedTypes_; // (type id << 32 | component + 1)
    std::unordered_set<ir::TypeId> localTypes_;
};

} // namespace btforge::layout
