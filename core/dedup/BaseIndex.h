// What merging needs to find a unit's types among a base's (a module's among vmlinux's) without
// hashing every base type's structure: named types by kind and name, the others by shape (their
// label and their references, TypeLabel.h), which a unit type whose references are already
// matched can be looked up by. Built in one pass over the base.
//
// Finding types this way is exact only when no two base types are equivalent (then a unit type
// is equivalent to at most one of them, and a walk proves which). The pass proves that too, from
// three facts it checks, on a base whose string section holds each text once (names are then
// compared as string ids; kernels' BTF is made so):
//   1. no two anonymous types have the same label and the same references (shape duplicates);
//   2. no cycle of references runs through anonymous types only;
//   3. no two named types of one kind and name are equivalent (checked by walking each pair).
// Two equivalent distinct types would have equal labels: named ones break 3; anonymous ones have
// equivalent references, all the same ids (breaking 1) or a distinct equivalent pair among them,
// and following such pairs must end at a named pair or, the graph being finite, go round a
// cycle of anonymous types. FUNCs, VARs, DATASECs and the DECL_TAGs on them are left out: no
// unit type is ever equivalent to them, nor reaches them.
#pragma once

#include "BaseWorld.h"
#include "support/Hash.h"
#include "support/HashIndex.h"
#include "support/ImageBytes.h"

#include "btforge/ir/TypeGraph.h"

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

namespace btforge::dedup {

// An ENUM's or ENUM64's size, and whether it is a declaration (no enumerators).
std::pair<uint32_t, bool> enumShape(const ir::TypeGraph& graph, ir::TypeId id);

class BaseIndex {
public:
    // Reads labels through `world` for its checks. The indexes are whole even when the base is
    // not minimal.
    BaseIndex(const ir::TypeGraph& base, BaseWorld& world);
    // The index of `base`, built once while that base lives (support/PerBase.h): the merges of a
    // batch conversion share it.
    static std::shared_ptr<const BaseIndex> of(const std::shared_ptr<const ir::TypeGraph>& base);

    // Base images (ir/BaseImage.h): the index written; one read, used where it lies (the
    // reader is checked before it is used); one installed as what of() returns for `base`.
    void writeTo(image::Writer& out) const;
    static std::shared_ptr<const BaseIndex> readFrom(const ir::TypeGraph& base, image::Reader& in);
    static void install(const std::shared_ptr<const ir::TypeGraph>& base,
                        std::shared_ptr<const BaseIndex> index);

    // Whether `id` of `graph` is found by name (else by shape).
    static bool foundByName(const ir::TypeGraph& graph, ir::TypeId id);
    // Whether `id` of `base` is of a kind no unit type is ever equivalent to or reaches: void,
    // FUNCs, VARs, DATASECs and the DECL_TAGs on the first two (units hold no functions or
    // variables). Inline: the index asks it of every base type.
    static bool outsideMerging(const ir::TypeGraph& base, ir::TypeId id) {
        using ir::Kind;
        const Kind kind = base.kind(id);
        if (kind == Kind::DeclTag) {
            const Kind target = base.kind(base.target(id));
            return target == Kind::Func || target == Kind::Var;
        }
        return kind == Kind::Void || kind == Kind::Func || kind == Kind::Var ||
               kind == Kind::Datasec;
    }

    // Calls visit(id) for each base type of `kind` named `name`, in id order, until it returns
    // true.
    template <typename Visit>
    void forEachNamed(ir::Kind kind, std::string_view name, Visit&& visit) const {
        names_.forEach(nameKey(kind, name), [&](ir::TypeId type) {
            return base_.kind(type) == kind && base_.name(type) == name && visit(type);
        });
    }
    // Calls visit(id) for each base type found by shape whose shape may be `shape` (equal
    // shapes, and rarely unequal ones: callers compare labels), in id order, until it returns
    // true.
    template <typename Visit> void forEachShaped(uint64_t shape, Visit&& visit) const {
        shapes_.forEach(shape, visit);
    }

    // No two base types merging can meet are equivalent (the three facts above).
    bool minimal() const { return minimal_; }
    // Named ENUMs and ENUM64s without enumerators, in id order.
    std::span<const ir::TypeId> enumDeclarations() const { return enumDeclarations_; }
    // Whether an ARRAY's elements are an ARRAY (a multi-dimensional array written nested, as
    // LLVM does, not flattened as pahole does): units must spell theirs the same way. Known here
    // so that a run need not scan the base for it.
    bool nestedArrays() const { return nestedArrays_; }

private:
    explicit BaseIndex(const ir::TypeGraph& base) : base_(base) {}
    // By the name's text, not the base's string id: finding the id would cost a lookup in the
    // base's strings (a cache miss) for every name a unit looks for.
    static uint64_t nameKey(ir::Kind kind, std::string_view name) {
        return hashing::combineText(static_cast<uint64_t>(kind), name);
    }

    const ir::TypeGraph& base_;
    support::HashIndex names_;
    support::HashIndex shapes_;
    std::vector<ir::TypeId> enumDeclarations_;
    bool minimal_ = true;
    bool nestedArrays_ = false;
};

} // namespace btforge::dedup
