#include "dwarf/CallingConvention.h"

#include <algorithm>
#include <elf.h>

namespace btforge::dwarf {
namespace {

// DWARF register numbers of the argument registers, from each psABI's DWARF register mapping.
constexpr uint8_t kX86_64[] = {5, 4, 1, 2, 8, 9};              // rdi rsi rdx rcx r8 r9
constexpr uint8_t kI386Regparm3[] = {0, 2, 1};                 // eax edx ecx (-mregparm=3)
constexpr uint8_t kAarch64[] = {0, 1, 2, 3, 4, 5, 6, 7};       // x0-x7
constexpr uint8_t kArm[] = {0, 1, 2, 3};                       // r0-r3
constexpr uint8_t kS390[] = {2, 3, 4, 5, 6};                   // r2-r6
constexpr uint8_t kPowerPc[] = {3, 4, 5, 6, 7, 8, 9, 10};      // r3-r10
constexpr uint8_t kRiscv[] = {10, 11, 12, 13, 14, 15, 16, 17}; // a0-a7 (x10-x17)
constexpr uint8_t kLoongArch[] = {4, 5, 6, 7, 8, 9, 10, 11};   // a0-a7 (r4-r11)
constexpr uint8_t kMipsN64[] = {4, 5, 6, 7, 8, 9, 10, 11};     // a0-a7 ($4-$11)
constexpr uint8_t kMipsO32[] = {4, 5, 6, 7};                   // a0-a3 ($4-$7)
constexpr uint8_t kBpf[] = {1, 2, 3, 4, 5};                    // r1-r5

// Aggregates are passed as each ABI says; floating-point values travel in their own registers
// everywhere but 64-bit PowerPC, whose parameter save area gives them a general register slot.
constexpr CallingConvention kSysVAmd64{"System V AMD64", kX86_64, 8, 16, false};
// The kernel is built with -mregparm=3, and GCC passes static functions' arguments this way too.
// gcc and clang pass an aggregate in the registers left while it fits (struct membuf, and with
// PAE the 8-byte pmd_t, in EAX:EDX); one that does not fit goes on the stack with every later
// argument. Arguments on the stack are not checked.
constexpr CallingConvention kI386{"i386 regparm(3)", kI386Regparm3, 4, UINT16_MAX, false};
constexpr CallingConvention kAapcs64{"AAPCS64", kAarch64, 8, 16, true};
constexpr CallingConvention kAapcs{"AAPCS", kArm, 4, UINT16_MAX, false, false, true};
constexpr CallingConvention kS390x{"s390x ELF ABI", kS390, 8, 8, true, true};
constexpr CallingConvention kS390_31{"s390 ELF ABI", kS390, 4, 8, true, true};
// ELFv1 (big-endian) maps arguments to registers the same way for what is checked here.
constexpr CallingConvention kPpc64{
    "64-bit PowerPC ELF ABI", kPowerPc, 8, UINT16_MAX, false, false, false, true};
constexpr CallingConvention kPpc32{"32-bit SysV PowerPC", kPowerPc, 4, 0, true, false, true};
constexpr CallingConvention kLp64{"RISC-V LP64", kRiscv, 8, 16, true};
constexpr CallingConvention kIlp32{"RISC-V ILP32", kRiscv, 4, 8, true};
constexpr CallingConvention kLoongArch64{"LoongArch LP64", kLoongArch, 8, 16, true};
// Each argument takes the next slot, a floating-point one too (in the FPR of that slot), and
// aggregates travel in registers while they last, as on 64-bit PowerPC.
constexpr CallingConvention kMips64{"MIPS n64", kMipsN64, 8, UINT16_MAX, false, false, false, true};
// The first 16 bytes of the argument area travel in a0-a3: a 64-bit value in an even-numbered
// pair, a struct as its bytes while registers last. Floating-point arguments take their slots
// too (the leading ones arrive in $f12 and $f14 instead).
constexpr CallingConvention kO32{"MIPS o32", kMipsO32, 4, UINT16_MAX, false, false, true, true};
constexpr CallingConvention kBpfAbi{"BPF", kBpf, 8, 0, false};

} // namespace

const CallingConvention* callingConventionOf(const elf::Target& target) {
    const bool is64 = target.pointerSize == 8;
    switch (target.machine) {
    case EM_X86_64:
        return is64 ? &kSysVAmd64 : nullptr; // x32 is not modelled
    case EM_386:
        return &kI386;
    case EM_AARCH64:
        return is64 ? &kAapcs64 : nullptr;
    case EM_ARM:
        return &kAapcs;
    case EM_S390:
        return is64 ? &kS390x : &kS390_31;
    case EM_PPC64:
        return &kPpc64;
    case EM_PPC:
        return &kPpc32;
    case EM_RISCV:
        return is64 ? &kLp64 : &kIlp32;
    case EM_LOONGARCH:
        return is64 ? &kLoongArch64 : nullptr;
    case EM_MIPS: // 32-bit: o32, or n32 (EF_MIPS_ABI2), which is not modelled
        return is64 ? &kMips64 : (target.flags & EF_MIPS_ABI2) ? nullptr : &kO32;
    case EM_BPF:
        return &kBpfAbi;
    default:
        return nullptr;
    }
}

int ArgumentRegisters::next(const ArgumentShape& argument) {
    const size_t count = cc_.argumentRegisters.size();
    if (lost_ || slot_ >= count)
        return kNotInRegister;
    if (argument.isFloat && !cc_.floatsTakeSlots)
        return kNotInRegister;

    uint64_t size = argument.size;
    if (argument.isAggregate && !aggregateInRegisters(argument)) {
        if (!cc_.largeAggregatesByReference)
            return kNotInRegister; // in memory: takes no register
        size = cc_.registerSize;   // a pointer to a copy
    }
    if (size == 0) {
        // gcc and clang give an empty aggregate no register (s390x's by reference, above);
        // of an incomplete type the model cannot tell what it takes.
        if (argument.incomplete)
            lost_ = true;
        return kNotInRegister;
    }
    size_t needed = (size + cc_.registerSize - 1) / cc_.registerSize;
    size_t first = slot_;
    if (needed == 2 && cc_.pairsStartEven && !argument.isAggregate)
        first += first % 2;
    if (first + needed > count) {
        // Split between registers and the stack, or moved to the stack: ABIs differ in what
        // happens to later arguments, so none of them is checked.
        lost_ = true;
        return kNotInRegister;
    }
    slot_ = first + needed;
    // A floating-point value that takes a slot still arrives in a floating-point register.
    return argument.isFloat ? kNotInRegister : cc_.argumentRegisters[first];
}

bool ArgumentRegisters::passesInMemory(const ArgumentShape& argument) const {
    return !lost_ && slot_ < cc_.argumentRegisters.size() && argument.isAggregate &&
           argument.size > 0 && !aggregateInRegisters(argument) && !cc_.largeAggregatesByReference;
}

size_t ArgumentRegisters::slotsBeyondConvention(const ArgumentShape& argument) const {
    if (passesInMemory(argument))
        return 1;
    if (!argument.isFloat || cc_.floatsTakeSlots || lost_ || slot_ >= cc_.argumentRegisters.size())
        return 0;
    return std::max<uint64_t>(1, (argument.size + cc_.registerSize - 1) / cc_.registerSize);
}

bool ArgumentRegisters::aggregateInRegisters(const ArgumentShape& argument) const {
    if (cc_.aggregatesOfScalarSizeOnly)
        return argument.size == 1 || argument.size == 2 || argument.size == 4 || argument.size == 8;
    return argument.size <= cc_.aggregateInRegistersMax;
}

} // namespace btforge::dwarf
