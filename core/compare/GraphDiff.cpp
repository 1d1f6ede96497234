// The matcher: pairs the types of two graphs by kind and name and hands each pair to Differ;
// and the entry points of GraphDiff.h. Hashing, spelling and differing have files of their own.
#include "compare/GraphDiff.h"

#include "../ir/TypeWalk.h"
#include "Differ.h"
#include "Side.h"

#include <algorithm>
#include <span>
#include <string_view>
#include <unordered_set>
#include <utility>

namespace btforge::compare {
namespace {

using detail::Composite;
using detail::Enumeration;
using detail::Side;
using ir::Kind;
using ir::TypeGraph;
using ir::TypeId;

struct Entry {
    Kind kind;
    std::string name;
    TypeId id;
    uint64_t shape;
};

bool sameKey(const Entry& x, const Entry& y) {
    return x.kind == y.kind && x.name == y.name;
}
bool keyLess(const Entry& x, const Entry& y) {
    return x.kind != y.kind ? x.kind < y.kind : x.name < y.name;
}

// Types that some other type refers to (a DECL_TAG's target aside: tagging is not using).
std::vector<bool> referencedTypes(const TypeGraph& graph) {
    std::vector<bool> used(graph.endId());
    for (TypeId id = graph.firstId(); id < graph.endId(); ++id) {
        if (graph.kind(id) != Kind::DeclTag)
            ir::forEachReference(graph, id, [&](TypeId ref) { used[ref] = true; });
    }
    return used;
}

// An anonymous type nothing refers to (the kernel's many `enum { ... }` of constants, types of
// local variables) is known by its first name: of a value, or of a member, looking into
// anonymous members.
std::string anonymousKey(const Side& side, TypeId id) {
    const TypeGraph& graph = side.graph();
    std::string_view first;
    for (unsigned depth = 0; first.empty() && depth < 8 && side.isAnonymousAggregate(id); ++depth) {
        Kind kind = graph.kind(id);
        if (kind == Kind::Enum || kind == Kind::Enum64) {
            if (Enumeration e = side.enumeration(id); !e.values.empty())
                first = graph.str(e.values.front().name);
            break;
        }
        Composite c = side.composite(id);
        if (c.members.empty())
            break;
        first = graph.str(c.members.front().name);
        id = c.members.front().type;
    }
    return first.empty() ? "(anonymous)" : "(anonymous: " + std::string(first) + ")";
}

std::vector<Entry> matchedEntries(Side& side, const DiffOptions& options) {
    const TypeGraph& graph = side.graph();
    std::vector<bool> referenced = referencedTypes(graph);
    // A FWD next to its own definition adds nothing unless forwards count.
    std::unordered_set<std::string_view> defined[2]; // [isUnion]
    if (!options.strictForwards) {
        for (TypeId id = graph.firstId(); id < graph.endId(); ++id) {
            Kind kind = graph.kind(id);
            if (kind == Kind::Struct || kind == Kind::Union)
                defined[kind == Kind::Union].insert(graph.name(id));
        }
    }
    std::vector<Entry> entries;
    for (TypeId id = graph.firstId(); id < graph.endId(); ++id) {
        Kind kind = graph.kind(id);
        if (!isMatchedKind(kind) || !options.kinds.test(static_cast<size_t>(kind)))
            continue;
        std::string name(graph.name(id));
        if (kind == Kind::DeclTag) {
            name = side.spelling.declTagKey(id);
        } else if (name.empty() && detail::isAggregateKind(kind)) {
            if (referenced[id])
                continue; // compared where it is used
            name = anonymousKey(side, id);
        } else if (kind == Kind::Fwd &&
                   defined[graph.getAs<ir::FwdType>(id).isUnion].contains(graph.name(id))) {
            continue;
        }
        entries.push_back({kind, std::move(name), id, side.hashes.shape(id)});
    }
    std::stable_sort(entries.begin(), entries.end(), keyLess);
    return entries;
}

class Matcher {
public:
    Matcher(Side& a, Side& b, const DiffOptions& options)
        : a_(a), b_(b), differ_(a, b), options_(options) {}

