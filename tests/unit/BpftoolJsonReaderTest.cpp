// The json loader's reader: what it makes of the documents bpftool prints and of edited ones.
// Hostile documents and the byte-for-byte round trips through bpftool are integration tests
// (json-errors.sh, json-roundtrip.sh).
#include "BpftoolJsonReader.h"

#include <doctest/doctest.h>

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace {

using namespace btforge;
using namespace btforge::ir;

Expected<TypeGraph> read(std::string_view text, std::shared_ptr<const TypeGraph> base = nullptr) {
    return json::readBpftoolJson(std::as_bytes(std::span(text.data(), text.size())),
                                 {"t.json", std::move(base)});
}

} // namespace

TEST_CASE("BpftoolJsonReader: ids with gaps and out of order are numbered in id order") {
    auto graph = read(R"j({"types":[
        {"id":30,"kind":"PTR","name":"(anon)","type_id":10},
        {"id":10,"kind":"STRUCT","name":"node","size":8,"members":[
            {"name":"next","type_id":30,"bits_offset":0}]},
        {"id":20,"kind":"TYPEDEF","name":"node_t","type_id":10}]
})j");
    REQUIRE(graph);
    REQUIRE(graph->endId() == 4);
    const auto node = graph->getAs<StructType>(1);
    CHECK(graph->str(node.name) == "node");
    REQUIRE(node.members.size() == 1); // no "vlen": it may be left out
    CHECK(node.members[0].type == 3);
    CHECK(graph->getAs<TypedefType>(2).type == 1);
    CHECK(graph->getAs<PtrType>(3).type == 1);
    CHECK(graph->getAs<PtrType>(3).name == kNoName); // "(anon)"
}

TEST_CASE("BpftoolJsonReader: split documents continue the base and refer to its types") {
    auto base = std::make_shared<TypeGraph>();
    base->add(IntType{base->intern("int"), 4, int_encoding::kSigned, 0, 32});
    auto graph = read(R"j({"types":[{"id":3,"kind":"CONST","name":"(anon)","type_id":1
}]
})j",
                      base);
    REQUIRE(graph);
    CHECK(graph->firstId() == 2);
    CHECK(graph->getAs<ConstType>(2).type == 1);

    auto inBase = read(R"j({"types":[{"id":1,"kind":"CONST","name":"(anon)","type_id":0
    }]
    })j",
                       base);
    REQUIRE_FALSE(inBase);
    CHECK(inBase.error().message() ==
          "t.json: /types/0/id: id 1 is inside the base's ids (1 to 1): split BTF's types "
          "continue after its base's");
}

TEST_CASE("BpftoolJsonReader: enumerator values in bpftool's spellings") {
    // bpftool prints an unsigned ENUM's 0x80000000 sign-extended to 64 bits.
    auto graph = read(R"j({"types":[
        {"id":1,"kind":"ENUM","name":"u","encoding":"UNSIGNED","size":4,"vlen":3,"values":[
            {"name":"A","val":18446744071562067968},{"name":"B","val":2147483648},
            {"name":"C","val":4294967295}]},
        {"id":2,"kind":"ENUM","name":"s","encoding":"SIGNED","size":4,"vlen":1,"values":[
            {"name":"D","val":-3}]},
        {"id":3,"kind":"ENUM64","name":"w","encoding":"UNSIGNED","size":8,"vlen":1,"values":[
            {"name":"E","val":18446744073709551615}]}]})j");
    REQUIRE(graph);
    const auto u = graph->getAs<EnumType>(1);
    CHECK_FALSE(u.isSigned);
    CHECK(u.values[0].value == 0x80000000);
    CHECK(u.values[1].value == 0x80000000);
    CHECK(u.values[2].value == 0xffffffff);
    const auto s = graph->getAs<EnumType>(2);
    CHECK(s.isSigned);
    CHECK(s.values[0].value == 0xfffffffd); // ENUM keeps the low 32 bits
    CHECK(graph->getAs<Enum64Type>(3).values[0].value == ~uint64_t{0});
}

