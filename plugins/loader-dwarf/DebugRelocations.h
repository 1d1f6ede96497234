// Relocates the DWARF sections of a relocatable object (a kernel module) in place. libdwfl does
// the same at about 470 instructions a relocation (a section header read and a byte-order
// conversion each); nearly all of a module's relocations are the machine's plain absolute types
// (and RISC-V's label differences), which this applies at a few instructions each, as libdwfl's
// backends would. Anything else (another type, an undefined or special symbol, a compressed
// section, a bad offset) is left to libdwfl: the caller then reopens the file through it, so a
// file relocated halfway here is never read.
#pragma once

#include <gelf.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace btforge::dwarf {

// Lays the allocated sections of `elf` (ET_REL, opened ELF_C_READ_MMAP_PRIVATE so that writes
// stay private) out one after another and applies the relocations of the DWARF sections libdw
// reads for the rules (not .debug_line nor .debug_frame). Returns each section's address in that
// layout, by section index (0 for those not allocated), which DWARF addresses now refer to; nullopt
// when libdwfl must relocate.
std::optional<std::vector<uint64_t>> relocateDebugSections(Elf* elf);

} // namespace btforge::dwarf
