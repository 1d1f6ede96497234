// Reads DWARF units with elfutils. Executables and shared objects with their DWARF inside are
// opened directly, read-only mapped, so the pages of a unit already read can be given back.
// Relocatable objects (kernel modules) are opened directly too, privately writable, when all
// relocations of the DWARF sections read are plain absolute ones DebugRelocations.h applies;
// everything else goes through libdwfl (never separate debug files). The units of a
// .gnu_debugaltlink file (dwz -m) are read as partial units of the input. libdw reads one section
// of a name, and none in a COMDAT group (SHF_GROUP), which is where gcc puts each type unit of a
// relocatable object: for such files libdw reads a copy of the DWARF sections, relocated, with the
// sections of each name joined (DwarfSections.h, DwarfSection). libdw finds the units and sections;
// the DIEs are read here, in one pass over each unit's bytes with its abbreviations decoded once
// (Abbreviations.h), attribute values of the common forms read directly and the others through
// libdw. Subtrees that cannot hold types (inlined instances, call sites) are skipped whole.
//
// Three files: LibdwUnitReader.cpp opens the input and finds its units and sections,
// LibdwUnitWalk.cpp walks a unit's DIEs, LibdwAttributes.cpp reads their attribute values.
#pragma once

#include "AltFile.h"

#include "btforge/dwarf/DwarfSections.h"
#include "btforge/dwarf/SectionAddresses.h"
#include "btforge/dwarf/UnitReader.h"
#include "btforge/support/MappedFile.h"

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include <atomic>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace btforge::dwarf {

class LibdwUnitReader final : public UnitReader {
public:
    // Reads `file` through a descriptor of its own, and the alt file `altPath` names (--dwarf-alt)
    // or else the one AltFile finds; never another path.
    static Expected<std::unique_ptr<LibdwUnitReader>> open(std::shared_ptr<MappedFile> file,
                                                           const std::string& altPath);
    ~LibdwUnitReader() override;

    size_t unitCount() const override { return units_.size(); }
    uint64_t unitSize(size_t index) const override {
        return units_[index].end - units_[index].headerOffset;
    }
    bool isPartialUnit(size_t index) const override;
    Expected<void> readUnit(size_t index, UnitDies& out) override;
    void releaseUnit(size_t index) override;
    std::optional<SectionOffset> locate(uint64_t dwarfAddress) const override;

private:
    struct Unit {
        Dwarf_Die die;
        Dwarf_Off offset;       // of the unit DIE
        Dwarf_Off headerOffset; // of the unit header: where the unit's bytes start
        Dwarf_Off end;          // where the next unit's header starts
        uint16_t version;
        uint8_t unitType;
        uint8_t addressSize;
        uint8_t offsetSize;
        DieOffset bias; // added to its DIE offsets: DIEs outside .debug_info get their own range
        // The sections of the file it is in (this one or the alt file), as libdw has them
        // (decompressed, relocated).
        const uint8_t* section;                 // .debug_info or .debug_types
        std::span<const uint8_t> abbreviations; // .debug_abbrev
        Dwarf_Off abbreviationsOffset;          // of its table
        std::span<const uint8_t> strings;       // .debug_str
    };

    explicit LibdwUnitReader(std::shared_ptr<MappedFile> input)
        : path_(input->path()), input_(std::move(input)) {}
    // What the section headers say, before libdw reads anything: repeated or grouped sections,
    // compression types libelf cannot decompress.
    Expected<void> surveySections();
    // Executables, shared objects, and relocatable objects DebugRelocations.h relocates.
    bool openDirect();
    Expected<void> openThroughDwfl();
    // Relocations of DWARF sections libdwfl could not apply (types its backend for the machine
    // does not know) where the offsets into DWARF sections they make would be read wrong.
    Expected<void> checkRelocated(Elf* elf) const;
    // Opens dwarf_ on a copy of the DWARF sections of `elf` with those of one name joined.
    Expected<void> joinSections(Elf* elf);
    Expected<void> enumerateUnits(const std::string& altPath);
    void findLocationSections();
    // Appends the units of `dwarf`, this file's DWARF or its alt file's.
    Expected<void> addUnits(Dwarf* dwarf);
    // Gives back the resident pages of .debug_info[begin, end) (direct mode only).
    void dropPages(uint64_t begin, uint64_t end) const;
    // Gives back the resident pages of [begin, end) if it is inside the file mapping.
    void giveBackMapped(const uint8_t* begin, const uint8_t* end) const;
    Expected<void> decodeUnit(size_t index, UnitDies& out);

    std::string path_;
    std::shared_ptr<MappedFile> input_;
    int fd_ = -1;
    Elf* elf_ = nullptr;   // direct mode
    Dwfl* dwfl_ = nullptr; // libdwfl mode
    Dwfl_Module* module_ = nullptr;
    Dwarf* dwarf_ = nullptr;
    // Some DWARF section is in a COMDAT group, or shares its name with another: libdw reads a
    // joined copy (surveySections).
    bool join_ = false;
    // The joined copy (joinSections): an anonymous file, its ELF handle, libdw's reading of it.
    int joinedFd_ = -1;
    Elf* joinedElf_ = nullptr;
    Dwarf* joined_ = nullptr;
    SectionAddresses sections_; // the allocated sections at their addresses, for locate()
    // Direct mode: .debug_info inside the read-only file mapping, whose pages may be dropped.
    const char* info_ = nullptr;
    size_t infoSize_ = 0;
    const char* file_ = nullptr; // direct mode: the whole file mapping
    size_t fileSize_ = 0;
    std::atomic<size_t> unitsRead_{0};
    std::atomic<uint64_t> bytesRead_{0}; // of the units read, for giving the mapping back
    // How much of the file reading may bring in before it is given back (readUnit, addUnits).
    static constexpr uint64_t kBytesBetweenSweeps = 8 << 20;
    std::vector<Unit> units_;
    std::unique_ptr<AltFile> alt_; // ended after dwarf_, which refers to it
    bool bigEndian_ = false;       // the file's byte order
    // Location list sections, decoded here rather than by libdw (see LocationDecoder.h).
    std::span<const uint8_t> loclists_;
    std::span<const uint8_t> loc_;
};

} // namespace btforge::dwarf
