// Merged types by their exact hash (ExactHash.h): how a merger without a base finds the merged
// type a unit type is, with one lookup instead of a walk.
#pragma once

#include "../support/Prefetch.h"
#include "dedup/RefGraph.h"

#include "btforge/ir/Kind.h"

#include <algorithm>
#include <vector>

namespace btforge::dedup {

class ExactIndex {
public:
    // The merged type of that hash, or void.
    ir::TypeId find(const LabelHash& hash) const {
        if (slots_.empty())
            return ir::kVoidType;
        const size_t mask = slots_.size() - 1;
        for (size_t i = home(hash);; i = (i + 1) & mask) {
            if (slots_[i].id == ir::kVoidType || slots_[i].hash == hash)
                return slots_[i].id;
        }
    }
    // A slot is a cache miss: a caller that knows its next lookups starts them early.
    void prefetch(const LabelHash& hash) const {
        if (!slots_.empty())
            btforge::prefetch(&slots_[home(hash)]);
    }
    // `hash` must be new.
    void insert(const LabelHash& hash, ir::TypeId id) {
        if ((used_ + 1) * 4 > slots_.size() * 3)
            grow();
        place({hash, id});
        ++used_;
    }
    size_t memoryUsage() const { return slots_.capacity() * sizeof(Slot); }

private:
    struct Slot {
        LabelHash hash;
        ir::TypeId id = ir::kVoidType; // void: empty (merged ids are never void)
    };
    size_t home(const LabelHash& hash) const { return hash.first & (slots_.size() - 1); }
    void place(const Slot& slot) {
        const size_t mask = slots_.size() - 1;
        size_t i = home(slot.hash);
        while (slots_[i].id != ir::kVoidType)
            i = (i + 1) & mask;
        slots_[i] = slot;
    }
    void grow() {
        std::vector<Slot> old(std::max<size_t>(1024, slots_.size() * 2));
        old.swap(slots_);
        for (const Slot& slot : old) {
            if (slot.id != ir::kVoidType)
                place(slot);
        }
    }

    std::vector<Slot> slots_;
    size_t used_ = 0;
};

} // namespace btforge::dedup
