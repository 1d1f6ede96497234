// Type ids -> 32-bit values, for a few ids of a large space: a module's run meets a few thousand
// of vmlinux's 95,000 types, scattered, so a table by id (372 KB) had every page faulted in for
// them. A flat open-addressing table, at most half full, whose size follows what it holds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace btforge::support {

class SparseIdMap {
public:
    static constexpr uint32_t kAbsent = UINT32_MAX; // also the one id it cannot hold

    SparseIdMap() : slots_(kFirstSize, Slot{kAbsent, 0}) {}

    // The value of `id`, or kAbsent.
    uint32_t find(uint32_t id) const {
        for (size_t i = slotOf(id);; i = (i + 1) & (slots_.size() - 1)) {
            if (slots_[i].id == id)
                return slots_[i].value;
            if (slots_[i].id == kAbsent)
                return kAbsent;
        }
    }
    // The value of `id`, set to `value` first if it had none; and whether it was set.
    std::pair<uint32_t, bool> emplace(uint32_t id, uint32_t value) {
        if ((used_ + 1) * 2 > slots_.size())
            grow();
        size_t i = slotOf(id);
        for (; slots_[i].id != kAbsent; i = (i + 1) & (slots_.size() - 1)) {
            if (slots_[i].id == id)
                return {slots_[i].value, false};
        }
        slots_[i] = {id, value};
        ++used_;
        return {value, true};
    }

    size_t size() const { return used_; }
    size_t memoryUsage() const { return slots_.capacity() * sizeof(Slot); }

private:
    struct Slot {
        uint32_t id;
        uint32_t value;
    };
    static constexpr size_t kFirstSize = 64;

    // Fibonacci hashing: consecutive ids land far apart.
    size_t slotOf(uint32_t id) const {
        return static_cast<size_t>((id * 0x9e3779b97f4a7c15ull) >> (64 - bits_));
    }
    void grow() {
        std::vector<Slot> old(slots_.size() * 2, Slot{kAbsent, 0});
        old.swap(slots_);
        ++bits_;
        for (const Slot& s : old) {
            if (s.id == kAbsent)
                continue;
            size_t i = slotOf(s.id);
            while (slots_[i].id != kAbsent)
                i = (i + 1) & (slots_.size() - 1);
            slots_[i] = s;
        }
    }

    std::vector<Slot> slots_;
    unsigned bits_ = 6; // log2 of slots_.size()
    size_t used_ = 0;
};

} // namespace btforge::support
