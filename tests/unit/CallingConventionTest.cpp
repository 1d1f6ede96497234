// Argument registers per target: each psABI's DWARF numbering and how it places wide scalars,
// aggregates and floating-point values.
#include "dwarf/CallingConvention.h"

#include <doctest/doctest.h>

#include <cstddef>
#include <elf.h>
#include <vector>

using namespace btforge;
using namespace btforge::dwarf;

namespace {

elf::Target target(uint16_t machine, uint8_t pointerSize, uint32_t flags = 0) {
    elf::Target t;
    t.machine = machine;
    t.pointerSize = pointerSize;
    t.flags = flags;
    return t;
}

// The registers a function's arguments arrive in, in order (-1: not in a register).
std::vector<int> assign(uint16_t machine, uint8_t pointerSize,
                        std::initializer_list<ArgumentShape> arguments) {
    const CallingConvention* cc = callingConventionOf(target(machine, pointerSize));
    REQUIRE(cc);
    ArgumentRegisters registers(*cc);
    std::vector<int> out;
    for (const ArgumentShape& a : arguments)
        out.push_back(registers.next(a));
    return out;
}

constexpr ArgumentShape kLong{8};
constexpr ArgumentShape kInt{4};
constexpr ArgumentShape kDouble{8, false, true};

} // namespace

TEST_CASE("integer arguments take each target's argument registers in order") {
    CHECK(assign(EM_X86_64, 8, {kLong, kLong, kLong, kLong, kLong, kLong, kLong}) ==
          std::vector<int>{5, 4, 1, 2, 8, 9, -1});
    CHECK(assign(EM_AARCH64, 8, {kLong, kLong, kInt}) == std::vector<int>{0, 1, 2});
    CHECK(assign(EM_S390, 8, {kLong, kLong, kLong, kLong, kLong, kLong}) ==
          std::vector<int>{2, 3, 4, 5, 6, -1});
    CHECK(assign(EM_PPC64, 8, {kLong, kInt}) == std::vector<int>{3, 4});
    CHECK(assign(EM_RISCV, 8, {kLong, kLong}) == std::vector<int>{10, 11});
    CHECK(assign(EM_LOONGARCH, 8, {kLong, kLong}) == std::vector<int>{4, 5});
    CHECK(assign(EM_MIPS, 8, {kLong, kInt}) == std::vector<int>{4, 5}); // n64: $a0, $a1
    CHECK(assign(EM_386, 4, {kInt, kInt, kInt, kInt}) == std::vector<int>{0, 2, 1, -1});
    CHECK(assign(EM_ARM, 4, {kInt, kInt, kInt, kInt, kInt}) == std::vector<int>{0, 1, 2, 3, -1});
    // o32 (Debian's mipsel): $a0-$a3 only.
    CHECK(assign(EM_MIPS, 4, {kInt, kInt, kInt, kInt, kInt}) == std::vector<int>{4, 5, 6, 7, -1});
}

TEST_CASE("64-bit values on 32-bit targets take a pair, even-aligned where the ABI says so") {
    const ArgumentShape wide{8};
    CHECK(assign(EM_ARM, 4, {kInt, wide, kInt}) == std::vector<int>{0, 2, -1});
    CHECK(assign(EM_PPC, 4, {kInt, wide, kInt}) == std::vector<int>{3, 5, 7});
    CHECK(assign(EM_MIPS, 4, {kInt, wide, kInt}) == std::vector<int>{4, 6, -1});
    CHECK(assign(EM_386, 4, {wide, kInt}) == std::vector<int>{0, 1});
    // A pair that does not fit: later arguments are not placed (ABIs differ there).
    CHECK(assign(EM_386, 4, {kInt, kInt, wide, kInt}) == std::vector<int>{0, 2, -1, -1});
}

TEST_CASE("aggregates and floating-point values as each ABI passes them") {
    const ArgumentShape pair{16, true};
    const ArgumentShape big{24, true};
    const ArgumentShape odd{12, true};
    CHECK(assign(EM_X86_64, 8, {pair, kLong}) == std::vector<int>{5, 1});
    CHECK(assign(EM_X86_64, 8, {big, kLong}) == std::vector<int>{-1, 5}); // in memory
    CHECK(assign(EM_AARCH64, 8, {big, kLong}) == std::vector<int>{0, 1}); // by reference
    CHECK(assign(EM_S390, 8, {odd, kLong}) == std::vector<int>{2, 3});    // by reference
    CHECK(assign(EM_S390, 8, {ArgumentShape{8, true}, kLong}) == std::vector<int>{2, 3});
    // regparm(3): an aggregate in the registers left while it fits, else it and what follows
    // on the stack (Debian's i386 kernel; tests/integration/regparm-aggregates.sh).
    CHECK(assign(EM_386, 4, {ArgumentShape{8, true}, kInt}) == std::vector<int>{0, 1});
    CHECK(assign(EM_386, 4, {odd, kInt}) == std::vector<int>{0, -1});
    CHECK(assign(EM_386, 4, {kInt, odd, kInt}) == std::vector<int>{0, -1, -1});
    CHECK(assign(EM_X86_64, 8, {kDouble, kLong}) == std::vector<int>{-1, 5});
    CHECK(assign(EM_PPC64, 8, {kDouble, kLong}) == std::vector<int>{-1, 4}); // takes a slot
    // n64: an aggregate in the next registers while they last; a double in $f12 takes $a0's slot.
    CHECK(assign(EM_MIPS, 8, {big, kLong}) == std::vector<int>{4, 7});
    CHECK(assign(EM_MIPS, 8, {kDouble, kLong}) == std::vector<int>{-1, 5});
    // o32: a struct as its bytes in $a0-$a3 while they last; a double takes an even pair too.
    CHECK(assign(EM_MIPS, 4, {ArgumentShape{8, true}, kInt}) == std::vector<int>{4, 6});
    CHECK(assign(EM_MIPS, 4, {kInt, odd, kInt}) == std::vector<int>{4, 5, -1});
    CHECK(assign(EM_MIPS, 4, {kInt, kDouble, kInt}) == std::vector<int>{4, -1, -1});
}

