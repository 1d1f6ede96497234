// Relocates the DWARF sections of a relocatable object (a kernel module) in place. libdwfl does
// the same at about 470 instructions a relocation (a section header read and a byte-order
// conversion each); nearly all of a module's relocations are the machine's plain absolute types
// (and RISC-V's label differences), which this applies at a few instructions each, as libdwfl's
// backends would. Anything else (another type, an undefined or special symbol, a compressed
// section, a bad offset) is left to libdwfl: the caller then reopens the file through it, so a
// file relocated halfway here is never read.
#pragma once

#include <gelf.h>

namespace btforge::dwarf {

// Lays the allocated sections of `elf` (ET_REL, opened ELF_C_READ_MMAP_PRIVATE so that writes
// stay private) out one after another, their addresses written into their headers (which DWARF
// addresses then refer to), and applies the relocations of the DWARF sections libdw reads for the
// rules (not .debug_line nor .debug_frame). False when libdwfl must relocate.
bool relocateDebugSections(Elf* elf);

} // namespace btforge::dwarf
