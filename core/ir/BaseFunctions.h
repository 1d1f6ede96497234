// What FunctionAppender derives from a base alone: the base's FUNC_PROTOs by prototype hash, its
// FUNCs without address by their FUNC_PROTO and its DECL_TAGs by their target (a FUNC or tag can
// only be the base's if it refers to the same base type). Built once while a base lives
// (support/PerBase.h), or read from a base image (BaseImage.h).
#pragma once

#include "support/HashIndex.h"
#include "support/ImageBytes.h"

#include "btforge/ir/TypeGraph.h"

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace btforge::ir {

struct BaseFunctions {
    explicit BaseFunctions(const TypeGraph& base);
    BaseFunctions() = default;
    // The chains view the vectors below (or an image's arrays): moving keeps them, copying would
    // not.
    BaseFunctions(BaseFunctions&&) = default;
    BaseFunctions& operator=(BaseFunctions&&) = default;
    BaseFunctions(const BaseFunctions&) = delete;
    BaseFunctions& operator=(const BaseFunctions&) = delete;

    // `base`'s tables, built on the first call while it lives or installed by install().
    static std::shared_ptr<const BaseFunctions> of(const std::shared_ptr<const TypeGraph>& base);
    static void install(const std::shared_ptr<const TypeGraph>& base,
                        std::shared_ptr<const BaseFunctions> functions);
    // Base images (BaseImage.h): the tables written, or read where they lie (the reader is
    // checked before they are used).
    void writeTo(image::Writer& out) const;
    static std::shared_ptr<const BaseFunctions> readFrom(image::Reader& in);

    support::HashIndex protos;
    // Chains in id order: the first id of each base type, then the next of each FUNC or
    // DECL_TAG.
    std::span<const TypeId> functionsOf;
    std::span<const TypeId> tagsOf;
    std::span<const TypeId> nextOfSameTarget;

private:
    // The three above when built here. Apart, not one block: a third the size each (a vmlinux's:
    // 380 KB), the heap serves them from pages the base's checks freed, where glibc maps one
    // block of 1.1 MB afresh (page faults, a tenth of a small module's).
    std::vector<TypeId> functions_, tags_, next_;
};

} // namespace btforge::ir
