// The allocated sections of an ELF input by address: how a reader answers UnitReader::locate
// (part of the DWARF reader contract).
#pragma once

#include "btforge/Export.h"
#include "btforge/dwarf/UnitReader.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace btforge::dwarf {

// The allocated sections of an ELF input by address, to answer UnitReader::locate.
class BTFORGE_API SectionAddresses {
public:
    void add(uint64_t address, uint64_t size, uint32_t index);
    void sort();
    // Sections may overlap (.tbss); the last one starting at or below the address that contains
    // it wins.
    std::optional<SectionOffset> locate(uint64_t address) const;

private:
    struct Section {
        uint64_t address;
        uint64_t size;
        uint32_t index;
    };
    std::vector<Section> sections_;
};

} // namespace btforge::dwarf
