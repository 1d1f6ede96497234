// pahole's -C lookup over units read in order (dwarf::UnitNameLookup): each name from the unit
// the previous one was found in, on; what pahole finds by name; where a lookup is complete.
#include "btforge/dwarf/UnitNameLookup.h"

#include "btforge/ir/TypeGraph.h"

#include <doctest/doctest.h>

#include <vector>

using namespace btforge;
using namespace btforge::ir;

namespace {

// Three units: [a: int, struct dup (4 bytes), struct first], [b: struct dup (8 bytes), FWD
// later, typedef t], [c: struct later].
struct Units {
    TypeGraph g;
    std::vector<TypeId> starts;
    TypeId dupA = 0, dupB = 0, first = 0, typedefT = 0, later = 0;

    Units() {
        starts.push_back(g.endId());
        const TypeId i32 = g.add(IntType{g.intern("int"), 4, int_encoding::kSigned, 0, 32});
        dupA =
            g.add(StructType{g.intern("dup"), 4, std::vector<Member>{{g.intern("x"), i32, 0, 0}}});
        first = g.add(StructType{g.intern("first"), 0, {}});
        starts.push_back(g.endId());
        dupB =
            g.add(StructType{g.intern("dup"), 8, std::vector<Member>{{g.intern("y"), i32, 32, 0}}});
        g.add(FwdType{g.intern("later"), false});
        typedefT = g.add(TypedefType{g.intern("t"), dupB});
        starts.push_back(g.endId());
        later = g.add(StructType{g.intern("later"), 0, {}});
        starts.push_back(g.endId());
    }

    // Feeds units until the lookup is complete; returns how many it took.
    size_t feed(dwarf::UnitNameLookup& lookup) const {
        for (size_t u = 0; u + 1 < starts.size(); ++u) {
            if (lookup.addUnit(g, starts[u], starts[u + 1]))
                return u + 1;
        }
        return starts.size();
    }
};

} // namespace

TEST_CASE("UnitNameLookup: names found unit by unit, as pahole finds -C names") {
    Units units;
    SUBCASE("a name is looked for from the previous name's unit on") {
        dwarf::UnitNameLookup lookup({"t", "dup"});
        CHECK(units.feed(lookup) == 2);
        CHECK(std::vector<TypeId>(lookup.found().begin(), lookup.found().end()) ==
              std::vector<TypeId>{units.typedefT, units.dupB});
    }
    SUBCASE("in list order, the first unit's version first") {
        dwarf::UnitNameLookup lookup({"dup", "t", "dup"});
        CHECK(units.feed(lookup) == 2);
        CHECK(std::vector<TypeId>(lookup.found().begin(), lookup.found().end()) ==
              std::vector<TypeId>{units.dupA, units.typedefT, units.dupB});
    }
    SUBCASE("a name only an earlier unit has is not found; nor what follows it") {
        dwarf::UnitNameLookup lookup({"t", "first", "later"});
        CHECK(units.feed(lookup) == units.starts.size());
        CHECK_FALSE(lookup.complete());
        CHECK(std::vector<TypeId>(lookup.found().begin(), lookup.found().end()) ==
              std::vector<TypeId>{units.typedefT});
    }
    SUBCASE("a declaration is not what pahole finds: the definition in a later unit is") {
        dwarf::UnitNameLookup lookup({"later"});
        CHECK(units.feed(lookup) == 3);
        CHECK(lookup.found()[0] == units.later);
        CHECK_FALSE(dwarf::UnitNameLookup::findsKind(Kind::Fwd));
    }
}
