// The small base the fuzz targets read split inputs over: `int` [1], a pointer to it [2], and
// `struct base_struct { int value; int *next; }` [3] (seed corpora's split inputs start at [4]).
#pragma once

#include "btforge/ir/TypeGraph.h"

#include <memory>

namespace btforge::fuzz {

inline std::shared_ptr<ir::TypeGraph> smallBase() {
    auto base = std::make_shared<ir::TypeGraph>();
    const ir::TypeId intId =
        base->add(ir::IntType{base->intern("int"), 4, ir::int_encoding::kSigned, 0, 32});
    const ir::TypeId ptr = base->add(ir::PtrType{ir::kNoName, intId});
    const ir::Member members[] = {{base->intern("value"), intId, 0, 0},
                                  {base->intern("next"), ptr, 64, 0}};
    base->add(ir::StructType{base->intern("base_struct"), 16, members});
    return base;
}

} // namespace btforge::fuzz
