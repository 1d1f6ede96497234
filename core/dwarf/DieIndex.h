// DIE offsets to their index in a unit, for resolving references while the unit is mapped.
#pragma once

#include "btforge/dwarf/UnitDies.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace btforge::dwarf {

// DIE offsets to their index in the unit. DIEs come in offset order, so offsets are split into
// about as many equal ranges as there are DIEs, each knowing its first DIE: building is one
// sequential pass, and a reference resolves by reading a range's start and a DIE or two. Where
// offsets are far from evenly spread (type and partial units mapped together, whose keys lie in
// different sections), a hash table takes over.
class DieIndex {
public:
    explicit DieIndex(const std::vector<Die>& dies) {
        if (dies.empty())
            return;
        offsets_.reserve(dies.size());
        bool ascending = true;
        for (const Die& die : dies) {
            ascending = ascending && (offsets_.empty() || offsets_.back() < die.offset);
            offsets_.push_back(die.offset);
        }
        if (!ascending || !buildRanges())
            buildHash();
    }

    uint32_t find(DieOffset offset) const {
        if (!slots_.empty()) {
            for (size_t s = home(offset);; s = (s + 1) & mask_) {
                const Slot& slot = slots_[s];
                if (slot.offset == offset || slot.index == kNoIndex)
                    return slot.index;
            }
        }
        if (offsets_.empty() || offset < offsets_.front() || offset > offsets_.back())
            return kNoIndex;
        const size_t range = (offset - offsets_.front()) >> shift_;
        for (uint32_t i = rangeStarts_[range]; i < rangeStarts_[range + 1]; ++i) {
            if (offsets_[i] == offset)
                return i;
        }
        return kNoIndex;
    }

private:
    // A range holding more DIEs than this means the offsets are not spread evenly.
    static constexpr uint32_t kMaxPerRange = 64;

    bool buildRanges() {
        const uint64_t span = offsets_.back() - offsets_.front();
        while ((span >> shift_) >= offsets_.size())
            ++shift_;
        const size_t ranges = static_cast<size_t>(span >> shift_) + 1;
        rangeStarts_.resize(ranges + 1);
        size_t range = 0;
        for (uint32_t i = 0; i < offsets_.size(); ++i) {
            const size_t own = (offsets_[i] - offsets_.front()) >> shift_;
            while (range <= own)
                rangeStarts_[range++] = i;
        }
        while (range <= ranges)
            rangeStarts_[range++] = static_cast<uint32_t>(offsets_.size());
        for (size_t r = 0; r < ranges; ++r) {
            if (rangeStarts_[r + 1] - rangeStarts_[r] > kMaxPerRange)
                return false;
        }
        return true;
    }

    void buildHash() {
        size_t size = 16;
        while (size < offsets_.size() * 2)
            size *= 2;
        slots_.assign(size, Slot{kNoDie, kNoIndex});
        mask_ = size - 1;
        for (uint32_t i = 0; i < offsets_.size(); ++i) {
            size_t s = home(offsets_[i]);
            while (slots_[s].index != kNoIndex)
                s = (s + 1) & mask_;
            slots_[s] = {offsets_[i], i};
        }
    }

    struct Slot {
        DieOffset offset;
        uint32_t index;
    };
    size_t home(DieOffset offset) const {
        return static_cast<size_t>((offset * 0x9e3779b97f4a7c15ull) >> 32) & mask_;
    }

    std::vector<DieOffset> offsets_; // by DIE index
    unsigned shift_ = 0;             // a range covers 2^shift_ offsets
    std::vector<uint32_t> rangeStarts_;
    std::vector<Slot> slots_; // only when the ranges would not do
    size_t mask_ = 0;
};

} // namespace btforge::dwarf
