// pahole's -C lookup over DWARF, whose types it reads unit by unit: the names in the order given,
// each the first type of its name (struct, union, enum, typedef) in the unit the previous name
// was found in or a later one; pahole stops looking at the first name a unit lacks. So a name
// only an earlier unit has is not found, and another unit's version of a struct may be the one
// found. The layout emitter prints what it finds; the DWARF loaders stop reading units once it
// has found every name (the loader option read-until).
#pragma once

#include "btforge/Export.h"
#include "btforge/ir/TypeGraph.h"

#include <span>
#include <string>
#include <vector>

namespace btforge::dwarf {

class BTFORGE_API UnitNameLookup {
public:
    explicit UnitNameLookup(std::vector<std::string> names) : names_(std::move(names)) {}

    // Whether pahole finds a type of this kind by name: definitions of structs, unions, enums
    // and typedefs.
    static bool findsKind(ir::Kind kind);

    // Takes the next unit, the types [first, end) of `graph` (which holds the earlier units
    // before them). Returns whether every name is found.
    bool addUnit(const ir::TypeGraph& graph, ir::TypeId first, ir::TypeId end);

    // The types found, one per name, in the order given: every name's when complete(), else
    // those before the first name not found yet.
    std::span<const ir::TypeId> found() const { return found_; }
    bool complete() const { return found_.size() == names_.size(); }

private:
    std::vector<std::string> names_;
    std::vector<ir::TypeId> found_;
    std::vector<ir::TypeId> unitStarts_; // ascending
    size_t fromUnit_ = 0;                // where the next name is looked for, on
    ir::TypeId searched_ = 0;            // the next name is not in [start of fromUnit_, searched_)
};

} // namespace btforge::dwarf
