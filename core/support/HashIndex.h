// 64-bit hash -> type ids, a multimap in one flat open-addressing table (dedup's structural
// hashes, names and shapes; prototypes). A slot keeps the upper half of the hash, which also
// chooses the slot, and the id: 8 bytes, so the table of the ~800,000 provisional types of a
// kernel stays small and a lookup touches one cache line. Ids inserted under another hash with
// the same upper half come back too: they are only candidates, which callers check exactly. Ids
// of one hash come back in the order they were inserted.
#pragma once

#include "support/Prefetch.h"

#include "btforge/ir/Kind.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace btforge::support {

class HashIndex {
public:
    HashIndex() : slots_(1024), table_(slots_) {} // never empty, so lookups need no test for it
    // table_ views slots_ (moving keeps the buffer) or a base image's slots.
    HashIndex(HashIndex&&) noexcept = default;
    HashIndex& operator=(HashIndex&&) noexcept = default;
    HashIndex(const HashIndex&) = delete;
    HashIndex& operator=(const HashIndex&) = delete;

    void insert(uint64_t hash, ir::TypeId id) {
        if ((used_ + 1) * 4 > slots_.size() * 3)
            grow();
        place({tagOf(hash), id});
        ++used_;
    }

    // Inserts `id` unless an id of the same full hash is there (hashOf: an id's full hash);
    // returns whether it did. Same-tag ids are on its probe path, so this costs what insert does.
    template <typename HashOf> bool insertUnique(uint64_t hash, ir::TypeId id, HashOf&& hashOf) {
        if ((used_ + 1) * 4 > slots_.size() * 3)
            grow();
        const uint32_t tag = tagOf(hash);
        const size_t mask = slots_.size() - 1;
        size_t i = tag & mask;
        for (; slots_[i].id != ir::kVoidType; i = (i + 1) & mask) {
            if (slots_[i].tag == tag && hashOf(slots_[i].id) == hash)
                return false;
        }
        slots_[i] = {tag, id};
        ++used_;
        return true;
    }

    // Room for `more` insertions without growing on the way (a base's types, all at once).
    void reserve(size_t more) {
        size_t size = slots_.size();
        while ((used_ + more) * 4 > size * 3)
            size *= 2;
        if (size != slots_.size())
            rehash(size);
    }

    // Calls visit(id) for each id inserted under `hash` (or a hash with its upper half), until
    // it returns true.
    template <typename Visit> void forEach(uint64_t hash, Visit&& visit) const {
        const uint32_t tag = tagOf(hash);
        const size_t mask = table_.size() - 1;
        for (size_t i = tag & mask; table_[i].id != ir::kVoidType; i = (i + 1) & mask) {
            if (table_[i].tag == tag && visit(table_[i].id))
                return;
        }
    }

    size_t memoryUsage() const { return slots_.capacity() * sizeof(Slot); }

    // Base images (ir/BaseImage.h). An index read from one is used where it lies, read-only.
    template <typename Writer> void writeTo(Writer& out) const {
        out.value(uint64_t{used_});
        out.array(table_);
    }
    template <typename Reader> void readInPlace(Reader& in) {
        used_ = in.template value<uint64_t>();
        slots_.clear();
        table_ = in.template array<Slot>();
    }

    void prefetch(uint64_t hash) const {
        btforge::prefetch(&table_[tagOf(hash) & (table_.size() - 1)]);
    }

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

    void grow() { rehash(slots_.size() * 2); }

    void rehash(size_t size) {
        std::vector<Slot> old = std::move(slots_);
        slots_.assign(size, Slot{});
        table_ = slots_;
        for (const Slot& slot : old) {
            if (slot.id != ir::kVoidType)
                place(slot);
        }
    }

    std::vector<Slot> slots_;
    std::span<const Slot> table_;
    size_t used_ = 0;
};

} // namespace btforge::support
