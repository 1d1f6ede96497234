#include "PartitionRefinement.h"

#include "TypeLabel.h"

#include <algorithm>
#include <bit>

namespace btforge::dedup::detail {
namespace {

size_t tableSizeFor(size_t entries) {
    return std::bit_ceil(std::max<size_t>(16, entries * 2));
}

} // namespace

KeyNumbering::KeyNumbering(size_t expectedKeys) : slots_(tableSizeFor(expectedKeys)) {}

uint32_t KeyNumbering::number(uint64_t key) {
    if ((keys_ + 1) * 2 > slots_.size())
        grow();
    size_t mask = slots_.size() - 1;
    for (size_t i = combine(key, 0) & mask;; i = (i + 1) & mask) {
        Slot& slot = slots_[i];
        if (slot.number == kEmpty) {
            slot = {key, count_++};
            ++keys_;
            return slot.number;
        }
        if (slot.key == key)
            return slot.number;
    }
}

void KeyNumbering::grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.size() * 2, Slot{});
    size_t mask = slots_.size() - 1;
    for (const Slot& slot : old) {
        if (slot.number == kEmpty)
            continue;
        size_t i = combine(slot.key, 0) & mask;
        while (slots_[i].number != kEmpty)
            i = (i + 1) & mask;
        slots_[i] = slot;
    }
}

void Aliases::add(uint32_t node, std::span<const uint32_t> candidates) {
    nodes_.push_back(node);
    candidates_.insert(candidates_.end(), candidates.begin(), candidates.end());
    starts_.push_back(static_cast<uint32_t>(candidates_.size()));
}

uint32_t refinePartition(const RefGraph& graph, std::vector<uint32_t>& block,
                         const Aliases& aliases) {
    const uint32_t n = graph.size();
    std::vector<uint32_t> size(n);
    std::vector<uint32_t> next(n);
    std::vector<uint8_t> aliasing(n, 0); // 1: an alias still following its candidates
    // Signature -> first node with it (its new block is next[member]). Slots keep the upper half
    // of the signature, the lower half chose the slot: 8 bytes a slot, at most 3/4 full.
    struct Entry {
        uint32_t signature = 0;
        uint32_t member = UINT32_MAX; // UINT32_MAX: empty slot
    };
    std::vector<Entry> table;
    for (size_t i = 0; i < aliases.size(); ++i)
        aliasing[aliases.node(i)] = 1;
    // Puts each alias in its candidates' common block in `blocks`, or leaves it for good in a
    // block of its own (numbered from `count` on). Returns the new block count.
    auto followCandidates = [&](std::vector<uint32_t>& blocks, uint32_t count) {
        for (size_t i = 0; i < aliases.size(); ++i) {
            const uint32_t alias = aliases.node(i);
            if (!aliasing[alias])
                continue;
            std::span<const uint32_t> candidates = aliases.candidates(i);
            const uint32_t common = blocks[candidates[0]];
            if (std::all_of(candidates.begin(), candidates.end(),
                            [&](uint32_t c) { return blocks[c] == common; })) {
                blocks[alias] = common;
            } else {
                aliasing[alias] = 0;
                blocks[alias] = count++;
            }
        }
        return count;
    };
    auto countSizes = [&] {
        std::fill(size.begin(), size.end(), 0);
        uint32_t blocks = 0;
        for (uint32_t node = 0; node < n; ++node) {
            if (!aliasing[node])
                blocks += size[block[node]]++ == 0;
        }
        return blocks;
    };
    // Initially ambiguous aliases keep the block the caller gave them.
    followCandidates(block, 0);
    uint32_t blocks = countSizes();

    for (bool firstRound = true;; firstRound = false) {
        auto sameSignature = [&](uint32_t a, uint32_t b) {
            std::span<const uint32_t> ra = graph.refs(a);
            std::span<const uint32_t> rb = graph.refs(b);
            if (block[a] != block[b] || ra.size() != rb.size())
                return false;
            for (size_t i = 0; i < ra.size(); ++i) {
                if (block[ra[i]] != block[rb[i]])
                    return false;
            }
            return !firstRound || graph.label(a) == graph.label(b);
        };
        uint32_t shared = 0; // nodes in blocks of two or more: only they can split
        for (uint32_t node = 0; node < n; ++node)
            shared += !aliasing[node] && size[block[node]] > 1;
        table.assign(std::bit_ceil(std::max<size_t>(16, shared + shared / 3 + 1)), Entry{});
        const size_t mask = table.size() - 1;
        uint32_t count = 0;
        for (uint32_t node = 0; node < n; ++node) {
            if (aliasing[node])
                continue;
            if (size[block[node]] == 1) {
                next[node] = count++;
                continue;
            }
            uint64_t signature = block[node];
            for (uint32_t ref : graph.refs(node))
                signature = combine(signature, block[ref]);
            const auto upper = static_cast<uint32_t>(signature >> 32);
            for (size_t i = signature & mask;; i = (i + 1) & mask) {
                Entry& entry = table[i];
                if (entry.member == UINT32_MAX) {
                    entry = {upper, node};
                    next[node] = count++;
                    break;
                }
                if (entry.signature == upper && sameSignature(entry.member, node)) {
                    next[node] = next[entry.member];
                    break;
                }
            }
        }
        count = followCandidates(next, count);
        block.swap(next);
        if (count == blocks) // blocks only ever split: as many as before means none did
            return count;
        blocks = countSizes();
    }
}

} // namespace btforge::dedup::detail
