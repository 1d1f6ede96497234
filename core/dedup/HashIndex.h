// Structural hash -> type ids, a multimap in one flat open-addressing table of 8-byte slots. A
// slot keeps only the hash's top 32 bits (which also place it); callers confirm the full hash.
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
        place({tagOf(hash), id});
        ++used_;
    }

    // Calls visit(id) for each id inserted under a hash with the same tag, until it returns true.
    template <typename Visit> void forEach(uint64_t hash, Visit&& visit) const {
        if (slots_.empty())
            return;
        const uint32_t tag = tagOf(hash);
        const size_t mask = slots_.size() - 1;
        for (size_t i = tag & mask; slots_[i].id != ir::kVoidType; i = (i + 1) & mask) {
            if (slots_[i].tag == tag && visit(slots_[i].id))
                return;
        }
    }

    size_t memoryUsage() const { return slots_.capacity() * sizeof(Slot); }

private:
    struct Slot {
        uint32_t tag = 0;
        ir::TypeId id = ir::kVoidType; // void: empty (void is never indexed)
    };
    static uint32_t tagOf(uint64_t hash) { return static_cast<uint32_t>(hash >> 32); }

    void place(Slot slot) {
        const size_t mask = slots_.size() - 1;
        size_t i = slot.tag & mask;
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
