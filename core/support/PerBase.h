// What is derived from a base graph alone (its index for merging, its prototypes), built once
// for as long as that base lives: a batch conversion (convert -B vmlinux *.ko) converts every
// module over one loaded base, and each conversion would otherwise build the same tables again.
// One base at a time is kept, by a weak reference: a new base replaces the entry, and an entry
// never keeps its base alive.
#pragma once

#include "btforge/ir/TypeGraph.h"

#include <memory>
#include <mutex>

namespace btforge::support {

template <typename T> class PerBase {
public:
    // The value derived from `base`, made by build(*base) on the first call for this base (the
    // value may refer to the base: callers hold the base while they use it).
    template <typename Build>
    std::shared_ptr<const T> get(const std::shared_ptr<const ir::TypeGraph>& base, Build&& build) {
        std::lock_guard lock(mutex_);
        // Owner comparison: a later base allocated where an expired one was is another base.
        const bool same =
            !base_.expired() && !base_.owner_before(base) && !base.owner_before(base_);
        if (!same) {
            value_.reset(); // before building: one base's tables at a time
            value_ = std::make_shared<const T>(build(*base));
            base_ = base;
        }
        return value_;
    }

    // Installs `value` as what get() returns for `base` (read from a base image, ir/BaseImage.h).
    void put(const std::shared_ptr<const ir::TypeGraph>& base, std::shared_ptr<const T> value) {
        std::lock_guard lock(mutex_);
        value_ = std::move(value);
        base_ = base;
    }

private:
    std::mutex mutex_;
    std::weak_ptr<const ir::TypeGraph> base_;
    std::shared_ptr<const T> value_;
};

} // namespace btforge::support
