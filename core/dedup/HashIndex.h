// Structural hash -> type ids, a multimap in one flat open-addressing table. Slots keep the whole
// hash, so a lookup touches one cache line, and merging can prefetch the slots it will read.
#pragma once

#include "btforge/ir/Kind.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace btforge::dedup::detail {

class HashIndex {
public:
    void insert(uint64_t hash, ir::TypeId id) {
        if ((used_ + 1) * 4 > slots_.size() * 3)
            grow();
        place({hash, id});
        ++used_;
    }

    // Calls visit(id) for each id inserted under `hash`, until it returns true.
    template <typename Visit> void forEach(uint64_t hash, Visit&& visit) const {
        if (slots_.empty())
            return;
        const size_t mask = slots_.size() - 1;
        for (size_t i = hash & mask; slots_[i].id != ir::kVoidType; i = (i + 1) & mask) {
            if (slots_[i].hash == hash && visit(slots_[i].id))
                return;
        }
    }

    void prefetch(uint64_t hash) const {
        if (!slots_.empty())
            __builtin_prefetch(&slots_[hash & (slots_.size() - 1)]);
    }

    size_t memoryUsage() const { return slots_.capacity() * sizeof(Slot); }

private:
    struct Slot {
        uint64_t hash = 0;
        ir::TypeId id = ir::kVoidType; // void: empty (void is never indexed)
    };

    void place(Slot slot) {
        const size_t mask = slots_.size() - 1;
        size_t i = slot.hash & mask;
        while (slots_[i].id != ir::kVoidType)
            i = (i + 1) & mask;
        slots_[i] = slot;
    }

    void grow() {
        std::vector<Slot> old = std::move(slots_);
        slots_.assign(std::max<size_t>(1024, old.size() * 2), Slot{});
        for (const Slot& slot : old) {
            if (slot.id != ir::kVoidType)
                place(slot);
        }
    }

    std::vector<Slot> slots_;
    size_t used_ = 0;
};

} // namespace btforge::dedup::detail
