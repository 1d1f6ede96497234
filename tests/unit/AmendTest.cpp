// Amending passes on a graph of every kind: features off, --keep and --drop.
#include "BtfTestSupport.h"
#include "amend/FeatureDowngrade.h"
#include "amend/TypeSelection.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace btforge {
namespace {

using ir::Kind;
using ir::TypeId;

size_t countKind(const ir::TypeGraph& g, Kind kind) {
    size_t n = 0;
    for (TypeId id = g.firstId(); id < g.endId(); ++id)
        n += g.kind(id) == kind;
    return n;
}

std::optional<TypeId> named(const ir::TypeGraph& g, Kind kind, std::string_view name) {
    for (TypeId id = g.firstId(); id < g.endId(); ++id) {
        if (g.kind(id) == kind && g.name(id) == name)
            return id;
    }
    return std::nullopt;
}

FeatureSet without(Feature off) {
    FeatureSet set = FeatureSet::defaults();
    set.set(off, false);
    return set;
}

// The graph written and read back as BTF: references and lists are valid, or reading fails.
ir::TypeGraph roundTrip(const ir::TypeGraph& g) {
    auto bytes = btf::writeBtf(g);
    REQUIRE(bytes);
    auto read = btf::readBtf(*bytes, {"amended"});
    REQUIRE(read);
    return std::move(*read);
}

TEST_CASE("amend: pahole's default features change nothing") {
    CHECK_FALSE(amend::downgrade(test::allKindsGraph(), FeatureSet::defaults()));
}

TEST_CASE("amend: type_tag off points referrers through the tag") {
    ir::TypeGraph in = test::allKindsGraph();
    auto out = amend::downgrade(in, without(Feature::TypeTag));
    REQUIRE(out);
    CHECK(countKind(*out, Kind::TypeTag) == 0);
    CHECK(out->ownCount() == in.ownCount() - 1);
    auto proto = out->getAs<ir::FuncProtoType>(
        out->getAs<ir::FuncType>(*named(*out, Kind::Func, "main")).proto);
    TypeId argv = proto.params[1].type;
    REQUIRE(out->kind(argv) == Kind::Ptr);
    CHECK(out->kind(out->target(argv)) == Kind::Int);
    CHECK(test::dump(roundTrip(*out)) == test::dump(*out));
}

TEST_CASE("amend: enum64 off writes ENUM with the low 32 bits, unsigned") {
    auto out = amend::downgrade(test::allKindsGraph(), without(Feature::Enum64));
    REQUIRE(out);
    CHECK(countKind(*out, Kind::Enum64) == 0);
    auto big = out->getAs<ir::EnumType>(*named(*out, Kind::Enum, "big"));
    CHECK(big.size == 8);
    REQUIRE(big.values.size() == 2);
    CHECK(big.values[0].value == 0); // 0x100000000
    CHECK(big.values[1].value == 7);
    CHECK_FALSE(out->getAs<ir::EnumType>(*named(*out, Kind::Enum, "color")).isSigned);
}

TEST_CASE("amend: float off writes an unsigned INT of the same size") {
    auto out = amend::downgrade(test::allKindsGraph(), without(Feature::Float));
    REQUIRE(out);
    auto d = out->getAs<ir::IntType>(*named(*out, Kind::Int, "double"));
    CHECK(d.size == 8);
    CHECK(d.bits == 64);
    CHECK(d.encoding == 0);
    CHECK(countKind(*out, Kind::Float) == 0);
}

TEST_CASE("amend: decl_tag off removes every DECL_TAG") {
    ir::TypeGraph in = test::allKindsGraph();
    auto out = amend::downgrade(in, without(Feature::DeclTag));
    REQUIRE(out);
    CHECK(countKind(*out, Kind::DeclTag) == 0);
    CHECK(out->ownCount() == in.ownCount() - 3);
}

TEST_CASE("amend: --keep keeps what the names need, their tags and trimmed DATASECs") {
    ir::TypeGraph in = test::allKindsGraph();
    std::vector<std::string> point{"point"};
    auto kept = amend::select(in, amend::Selection::Keep, point);
    REQUIRE(kept);
    // int, int[4], struct point and its tag 'checked'
    CHECK(kept->ownCount() == 4);
    CHECK(named(*kept, Kind::DeclTag, "checked"));

    std::vector<std::string> counter{"counter"};
    kept = amend::select(in, amend::Selection::Keep, counter);
    REQUIRE(kept);
    CHECK(kept->ownCount() == 3); // int, VAR counter, DATASEC .data
    CHECK(test::dump(roundTrip(*kept)) == test::dump(*kept));
}

TEST_CASE("amend: --drop removes the names and what only they need") {
    ir::TypeGraph in = test::allKindsGraph();
    std::vector<std::string> main{"main"};
    auto dropped = amend::select(in, amend::Selection::Drop, main);
    REQUIRE(dropped);
    // FUNC main, its FUNC_PROTO, the user pointer and TYPE_TAG only it uses, its two tags.
    CHECK(dropped->ownCount() == in.ownCount() - 6);
    CHECK_FALSE(named(*dropped, Kind::Func, "main"));
    CHECK(named(*dropped, Kind::Struct, "point"));
    CHECK(test::dump(roundTrip(*dropped)) == test::dump(*dropped));

    std::vector<std::string> counter{"counter"};
    dropped = amend::select(in, amend::Selection::Drop, counter);
    REQUIRE(dropped);
    CHECK(countKind(*dropped, Kind::Datasec) == 0); // a DATASEC with no VAR left goes
}

TEST_CASE("amend: --drop refuses a type others need; unknown names are errors") {
    ir::TypeGraph in = test::allKindsGraph();
    std::vector<std::string> intName{"int"};
    auto refused = amend::select(in, amend::Selection::Drop, intName);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().message().find("still needed by") != std::string::npos);
    std::vector<std::string> unknown{"no_such_type"};
    CHECK_FALSE(amend::select(in, amend::Selection::Keep, unknown));
}

} // namespace
} // namespace btforge
