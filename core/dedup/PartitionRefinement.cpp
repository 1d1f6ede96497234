#include "PartitionRefinement.h"

#include "TypeLabel.h"

#include <algorithm>
#include <bit>
#include <utility>

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
    for (size_t i = hashing::combine(key, 0) & mask;; i = (i + 1) & mask) {
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
        size_t i = hashing::combine(slot.key, 0) & mask;
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

namespace {

// The blocks of a partition of nodes as ranges of one array (Hopcroft's layout): a block splits
// in place by moving its marked members to its front.
class Blocks {
public:
    Blocks(std::span<const uint32_t> blockOf, uint32_t count);
    uint32_t blockOf(uint32_t node) const { return blockOf_[node]; }
    uint32_t count() const { return static_cast<uint32_t>(start_.size()); }
    uint32_t size(uint32_t block) const { return end_[block] - start_[block]; }
    std::span<const uint32_t> members(uint32_t block) const {
        return {nodes_.data() + start_[block], size(block)};
    }
    // Marks `node` to leave its block with the other marked ones; returns whether it was the
    // first marked in its block.
    bool mark(uint32_t node);
    bool marked(uint32_t node) const {
        return position_[node] < start_[blockOf_[node]] + marked_[blockOf_[node]];
    }
    // Moves `node` (unmarked) to a block of its own; returns that block.
    uint32_t isolate(uint32_t node);
    // Makes the marked members of `block` a block of their own, unless that is all of them;
    // returns the new block, or UINT32_MAX. Clears the marks either way.
    uint32_t splitMarked(uint32_t block);

private:
    void swap(uint32_t node, uint32_t position);

    std::vector<uint32_t> nodes_;    // grouped by block
    std::vector<uint32_t> position_; // node -> index in nodes_
    std::vector<uint32_t> blockOf_;
    std::vector<uint32_t> start_, end_, marked_;
};

Blocks::Blocks(std::span<const uint32_t> blockOf, uint32_t count)
    : nodes_(blockOf.size()), position_(blockOf.size()), blockOf_(blockOf.begin(), blockOf.end()),
      start_(count + 1, 0), end_(count, 0), marked_(count, 0) {
    for (uint32_t b : blockOf)
        ++start_[b + 1];
    for (uint32_t b = 0; b < count; ++b)
        start_[b + 1] += start_[b];
    start_.pop_back();
    end_ = start_;
    for (uint32_t node = 0; node < blockOf.size(); ++node) {
        position_[node] = end_[blockOf[node]]++;
        nodes_[position_[node]] = node;
    }
}

void Blocks::swap(uint32_t node, uint32_t position) {
    const uint32_t other = nodes_[position];
    std::swap(nodes_[position], nodes_[position_[node]]);
    position_[other] = position_[node];
    position_[node] = position;
}

bool Blocks::mark(uint32_t node) {
    const uint32_t b = blockOf_[node];
    swap(node, start_[b] + marked_[b]);
    return marked_[b]++ == 0;
}

uint32_t Blocks::isolate(uint32_t node) {
    const uint32_t b = blockOf_[node];
    swap(node, --end_[b]);
    const uint32_t own = count();
    start_.push_back(end_[b]);
    end_.push_back(end_[b] + 1);
    marked_.push_back(0);
    blockOf_[node] = own;
    return own;
}

uint32_t Blocks::splitMarked(uint32_t block) {
    const uint32_t marked = std::exchange(marked_[block], 0);
    if (marked == size(block))
        return UINT32_MAX;
    const uint32_t part = count();
    start_.push_back(start_[block]);
    end_.push_back(start_[block] + marked);
    marked_.push_back(0);
    start_[block] += marked;
    for (uint32_t node : members(part))
        blockOf_[node] = part;
    return part;
}

// Each node's referrers with the position of the reference, grouped by referenced node.
struct Referrers {
    explicit Referrers(const RefGraph& graph);
    std::span<const uint64_t> of(uint32_t node) const {
        return {entries.data() + start[node], start[node + 1] - start[node]};
    }
    std::vector<uint32_t> start;
    std::vector<uint64_t> entries; // position << 32 | referrer
};

Referrers::Referrers(const RefGraph& graph) : start(graph.size() + 1, 0) {
    graph.forEachNode([&](uint32_t, const LabelHash&, std::span<const uint32_t> refs) {
        for (uint32_t ref : refs)
            ++start[ref + 1];
    });
    for (size_t i = 1; i < start.size(); ++i)
        start[i] += start[i - 1];
    entries.resize(start.back());
    std::vector<uint32_t> fill(start.begin(), start.end() - 1);
    graph.forEachNode([&](uint32_t node, const LabelHash&, std::span<const uint32_t> refs) {
        for (uint64_t i = 0; i < refs.size(); ++i)
            entries[fill[refs[i]]++] = i << 32 | node;
    });
}

// Hopcroft's refinement of `block` (numbers below `count`) to the same end as the rounds: a block
// taken from the work list splits every block by which of its members refer into it at each
// position; of the two halves of a split only the smaller needs to go on the list (unless the
// block already was there), so each node is taken O(log n) times.
uint32_t refineBySplitters(const RefGraph& graph, std::vector<uint32_t>& block, uint32_t count,
                           const Aliases& aliases, std::vector<uint8_t>& aliasing) {
    const uint32_t n = graph.size();
    Blocks blocks(block, count);
    const Referrers referrers(graph);
    // Candidate -> the aliases following it.
    std::vector<uint32_t> followerStart(n + 1, 0), followers;
    for (size_t i = 0; i < aliases.size(); ++i) {
        if (aliasing[aliases.node(i)]) {
            for (uint32_t c : aliases.candidates(i))
                ++followerStart[c + 1];
        }
    }
    for (uint32_t node = 0; node < n; ++node)
        followerStart[node + 1] += followerStart[node];
    followers.resize(followerStart[n]);
    std::vector<uint32_t> aliasIndex(n, UINT32_MAX);
    {
        std::vector<uint32_t> fill(followerStart.begin(), followerStart.end() - 1);
        for (size_t i = 0; i < aliases.size(); ++i) {
            const uint32_t alias = aliases.node(i);
            if (!aliasing[alias])
                continue;
            aliasIndex[alias] = static_cast<uint32_t>(i);
            for (uint32_t c : aliases.candidates(i))
                followers[fill[c]++] = alias;
        }
    }

    std::vector<uint32_t> work;
    std::vector<uint8_t> queued(count, 1);
    for (uint32_t b = 0; b < count; ++b)
        work.push_back(b);
    auto enqueue = [&](uint32_t b) {
        if (b >= queued.size())
            queued.resize(b + 1, 0);
        if (!queued[b]) {
            queued[b] = 1;
            work.push_back(b);
        }
    };
    // After `part` split from `rest`: the smaller goes on the list, both if `rest` was there.
    auto split = [&](uint32_t rest, uint32_t part) {
        if (rest < queued.size() && queued[rest])
            enqueue(part);
        else
            enqueue(blocks.size(part) <= blocks.size(rest) ? part : rest);
    };
    std::vector<uint64_t> into; // (position, referrer) pairs into the splitter
    std::vector<uint32_t> marked, touched;
    while (!work.empty()) {
        const uint32_t splitter = work.back();
        work.pop_back();
        queued[splitter] = 0;
        into.clear();
        for (uint32_t node : blocks.members(splitter)) {
            std::span<const uint64_t> from = referrers.of(node);
            into.insert(into.end(), from.begin(), from.end());
        }
        std::sort(into.begin(), into.end());
        for (size_t first = 0; first < into.size();) {
            const uint64_t position = into[first] >> 32;
            size_t last = first;
            marked.clear();
            touched.clear();
            for (; last < into.size() && into[last] >> 32 == position; ++last) {
                const auto node = static_cast<uint32_t>(into[last]);
                if (!aliasing[node] && blocks.mark(node))
                    touched.push_back(blocks.blockOf(node));
                marked.push_back(node);
            }
            first = last;
            // Aliases go with their candidates while those stay together.
            for (size_t m = 0; m < marked.size(); ++m) {
                const uint32_t node = marked[m];
                for (uint32_t k = followerStart[node]; k < followerStart[node + 1]; ++k) {
                    const uint32_t alias = followers[k];
                    if (!aliasing[alias] || blocks.marked(alias))
                        continue;
                    std::span<const uint32_t> candidates = aliases.candidates(aliasIndex[alias]);
                    if (std::all_of(candidates.begin(), candidates.end(),
                                    [&](uint32_t c) { return blocks.marked(c); })) {
                        blocks.mark(alias);
                    } else {
                        aliasing[alias] = 0;
                        const uint32_t from = blocks.blockOf(alias);
                        split(from, blocks.isolate(alias));
                    }
                }
            }
            for (uint32_t b : touched) {
                if (const uint32_t part = blocks.splitMarked(b); part != UINT32_MAX)
                    split(b, part);
            }
        }
    }

    // Dense numbers in the order of each block's first member that is not an alias following
    // others (what the rounds gave, and what callers rely on for deterministic output).
    std::vector<uint32_t> number(blocks.count(), UINT32_MAX);
    count = 0;
    for (uint32_t node = 0; node < n; ++node) {
        if (!aliasing[node] && number[blocks.blockOf(node)] == UINT32_MAX)
            number[blocks.blockOf(node)] = count++;
    }
    for (uint32_t node = 0; node < n; ++node)
        block[node] = number[blocks.blockOf(node)];
    return count;
}

} // namespace

// Rounds compare every node's signature (label in the first round, block, blocks of the
// references) and split by it, until a round splits nothing. That is fast while few rounds are
// needed, as on real programs, but a chain of n anonymous pointers takes n rounds: past
// kRounds, the splitter refinement finishes the job in O(m log n).
uint32_t refinePartition(const RefGraph& graph, std::vector<uint32_t>& block,
                         const Aliases& aliases) {
    constexpr int kRounds = 8;
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

    for (int round = 0;; ++round) {
        const bool firstRound = round == 0;
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
                signature = hashing::combine(signature, block[ref]);
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
        if (round + 1 == kRounds) {
            std::vector<uint32_t>().swap(next);
            std::vector<Entry>().swap(table);
            return refineBySplitters(graph, block, count, aliases, aliasing);
        }
        blocks = countSizes();
    }
}

} // namespace btforge::dedup::detail
