// RISC-V's ULEB128 label differences. clang writes the offsets of its riscv location and range
// lists as the difference of two labels: an R_RISCV_SET_ULEB128 of the end, then an
// R_RISCV_SUB_ULEB128 of the start at the same offset. Neither elfutils 0.188 nor LLVM 19 applies
// them, so both DWARF loaders pair them here, each checking the result its own way.
#pragma once

#include <cstdint>
#include <optional>

namespace btforge::elf {

// Numbered here: bookworm's elf.h predates them.
inline constexpr unsigned kRiscvSetUleb128 = 60;
inline constexpr unsigned kRiscvSubUleb128 = 61;

// A label as a relocation names it: the section its symbol is defined in and its value (symbol
// plus addend, in whatever address space the caller lays sections out in).
struct Uleb128Label {
    uint32_t section = 0;
    uint64_t value = 0;
};

// Pairs each SET with the SUB that follows it, within one relocation section.
class Uleb128LabelPairs {
public:
    enum class Outcome {
        SetTaken,       // a SET, waiting for its SUB
        Paired,         // a SUB completing its SET: difference() holds end - start
        SetWithoutSub,  // a SET while another still waits
        SubWithoutSet,  // a SUB with no SET at its offset
        AcrossSections, // the two labels lie in different sections
    };

    static bool isPairType(unsigned type) {
        return type == kRiscvSetUleb128 || type == kRiscvSubUleb128;
    }

    // Takes relocation `type` (SET or SUB) at `offset`, naming `label`.
    Outcome add(unsigned type, uint64_t offset, Uleb128Label label) {
        if (type == kRiscvSetUleb128) {
            if (set_)
                return Outcome::SetWithoutSub;
            set_ = Set{offset, label};
            return Outcome::SetTaken;
        }
        if (!set_ || set_->offset != offset)
            return Outcome::SubWithoutSet;
        const Uleb128Label end = set_->end;
        set_.reset();
        if (end.section != label.section)
            return Outcome::AcrossSections;
        difference_ = end.value - label.value;
        return Outcome::Paired;
    }

    uint64_t difference() const { return difference_; }
    // The offset of a SET still waiting for its SUB (at the end of a section: one without).
    std::optional<uint64_t> waitingSet() const {
        return set_ ? std::optional(set_->offset) : std::nullopt;
    }
    void clear() { set_.reset(); }

private:
    struct Set {
        uint64_t offset;
        Uleb128Label end;
    };
    std::optional<Set> set_;
    uint64_t difference_ = 0;
};

} // namespace btforge::elf
