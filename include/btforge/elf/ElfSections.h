// Section access for ELF inputs (vmlinux, .o, .ko), through elfutils libelf.
#pragma once

#include "btforge/Export.h"
#include "btforge/support/Error.h"

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace btforge::elf {

BTFORGE_API bool looksLikeElf(std::span<const std::byte> head);

// The bytes of the named section of an ELF image held in memory, as they lie in the image (a
// compressed section stays compressed; SHT_NOBITS: none), or nullopt if it has none. Errors name
// the file and what is malformed.
BTFORGE_API Expected<std::optional<std::span<const std::byte>>>
sectionView(std::span<const std::byte> image, const std::string& fileName,
            const std::string& sectionName);

// The same bytes, copied.
BTFORGE_API Expected<std::optional<std::vector<std::byte>>>
readSection(std::span<const std::byte> image, const std::string& fileName,
            const std::string& sectionName);

// True when the ELF image has a section of that name (false for anything that is not ELF).
BTFORGE_API bool hasSection(std::span<const std::byte> image, const std::string& sectionName);

} // namespace btforge::elf
