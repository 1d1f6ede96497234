// The allocated sections of an input by address (SectionAddresses.h).
#include "btforge/dwarf/SectionAddresses.h"

#include <algorithm>

namespace btforge::dwarf {

void SectionAddresses::add(uint64_t address, uint64_t size, uint32_t index) {
    sections_.push_back({address, size, index});
}

void SectionAddresses::sort() {
    std::sort(sections_.begin(), sections_.end(),
              [](const Section& a, const Section& b) { return a.address < b.address; });
}

std::optional<SectionOffset> SectionAddresses::locate(uint64_t address) const {
    auto it = std::upper_bound(sections_.begin(), sections_.end(), address,
                               [](uint64_t a, const Section& s) { return a < s.address; });
    while (it != sections_.begin()) {
        --it;
        if (address - it->address < it->size)
            return SectionOffset{it->index, address - it->address};
    }
    return std::nullopt;
}

} // namespace btforge::dwarf
