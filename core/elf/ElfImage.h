// An ELF image held in memory, opened read-only through libelf (shared by section reading and
// section writing).
#pragma once

#include "btforge/support/Error.h"

#include <gelf.h>
#include <libelf.h>

#include <cstddef>
#include <memory>
#include <span>
#include <string>

namespace btforge::elf::detail {

struct ElfCloser {
    void operator()(Elf* e) const { elf_end(e); }
};
using ElfHandle = std::unique_ptr<Elf, ElfCloser>;

inline ElfHandle openImage(std::span<const std::byte> image) {
    elf_version(EV_CURRENT);
    // libelf wants a mutable pointer but only reads an image opened this way.
    return ElfHandle(
        elf_memory(const_cast<char*>(reinterpret_cast<const char*>(image.data())), image.size()));
}

inline Error elfError(const std::string& fileName, const std::string& what) {
    return Error::badInput(fileName + ": " + what + ": " + elf_errmsg(-1));
}

} // namespace btforge::elf::detail
