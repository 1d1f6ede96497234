// Deduplication: merges the type graphs of many units (compile units) into one minimal graph.
//
// Two types are equivalent when they are bisimilar: equal labels (everything but the ids they
// refer to; see core/dedup/TypeLabel.h) and equivalent references in the same positions, cycles
// included. Over a base, the merged graph is kept minimal as units arrive, unit types matched
// by walks; without one, a unit type is the merged type of its exact hash (ExactHash.h), what
// no merged type hashes like is appended. finish() then resolves forward declarations, minimises
// the whole and numbers types by first appearance, so the result depends on the units and their
// unitOrder only, never on the order merge() saw them in, nor on what merging left apart.
//
// Labels are compared by their 128-bit hashes (LabelHash, RefGraph.h), computed once per unit
// type in prepare() and kept for every merged type: merging takes equal hashes for equal labels,
// so two types with different labels are merged only if two independent 64-bit hashes of their
// labels both collide (about 2^-128 per comparison); exact hashes alike.
//
// Use: prepare() units in parallel (pure, per unit: label and structural or exact hashes,
// references, components), then merge() them one at a time (the short serial part, under the
// caller's lock: lookups, walks over flat reference lists, appending what is new), then finish()
// once.
#pragma once

#include "dedup/FinalIds.h"
#include "dedup/RefGraph.h"

#include "btforge/ir/TypeGraph.h"
#include "btforge/plugin/Session.h"

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace btforge::dedup {

class BaseIndex;

// preMapped value of a unit type that is not a placeholder.
inline constexpr ir::TypeId kNotPreMapped = UINT32_MAX;

// What merge() needs from one unit that does not depend on the merged graph: its references,
// label and structural hashes, and strongly connected components. Refers to the unit graph, which
// must outlive it.
class PreparedUnit {
public:
    const ir::TypeGraph& unit() const { return *unit_; }

private:
    friend class GraphMerger;

    const ir::TypeGraph* unit_ = nullptr;
    RefGraph refs_;                // node = unit type id, 0 = void
    std::vector<uint64_t> hashes_; // structural hash per node; empty until placeholders are
                                   // resolved, when the unit has any
    // Strongly connected components, each after those it refers to: component i is
    // order_[componentStarts_[i]] up to order_[componentStarts_[i + 1]].
    std::vector<ir::TypeId> order_;
    std::vector<uint32_t> componentStarts_;
    std::vector<ir::TypeId> placeholders_; // sorted
    // Without a base: exact hashes per node (ExactHash.h) in place of structural ones; empty
    // until placeholders are resolved, when the unit has any.
    std::vector<LabelHash> exact_;
};

class GraphMerger {
public:
    // Types equivalent to a type of `base` (vmlinux for a module) map to the smallest equivalent
    // base id and are never repeated. Merged ids continue the base's.
    // How finish() resolves a declaration of a name several definitions share: by name alone
    // (it stays a FWD), or also as libbpf's dedup does, by the definition an otherwise equal
    // type uses in its place (the default: kernels' BTF, which CO-RE programs meet, is made so).
    enum class Declarations : uint8_t { ByName, ByContext };

    // `lazyBase`: read a minimal base lazily (BaseIndex.h); false reads any base whole, the
    // way tests check the lazy reading against.
    explicit GraphMerger(std::shared_ptr<const ir::TypeGraph> base = nullptr,
                         Declarations declarations = Declarations::ByContext, bool lazyBase = true);
    GraphMerger(GraphMerger&&) noexcept;
    GraphMerger& operator=(GraphMerger&&) noexcept;
    ~GraphMerger();

    // Pure, so callable from any thread while another merges. `unit` is standalone (no base,
    // ids from 1); `placeholders` lists its types that stand for types merged earlier (any
    // order), whose targets merge() gets through preMapped.
    PreparedUnit prepare(const ir::TypeGraph& unit,
                         std::span<const ir::TypeId> placeholders = {}) const;

    // Merges one prepared unit; calls must be serialised. unitOrder is the unit's position in the
    // input and orders the final graph. preMapped is empty or has one entry per unit type:
    // kNotPreMapped, or for each placeholder the merged (provisional or base) id it stands for.
    // Returns the provisional merged id of every unit type, type i at index i - 1. preMapped
    // must agree with the placeholders and name merged types (asserted: the pipeline makes both).
    std::vector<ir::TypeId> merge(PreparedUnit&& unit, uint32_t unitOrder,
                                  std::span<const ir::TypeId> preMapped = {});
    // prepare() and merge() in one call, placeholders taken from preMapped.
    std::vector<ir::TypeId> merge(const ir::TypeGraph& unit, uint32_t unitOrder,
                                  std::span<const ir::TypeId> preMapped = {});

    struct Result {
        ir::TypeGraph graph; // over the base, when there is one
        FinalIds finalIds;   // of every id merge() returned
        // Over a lazy base, units may map an enum declaration to the base's one definition of
        // its name and size (BaseDeclarations::resolveEnumDeclarations), which is what finish()
        // decides too, unless an own type defines that enum otherwise. Then this is set, the
        // rest is empty, and the units must be merged again without that resolution.
        bool earlyEnumRedefined = false;
        // Pairing declarations with definitions by context ran out of steps (pathological
        // graphs: hundreds of variants of one struct): fewer types were merged than could be.
        bool declarationsCutShort = false;
        // Units map a struct or union declaration to the base's one definition of its name
        // (BaseDeclarations::resolveDeclarations), as libbpf's dedup resolves a declaration
        // whose name has one definition. An own struct or union of the name (amdgpu.ko's own
        // struct gpio; cxgb4.ko's copies of base structs; see earlyDeclarationRedefined())
        // makes that wrong: then this is set, the rest is empty, and the units must be merged
        // again leaving every struct and union declaration to finish().
        bool earlyDeclarationRedefined = false;
    };
    // Resolves forward declarations (a FWD, or an enum without enumerators, becomes the one
    // struct, union or enum of its name, when there is exactly one; see Declarations), minimises
    // the whole graph again and numbers types by the first unit type (unitOrder, id) each stands
    // for. Parts of it run on `tasks`' workers when given; the result is the same.
    Result finish(plugin::TaskRunner* tasks = nullptr) &&;

    // Own types merged so far (before finish()).
    uint32_t provisionalCount() const;
    // The base's index (BaseIndex.h), whatever the mode; null without a base.
    const BaseIndex* baseIndex() const;
    // Whether base types are read lazily (a minimal base): then early enum resolution holds.
    bool lazyBase() const;
    // What merging used of the base so far (--stats): the base types unit types were found to
    // be, and the base types it read (all of them, when not lazily).
    struct BaseUse {
        uint32_t matched = 0;
        uint32_t read = 0;
    };
    BaseUse baseUse() const;
    // The bytes the merger holds: its world and index, the merged types, merging's scratch.
    size_t memoryUsage() const;

private:
    struct State;
    std::unique_ptr<State> state_;
};

} // namespace btforge::dedup
