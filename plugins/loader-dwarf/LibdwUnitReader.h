// Reads DWARF units with elfutils: libdwfl opens the file (applying relocations to ET_REL objects
// such as kernel modules, decompressing debug sections, finding separate debug files), libdw
// decodes the DIEs. One pass per DIE over its attributes (dwarf_getattrs), and subtrees that
// cannot hold types (inlined instances, call sites) are skipped whole.
#pragma once

#include "btforge/dwarf/UnitReader.h"

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <memory>
#include <string>
#include <vector>

namespace btforge::dwarf {

class LibdwUnitReader final : public UnitReader {
public:
    static Expected<std::unique_ptr<LibdwUnitReader>> open(const std::string& path);
    ~LibdwUnitReader() override;

    size_t unitCount() const override { return units_.size(); }
    bool isPartialUnit(size_t index) const override;
    Expected<void> readUnit(size_t index, UnitDies& out) override;
    std::optional<SectionOffset> locate(uint64_t dwarfAddress) const override;

private:
    struct Unit {
        Dwarf_Die die;
        Dwarf_Off offset;
        uint16_t version;
        uint8_t unitType;
        uint8_t addressSize;
    };

    LibdwUnitReader(std::string path, Dwfl* dwfl, Dwfl_Module* module, Dwarf* dwarf,
                    Dwarf_Addr bias)
        : path_(std::move(path)), dwfl_(dwfl), module_(module), dwarf_(dwarf), bias_(bias) {}

    std::string path_;
    Dwfl* dwfl_;
    Dwfl_Module* module_;
    Dwarf* dwarf_;
    Dwarf_Addr bias_; // where libdwfl placed the file; DWARF addresses do not include it
    std::vector<Unit> units_;
};

} // namespace btforge::dwarf
