// The machine an input was built for, as its ELF header says. Every rule that depends on the
// target reads it from here (argument registers, how DWARF 2-4 number bitfield bits, pointer
// size, the byte order BTF is written in); nothing assumes the host's or x86-64's.
#pragma once

#include "btforge/Export.h"
#include "btforge/ir/TypeGraph.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace btforge::elf {

struct Target {
    uint16_t machine = 0;    // e_machine (EM_*)
    uint8_t pointerSize = 8; // 4 for ELFCLASS32, 8 for ELFCLASS64
    ir::ByteOrder byteOrder = ir::ByteOrder::Little;
    uint32_t flags = 0; // e_flags: which ABI of the machine (MIPS o32 or n32, for one)

    bool isBigEndian() const { return byteOrder == ir::ByteOrder::Big; }
    // "aarch64", "s390", "EM 1234" for a machine without a name here.
    std::string machineName() const;
    // "aarch64, 64-bit, little-endian": for messages.
    std::string describe() const;
};

// The target of an ELF image, from its identification bytes and e_machine alone (nullopt when
// the image is not ELF or its class or data encoding is invalid).
BTFORGE_API std::optional<Target> targetOf(std::span<const std::byte> image);

} // namespace btforge::elf
