// A copy of an ELF file with one section's contents added or replaced (the .BTF a BTF encoder
// writes into vmlinux and modules), every other section's bytes and file offsets unchanged.
//
// Layout: the input's bytes are copied as they are; the new contents and a new section header
// table follow, and a copy of the section name table when the name must be added to it (or when
// it lay after the old contents). Old copies become unreferenced; when they are all the input
// ends with (the usual layout, and always so in a file written this way), they are left out, so
// rewriting a file again does not grow it. Anything else after them (a module signature) is
// kept; an old copy elsewhere stays as unreferenced bytes. No other section moves.
#pragma once

#include "btforge/support/Error.h"

#include <cstddef>
#include <ostream>
#include <span>
#include <string>

namespace btforge::elf {

// Writes `image` with section `name` holding `contents` to `out`: an existing section of that
// name is replaced in place in the header table (same index, type PROGBITS); otherwise a section
// is added at the end of the table, not allocated, as objcopy --add-section does. A section that
// is part of the loaded image (SHF_ALLOC, not empty) is refused: its size and address are fixed
// by the link. An empty allocated one (what ld.lld leaves of the kernel's .BTF output section) is
// replaced by an unallocated section, as if it had been added.
// ELF32 and ELF64 of either byte order, with more than 65279 sections too (SHN_XINDEX).
Expected<void> writeWithSection(std::span<const std::byte> image, const std::string& fileName,
                                const std::string& name, std::span<const std::byte> contents,
                                std::ostream& out);

// The checks writeWithSection makes before writing anything, alone: to refuse an input before
// the work of converting it.
Expected<void> checkSectionWritable(std::span<const std::byte> image, const std::string& fileName,
                                    const std::string& name);

} // namespace btforge::elf
