#include "ExactHash.h"

#include "../support/Hash.h"
#include "TypeLabel.h"

#include <algorithm>
#include <utility>

namespace btforge::dedup::detail {
namespace {

// A reference within a cycle is told by its target's position there; marked apart from a hash.
constexpr uint64_t kInside = 0x8d6e1b3f62a9c4e7ull;

class Hasher {
public:
    Hasher(const RefGraph& graph, std::span<const LabelHash> fixed)
        : graph_(graph), fixed_(fixed), hash_(graph.size()), position_(graph.size(), kOutside) {
        hash_[0] = voidLabel();
    }

    std::vector<LabelHash> run(std::span<const uint32_t> order, std::span<const uint32_t> starts) {
        for (size_t c = 0; c + 1 < starts.size(); ++c)
            hashComponent(order.subspan(starts[c], starts[c + 1] - starts[c]));
        return std::move(hash_);
    }

private:
    static constexpr uint32_t kOutside = UINT32_MAX;

    bool isFixed(uint32_t node) const {
        return !fixed_.empty() && (fixed_[node].first | fixed_[node].second) != 0;
    }

    // An acyclic type by its label and its references' hashes; a cycle by its members in an
    // order their labels and references decide, a reference within it by position.
    void hashComponent(std::span<const uint32_t> members) {
        const uint32_t first = members.front();
        if (isFixed(first)) { // a leaf: a component of its own
            hash_[first] = fixed_[first];
            return;
        }
        const std::span<const uint32_t> refs = graph_.refs(first);
        if (members.size() == 1 && std::find(refs.begin(), refs.end(), first) == refs.end()) {
            LabelHasher chain;
            chain.number(graph_.label(first));
            for (uint32_t ref : refs)
                chain.number(hash_[ref]);
            hash_[first] = chain.hash;
            return;
        }
        orderCanonically(members);
        LabelHasher chain;
        chain.number(members.size());
        for (const auto& [signature, m] : ordered_) {
            chain.number(graph_.label(m));
            for (uint32_t ref : graph_.refs(m)) {
                if (position_[ref] != kOutside) {
                    chain.number(kInside);
                    chain.number(position_[ref]);
                } else {
                    chain.number(hash_[ref]);
                }
            }
        }
        // Each member: the whole and its place in it.
        for (const auto& [signature, m] : ordered_) {
            LabelHasher own;
            own.number(chain.hash);
            own.number(position_[m]);
            hash_[m] = own.hash;
        }
        for (const auto& [signature, m] : ordered_)
            position_[m] = kOutside;
    }

    // ordered_: the members sorted by a signature of their labels and their references' (refined
    // over the references' groups while some members are alike: ties are left in node order, so
    // alike members in another order only hash apart, never alike); position_: each one's place.
    void orderCanonically(std::span<const uint32_t> members) {
        for (uint32_t m : members)
            position_[m] = 0; // inside
        ordered_.clear();
        for (uint32_t m : members) {
            uint64_t h = graph_.label(m).first;
            for (uint32_t ref : graph_.refs(m))
                h = hashing::combine(h, position_[ref] != kOutside ? graph_.label(ref).first
                                                                   : hash_[ref].first);
            ordered_.emplace_back(h, m);
        }
        std::sort(ordered_.begin(), ordered_.end());
        // A member's group: where the members alike so far start in ordered_.
        auto group = [&] {
            bool tied = false;
            for (uint32_t p = 0; p < ordered_.size(); ++p) {
                const bool same = p > 0 && ordered_[p - 1].first == ordered_[p].first;
                position_[ordered_[p].second] = same ? position_[ordered_[p - 1].second] : p;
                tied = tied || same;
            }
            return tied;
        };
        constexpr int kMaxRounds = 8;
        for (int round = 0; round < kMaxRounds && group(); ++round) {
            // Only alike members are told apart further, by their references' groups.
            bool split = false;
            for (size_t begin = 0; begin < ordered_.size();) {
                size_t end = begin + 1;
                while (end < ordered_.size() && ordered_[end].first == ordered_[begin].first)
                    ++end;
                if (end - begin > 1) {
                    for (size_t p = begin; p < end; ++p) {
                        uint64_t h = ordered_[p].first;
                        for (uint32_t ref : graph_.refs(ordered_[p].second))
                            h = hashing::combine(h, position_[ref] != kOutside ? position_[ref]
                                                                               : hash_[ref].first);
                        ordered_[p].first = h;
                    }
                    std::sort(ordered_.begin() + begin, ordered_.begin() + end);
                    for (size_t p = begin + 1; p < end; ++p)
                        split = split || ordered_[p - 1].first != ordered_[p].first;
                }
                begin = end;
            }
            if (!split)
                break;
        }
        for (uint32_t p = 0; p < ordered_.size(); ++p)
            position_[ordered_[p].second] = p;
    }

    const RefGraph& graph_;
    std::span<const LabelHash> fixed_;
    std::vector<LabelHash> hash_;
    std::vector<uint32_t> position_;                     // in the cycle being hashed
    std::vector<std::pair<uint64_t, uint32_t>> ordered_; // signature, member
};

} // namespace

std::vector<LabelHash> exactHashes(const RefGraph& graph, std::span<const uint32_t> order,
                                   std::span<const uint32_t> starts,
                                   std::span<const LabelHash> fixed) {
    return Hasher(graph, fixed).run(order, starts);
}

LabelHash mergedTypeHash(uint32_t id) {
    LabelHasher chain;
    chain.number(0x5be0cd19137e2179ull); // apart from any label
    chain.number(id);
    return chain.hash;
}

} // namespace btforge::dedup::detail
