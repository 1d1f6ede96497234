// What differs between two matched types, item by item.
#pragma once

#include "Side.h"

#include <optional>
#include <string>
#include <vector>

namespace btforge::compare::detail {

// Lists every difference between a type of A and the type of B it was matched with, naming the
// member, value or parameter. It compares what ShapeHashes::shape hashes, so it finds something
// whenever the shapes differ.
class Differ {
public:
    Differ(Side& a, Side& b) : a_(a), b_(b) {}

    std::vector<Difference> compare(TypeId x, TypeId y);

private:
    // Anonymous types inside anonymous types are followed this deep; C nests them a few levels,
    // and only a hand-made graph could nest them forever.
    static constexpr unsigned kMaxDescent = 32;

    void note(std::string what, std::optional<std::string> a, std::optional<std::string> b);
    template <typename T> void compareValue(std::string what, const T& a, const T& b);

    // A reference that differs is a difference of `what`, except between two anonymous types of
    // one kind: those are compared item by item, the items named "<prefix><item>".
    void compareReference(const std::string& what, const std::string& owner,
                          const std::string& prefix, TypeId x, TypeId y, unsigned depth);
    void compareAggregates(const std::string& owner, const std::string& prefix, TypeId x, TypeId y,
                           unsigned depth);
    void compareMembers(const std::string& owner, const std::string& prefix, TypeId x, TypeId y,
                        unsigned depth);
    void compareEnumerators(const std::string& owner, TypeId x, TypeId y);
    void compareFunctions(TypeId x, TypeId y);
    void compareDatasecs(TypeId x, TypeId y);

    Side& a_;
    Side& b_;
    std::vector<Difference> found_;
};

} // namespace btforge::compare::detail