TEST_CASE(
    "an empty struct takes no register, but s390x's reference; an incomplete type ends the count") {
    const ArgumentShape empty{.size = 0, .isAggregate = true};
    const ArgumentShape incomplete{.size = 0, .isAggregate = true, .incomplete = true};
    CHECK(assign(EM_X86_64, 8, {kLong, empty, kLong}) == std::vector<int>{5, -1, 4});
    CHECK(assign(EM_AARCH64, 8, {kLong, empty, kLong}) == std::vector<int>{0, -1, 1});
    CHECK(assign(EM_PPC64, 8, {kLong, empty, kLong}) == std::vector<int>{3, -1, 4});
    CHECK(assign(EM_RISCV, 8, {kLong, empty, kLong}) == std::vector<int>{10, -1, 11});
    CHECK(assign(EM_386, 4, {kInt, empty, kInt}) == std::vector<int>{0, -1, 2});
    CHECK(assign(EM_ARM, 4, {kInt, empty, kInt}) == std::vector<int>{0, -1, 1});
    CHECK(assign(EM_MIPS, 4, {kInt, empty, kInt}) == std::vector<int>{4, -1, 5});
    CHECK(assign(EM_S390, 8, {kLong, empty, kLong}) == std::vector<int>{2, 3, 4});
    CHECK(assign(EM_X86_64, 8, {kLong, incomplete, kLong}) == std::vector<int>{5, -1, -1});
}

TEST_CASE("targets without a known convention are not checked") {
    CHECK(callingConventionOf(target(EM_MIPS, 4, EF_MIPS_ABI2)) == nullptr); // n32
    CHECK(callingConventionOf(target(EM_X86_64, 4)) == nullptr);             // x32
    CHECK(callingConventionOf(target(0, 8)) == nullptr);
}

TEST_CASE("the ELF header's flags say which 32-bit MIPS ABI an input has") {
    // An ELF32 header, as far as e_flags (offset 36), in either byte order.
    auto header = [](bool bigEndian, uint32_t flags) {
        std::vector<std::byte> bytes(52);
        const uint8_t ident[] = {
            0x7f,      'E', 'L', 'F', ELFCLASS32, uint8_t(bigEndian ? ELFDATA2MSB : ELFDATA2LSB),
            EV_CURRENT};
        for (size_t i = 0; i < sizeof ident; ++i)
            bytes[i] = std::byte{ident[i]};
        auto put = [&](size_t at, uint32_t value, size_t width) {
            for (size_t i = 0; i < width; ++i) {
                const size_t shift = 8 * (bigEndian ? width - 1 - i : i);
                bytes[at + i] = std::byte(value >> shift & 0xff);
            }
        };
        put(18, EM_MIPS, 2);
        put(36, flags, 4);
        return bytes;
    };
    // Debian's mipsel vmlinux: noreorder, o32, mips32r2.
    const auto o32 = elf::targetOf(header(false, 0x70001001));
    REQUIRE(o32);
    CHECK(o32->flags == 0x70001001);
    REQUIRE(callingConventionOf(*o32));
    CHECK(callingConventionOf(*o32)->name == "MIPS o32");
    const auto n32 = elf::targetOf(header(true, 0x60000020));
    REQUIRE(n32);
    CHECK(n32->flags == 0x60000020);
    CHECK(callingConventionOf(*n32) == nullptr);
}

TEST_CASE("registers BPF's model gives an argument that the convention does not") {
    // Each argument's count, asked before it is placed, as the mapper does.
    auto beyond = [](uint16_t machine, std::initializer_list<ArgumentShape> arguments) {
        const CallingConvention* cc = callingConventionOf(target(machine, 8));
        REQUIRE(cc);
        ArgumentRegisters registers(*cc);
        std::vector<size_t> out;
        for (const ArgumentShape& a : arguments) {
            out.push_back(registers.slotsBeyondConvention(a));
            registers.next(a);
        }
        return out;
    };
    const ArgumentShape big{24, true};
    const ArgumentShape longDouble{16, false, true};
    // A float in a register of its own, as many as its size takes; an aggregate in memory, one.
    CHECK(beyond(EM_X86_64, {kDouble, longDouble, big, kLong}) == std::vector<size_t>{1, 2, 1, 0});
    CHECK(beyond(EM_AARCH64, {kDouble, big, kLong}) ==
          std::vector<size_t>{1, 0, 0}); // by reference
    CHECK(beyond(EM_S390, {kDouble, kLong}) == std::vector<size_t>{1, 0});
    // 64-bit PowerPC and MIPS n64 give a float a general-purpose slot too.
    CHECK(beyond(EM_PPC64, {kDouble, kLong}) == std::vector<size_t>{0, 0});
    CHECK(beyond(EM_MIPS, {kDouble, kLong}) == std::vector<size_t>{0, 0});
    // Past the argument registers nothing is counted.
    CHECK(beyond(EM_X86_64, {kLong, kLong, kLong, kLong, kLong, kLong, kDouble}).back() == 0);
}
