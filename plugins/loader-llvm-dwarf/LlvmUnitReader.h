// Reads DWARF units with LLVM's DebugInfo library (DWARFContext), the other reader of the two
// (see docs/readers.md). LLVM maps the file, decompresses debug sections and, for relocatable
// objects (kernel modules, `ld -r` outputs), resolves the relocations of the debug sections into
// section-relative addresses; this reader gives each allocated section of such an object an
// address range of its own, so that one number still says where an address lies.
//
// The DWARFContext is created thread-safe (its shared state is locked); a unit's DIEs are
// extracted by the one worker that reads the unit, into that worker's own vector, after the
// abbreviations of every unit were parsed on the opening thread (LLVM parses them lazily into
// state all units share).
#pragma once

#include "btforge/dwarf/DieKeys.h"
#include "btforge/dwarf/SectionAddresses.h"
#include "btforge/dwarf/UnitReader.h"
#include "btforge/support/MappedFile.h"

#include <llvm/DebugInfo/DWARF/DWARFContext.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/MemoryBuffer.h>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace btforge::dwarf {

class LlvmUnitReader final : public UnitReader {
public:
    // Reads the bytes of `file`, which stays alive as long as the reader.
    static Expected<std::unique_ptr<LlvmUnitReader>> open(std::shared_ptr<MappedFile> file);

    size_t unitCount() const override { return units_.size(); }
    uint64_t unitSize(size_t index) const override {
        return units_[index].unit->getNextUnitOffset() - units_[index].unit->getOffset();
    }
    bool isPartialUnit(size_t index) const override { return units_[index].partial; }
    Expected<void> readUnit(size_t index, UnitDies& out) override;
    void releaseUnit(size_t index) override;
    std::optional<SectionOffset> locate(uint64_t dwarfAddress) const override {
        return sections_.locate(dwarfAddress);
    }

    // The address UnitDies holds for an address LLVM gives as section and offset.
    uint64_t address(llvm::object::SectionedAddress address) const;
    // The type DIE a DW_FORM_ref_sig8 signature names, or kNoDie.
    DieOffset typeBySignature(uint64_t signature) const;
    const llvm::DWARFObject& dwarfObject() const { return context_->getDWARFObj(); }

private:
    struct Unit {
        llvm::DWARFUnit* unit;
        // Added to its offsets, which LLVM counts in its own section: kTypesBias for
        // .debug_types, plus where its section starts among those of its name laid end to end.
        DieOffset bias;
        bool partial;
    };

    explicit LlvmUnitReader(std::shared_ptr<MappedFile> file)
        : path_(file->path()), file_(std::move(file)) {}
    Expected<void> openObject();
    Expected<void> enumerateUnits();
    void layOutSections();
    // .debug_info[begin, end) is read: its pages need not stay resident.
    void dropInfoPages(uint64_t begin, uint64_t end) const;

    std::string path_;
    std::shared_ptr<MappedFile> file_;
    // A copy of the file with its .zdebug_ sections inflated, when it has any: object_ reads it.
    std::unique_ptr<llvm::WritableMemoryBuffer> inflated_;
    std::unique_ptr<llvm::object::ObjectFile> object_;
    std::unique_ptr<llvm::DWARFContext> context_;
    std::vector<Unit> units_;
    std::unordered_map<uint64_t, DieOffset> typeUnits_;
    SectionAddresses sections_;
    // The first .debug_info section where it is the file mapping itself (not decompressed):
    // pages of its units may be dropped.
    std::span<const std::byte> info_;
    const llvm::DWARFSection* infoSection_ = nullptr;
    // Relocatable objects: by section index, what moves LLVM's address of a place in that
    // section (its sh_addr plus the offset) to this reader's layout (wrapping arithmetic).
    std::vector<uint64_t> sectionBase_;
};

} // namespace btforge::dwarf
