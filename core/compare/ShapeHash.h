// The hashes `btforge diff` matches types by: what a reference to a type means, and what is
// compared of a type when it is matched (equal exactly when Differ finds nothing). Ids do not
// enter them, so they compare across two graphs.
#pragma once

#include "ComparedGraph.h"

#include <cstdint>
#include <vector>

namespace btforge::compare::detail {

// A hash per type id, computed once. Only anonymous types can refer to themselves without a name
// in between (hand-made graphs; C cannot spell it), and a loop then hashes with a fixed stand-in.
class HashMemo {
public:
    explicit HashMemo(size_t size) : values_(size), states_(size, State::Unknown) {}

    template <typename Compute> uint64_t get(TypeId id, Compute&& compute) {
        if (states_[id] == State::Known)
            return values_[id];
        if (states_[id] == State::Busy)
            return kLoop;
        states_[id] = State::Busy;
        values_[id] = compute();
        states_[id] = State::Known;
        return values_[id];
    }

private:
    enum class State : uint8_t { Unknown, Busy, Known };
    static constexpr uint64_t kLoop = 0x4c4f4f50;
    std::vector<uint64_t> values_;
    std::vector<State> states_;
};

class ShapeHashes {
public:
    explicit ShapeHashes(const ComparedGraph& view)
        : view_(view), graph_(view.graph()), refs_(graph_.endId()), shapes_(graph_.endId()) {}

    // What a reference to `id` means: equal for "struct foo *" in both graphs whatever the ids.
    // Named types count by kind and name (their definitions are compared where they are
    // matched), anonymous ones by their shape.
    uint64_t ref(TypeId id) {
        return refs_.get(id, [&] { return computeRef(id); });
    }
    // What is compared of `id` when it is matched: equal exactly when Differ finds nothing.
    uint64_t shape(TypeId id) {
        return shapes_.get(id, [&] { return computeShape(id); });
    }

private:
    uint64_t computeRef(TypeId id);
    uint64_t computeShape(TypeId id);
    // References say "struct foo" for a FWD and a STRUCT alike unless strict, and "enum foo" for
    // ENUM and ENUM64 (the width belongs to the definition).
    uint64_t tagClass(TypeId id) const;

    const ComparedGraph& view_;
    const TypeGraph& graph_;
    HashMemo refs_;
    HashMemo shapes_;
};

} // namespace btforge::compare::detail