    DiffReport run(const std::vector<Entry>& as, const std::vector<Entry>& bs) {
        size_t i = 0, j = 0;
        while (i < as.size() || j < bs.size()) {
            const Entry& key =
                j == bs.size() || (i < as.size() && !keyLess(bs[j], as[i])) ? as[i] : bs[j];
            size_t iEnd = i, jEnd = j;
            while (iEnd < as.size() && sameKey(as[iEnd], key))
                ++iEnd;
            while (jEnd < bs.size() && sameKey(bs[jEnd], key))
                ++jEnd;
            matchGroup(std::span(as).subspan(i, iEnd - i), std::span(bs).subspan(j, jEnd - j));
            i = iEnd;
            j = jEnd;
        }
        return std::move(report_);
    }

private:
    // Types of one kind and name: equal shapes pair first (a multiset intersection), the rest
    // pair in graph order and are compared in detail; what is left is on one side only.
    void matchGroup(std::span<const Entry> as, std::span<const Entry> bs) {
        const Entry& first = as.empty() ? bs.front() : as.front();
        KindCounts& counts = report_.counts[static_cast<size_t>(first.kind)];
        std::vector<const Entry*> leftA = byShape(as), leftB = byShape(bs);
        std::vector<const Entry*> restA, restB;
        size_t i = 0, j = 0;
        while (i < leftA.size() && j < leftB.size()) {
            if (leftA[i]->shape == leftB[j]->shape) {
                ++counts.equal;
                ++i, ++j;
            } else if (leftA[i]->shape < leftB[j]->shape) {
                restA.push_back(leftA[i++]);
            } else {
                restB.push_back(leftB[j++]);
            }
        }
        restA.insert(restA.end(), leftA.begin() + i, leftA.end());
        restB.insert(restB.end(), leftB.begin() + j, leftB.end());
        auto inGraphOrder = [](const Entry* x, const Entry* y) { return x->id < y->id; };
        std::sort(restA.begin(), restA.end(), inGraphOrder);
        std::sort(restB.begin(), restB.end(), inGraphOrder);

        size_t paired = std::min(restA.size(), restB.size());
        for (size_t k = 0; k < paired; ++k) {
            std::vector<Difference> found = differ_.compare(restA[k]->id, restB[k]->id);
            if (found.empty()) {
                ++counts.equal;
                continue;
            }
            ++counts.different;
            for (Difference& d : found) {
                d.kind = first.kind;
                d.type = first.name;
                add(std::move(d));
            }
        }
        for (size_t k = paired; k < restA.size(); ++k) {
            ++counts.onlyA;
            add({first.kind, first.name, "", a_.spelling.describe(restA[k]->id), std::nullopt});
        }
        for (size_t k = paired; k < restB.size(); ++k) {
            ++counts.onlyB;
            add({first.kind, first.name, "", std::nullopt, b_.spelling.describe(restB[k]->id)});
        }
    }

    static std::vector<const Entry*> byShape(std::span<const Entry> entries) {
        std::vector<const Entry*> out;
        for (const Entry& e : entries)
            out.push_back(&e);
        std::sort(out.begin(), out.end(), [](const Entry* x, const Entry* y) {
            return x->shape != y->shape ? x->shape < y->shape : x->id < y->id;
        });
        return out;
    }

    void add(Difference difference) {
        ++report_.differenceCount;
        if (report_.differences.size() < options_.maxListed)
            report_.differences.push_back(std::move(difference));
    }

    Side& a_;
    Side& b_;
    detail::Differ differ_;
    const DiffOptions& options_;
    DiffReport report_;
};

} // namespace

std::span<const Kind> matchedKinds() {
    static constexpr Kind kMatched[] = {Kind::Int,     Kind::Struct,  Kind::Union,   Kind::Enum,
                                        Kind::Fwd,     Kind::Typedef, Kind::Func,    Kind::Var,
                                        Kind::Datasec, Kind::Float,   Kind::DeclTag, Kind::Enum64};
    return kMatched;
}

bool isMatchedKind(Kind kind) {
    auto kinds = matchedKinds();
    return std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
}

bool DiffReport::equal() const {
    return std::all_of(counts.begin(), counts.end(), [](const KindCounts& c) {
        return c.onlyA == 0 && c.onlyB == 0 && c.different == 0;
    });
}

DiffReport compareGraphs(const TypeGraph& a, const TypeGraph& b, const DiffOptions& options) {
    Side sideA(a, options);
    Side sideB(b, options);
    std::vector<Entry> entriesA = matchedEntries(sideA, options);
    std::vector<Entry> entriesB = matchedEntries(sideB, options);
    return Matcher(sideA, sideB, options).run(entriesA, entriesB);
}
} // namespace btforge::compare
