// What finish() made of every id merge() returned (provisional and base ids, void). Own ids are
// looked up in a table; a base id is itself but for the few finish() gave another (a base enum
// declaration a unit's definition took over; a base type equivalent to a smaller one): a
// module's run does not write a table as long as vmlinux for them.
#pragma once

#include "btforge/ir/Kind.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace btforge::dedup {

class FinalIds {
public:
    FinalIds() = default;
    // own: the final id of each own id, from firstOwn on; movedBase: (base id, final id) for the
    // base ids that are not themselves, in any order.
    FinalIds(ir::TypeId firstOwn, std::vector<ir::TypeId> own,
             std::vector<std::pair<ir::TypeId, ir::TypeId>> movedBase)
        : firstOwn_(firstOwn), own_(std::move(own)), movedBase_(std::move(movedBase)) {
        std::sort(movedBase_.begin(), movedBase_.end());
    }

    ir::TypeId operator()(ir::TypeId id) const {
        if (id >= firstOwn_)
            return own_[id - firstOwn_];
        auto moved =
            std::lower_bound(movedBase_.begin(), movedBase_.end(), std::pair(id, ir::TypeId{0}));
        return moved != movedBase_.end() && moved->first == id ? moved->second : id;
    }

    bool operator==(const FinalIds&) const = default;

private:
    ir::TypeId firstOwn_ = 0;
    std::vector<ir::TypeId> own_;
    std::vector<std::pair<ir::TypeId, ir::TypeId>> movedBase_; // (base id, final id), by id
};

} // namespace btforge::dedup
