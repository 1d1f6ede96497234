// Where a target's calling convention puts a function's arguments on entry, in DWARF register
// numbers: what the "unexpected register" rule checks each parameter's entry location against.
// Only what that rule needs is modelled: integer and pointer arguments in general-purpose
// registers, wide scalars in register pairs, aggregates as each ABI passes them, floating-point
// arguments aside. Wherever the model cannot tell, it says so and nothing is checked.
#pragma once

#include "btforge/elf/Target.h"

#include <cstdint>
#include <span>
#include <string_view>

namespace btforge::dwarf {

struct CallingConvention {
    std::string_view name;                      // the ABI document's name, for reports
    std::span<const uint8_t> argumentRegisters; // DWARF register numbers, first argument first
    uint8_t registerSize = 8;                   // bytes one argument register holds
    // Aggregates up to this many bytes travel in registers, one per registerSize bytes (0: never).
    uint16_t aggregateInRegistersMax = 0;
    // Larger aggregates: a pointer to a copy in one register (else: in memory, no register).
    bool largeAggregatesByReference = false;
    // Only aggregates of 1, 2, 4 or 8 bytes travel in a register (s390x); others by reference.
    bool aggregatesOfScalarSizeOnly = false;
    // A value taking two registers starts in an even-numbered one (AAPCS, 32-bit PowerPC).
    bool pairsStartEven = false;
    // Floating-point arguments use up a general-purpose register slot (64-bit PowerPC).
    bool floatsTakeSlots = false;
};

// The convention the Linux kernel is built with on this target; nullptr when btforge does not
// know it (then no parameter is ever said to be in an unexpected register).
const CallingConvention* callingConventionOf(const elf::Target& target);

// One argument as the convention sees it.
struct ArgumentShape {
    uint64_t size = 0;
    bool isAggregate = false; // struct, union or class by value
    bool isFloat = false;
    bool isPointer = false;  // or a reference
    bool incomplete = false; // declared only, or of unknown type: its size is not known
    // A struct or union without members (a GNU C extension): size 0, and complete.
    bool isEmptyAggregate() const { return isAggregate && size == 0 && !incomplete; }
};

// Assigns a function's arguments to registers in order, as the convention does.
class ArgumentRegisters {
public:
    static constexpr int kNotInRegister = -1; // in memory, or where the model cannot tell

    explicit ArgumentRegisters(const CallingConvention& convention) : cc_(convention) {}
    // The DWARF register the next argument (its first part) arrives in, or kNotInRegister.
    int next(const ArgumentShape& argument);
    // Whether the next argument is an aggregate the convention passes in memory while argument
    // registers remain: it takes none, so the arguments after it arrive a register earlier
    // than in BPF's model of a function, which gives every argument a register in turn.
    bool passesInMemory(const ArgumentShape& argument) const;
    // How many argument registers the arguments so far have taken.
    size_t used() const { return slot_; }
    // How many registers BPF's model gives the next argument that the convention does not:
    // the model gives every argument the next ones in turn, as many as its size takes (an
    // aggregate passed in memory, one), where the convention passes that aggregate in memory
    // and floating-point values in registers of their own.
    size_t slotsBeyondConvention(const ArgumentShape& argument) const;

private:
    // Whether an aggregate of this shape travels in argument registers.
    bool aggregateInRegisters(const ArgumentShape& argument) const;

    const CallingConvention& cc_;
    size_t slot_ = 0;
    bool lost_ = false; // an argument the model cannot place: later ones are not checked
};

} // namespace btforge::dwarf