TEST_CASE("BpftoolJsonReader: bitfields, FUNC addresses and kinds' words") {
    auto graph = read(R"j({"types":[
        {"id":1,"kind":"INT","name":"int","size":4,"bits_offset":0,"nr_bits":32,"encoding":"SIGNED"},
        {"id":2,"kind":"STRUCT","name":"flags","size":4,"vlen":2,"members":[
            {"name":"a","type_id":1,"bits_offset":0,"bitfield_size":3},
            {"name":"b","type_id":1,"bits_offset":3,"bitfield_size":5}]},
        {"id":3,"kind":"FUNC_PROTO","name":"(anon)","ret_type_id":1,"vlen":2,"params":[
            {"name":"x","type_id":1},{"name":"(anon)","type_id":0}]},
        {"id":4,"kind":"FUNC","name":"f","type_id":3,"linkage":"static","addr":"0xffffffff81000010"},
        {"id":5,"kind":"FWD","name":"u","fwd_kind":"union"},
        {"id":6,"kind":"DECL_TAG","name":"tag","type_id":2,"component_idx":1}]
})j");
    REQUIRE(graph);
    const auto flags = graph->getAs<StructType>(2);
    CHECK(flags.kindFlag); // set because a member has a bitfield_size, as the BTF writer sets it
    CHECK(flags.members[1].bitOffset == 3);
    CHECK(flags.members[1].bitfieldSize == 5);
    const auto proto = graph->getAs<FuncProtoType>(3);
    CHECK(proto.params[1].type == kVoidType); // varargs
    const auto func = graph->getAs<FuncType>(4);
    CHECK(func.linkage == FuncLinkage::Static);
    CHECK(func.address == 0xffffffff81000010);
    CHECK(graph->getAs<FwdType>(5).isUnion);
    CHECK(graph->getAs<DeclTagType>(6).componentIndex == 1);
}

TEST_CASE("BpftoolJsonReader: tags' attribute form (kind_flag), absent in bpftool's JSON") {
    auto graph = read(R"j({"types":[
        {"id":1,"kind":"INT","name":"int","size":4,"bits_offset":0,"nr_bits":32,"encoding":"SIGNED"},
        {"id":2,"kind":"TYPE_TAG","name":"address_space(1)","type_id":1,"kind_flag":1},
        {"id":3,"kind":"TYPE_TAG","name":"user","type_id":1},
        {"id":4,"kind":"TYPE_TAG","name":"rcu","type_id":1,"kind_flag":0},
        {"id":5,"kind":"DECL_TAG","name":"bpf_fastcall","type_id":1,"component_idx":-1,"kind_flag":1},
        {"id":6,"kind":"DECL_TAG","name":"kfunc","type_id":1,"component_idx":-1}]
})j");
    REQUIRE(graph);
    CHECK(graph->getAs<TypeTagType>(2).kindFlag);
    CHECK_FALSE(graph->getAs<TypeTagType>(3).kindFlag);
    CHECK_FALSE(graph->getAs<TypeTagType>(4).kindFlag);
    CHECK(graph->getAs<DeclTagType>(5).kindFlag);
    CHECK_FALSE(graph->getAs<DeclTagType>(6).kindFlag);

    // Only 0 and 1, and only on tags.
    auto two = read(R"j({"types":[
        {"id":1,"kind":"TYPE_TAG","name":"t","type_id":0,"kind_flag":2}]})j");
    REQUIRE_FALSE(two);
    CHECK(two.error().message().find("/types/0/kind_flag") != std::string::npos);
    auto onPointer = read(R"j({"types":[
        {"id":1,"kind":"PTR","name":"(anon)","type_id":0,"kind_flag":1}]})j");
    REQUIRE_FALSE(onPointer);
    CHECK(onPointer.error().message().find("kind_flag") != std::string::npos);
}
