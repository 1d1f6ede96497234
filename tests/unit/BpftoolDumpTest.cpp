// The bpftool dump formats. Every expected string is the output of the installed bpftool 7.1
// (`bpftool btf dump file X [-j]`) for the same types written as raw BTF by hand, pasted verbatim:
// these tests pin btforge to the reference tool, not to its own earlier output. One addition:
// the attribute-form tags (kind_flag 1: types 24 and 38), whose kind_flag bpftool does not print,
// end with btforge's `kind_flag` field, so that a JSON rewrite keeps them.
#include "BpftoolDump.h"

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <memory>
#include <sstream>
#include <string>

namespace {

using namespace btforge::ir;

std::string dumpText(const TypeGraph& graph) {
    std::ostringstream out;
    btforge::bpftool::writeBpftoolText(graph, out);
    return out.str();
}

std::string dumpJson(const TypeGraph& graph) {
    std::ostringstream out;
    btforge::bpftool::writeBpftoolJson(graph, out);
    return out.str();
}

// Every kind, and every quirk of the two formats, in 40 types.
TypeGraph everyKindGraph() {
    TypeGraph g;
    auto s = [&](std::string_view text) { return g.intern(text); };

    g.add(IntType{s("int"), 4, int_encoding::kSigned, 0, 32}); // 1
    g.add(IntType{s("char"), 1, int_encoding::kChar, 0, 8});   // 2
    g.add(IntType{s("_Bool"), 1, int_encoding::kBool, 0, 8});  // 3
    g.add(IntType{s("unsigned int"), 4, 0, 0, 32});            // 4
    // Every byte the JSON escaping treats specially, raw control bytes and UTF-8; SIGNED|CHAR.
    g.add(IntType{s("a\tb\nc\rd\fe\bf\\g\"h'i/j\001k\177l\303\251"), 8, 3, 3, 5}); // 5
    g.add(IntType{s("odd"), 1, 8, 0, 8});                                          // 6
    g.add(PtrType{kNoName, 1});                                                    // 7
    g.add(PtrType{s("p"), kVoidType});                                             // 8
    g.add(ArrayType{kNoName, 1, 4, 10});                                           // 9

    // Without kind_flag a member offset is all 32 bits and there is never a bitfield size.
    const std::array plain{Member{s("a"), 1, 0, 0}, Member{s("b"), 4, 0x01000020, 0}};
    g.add(StructType{s("plain"), 8, plain}); // 10
    const std::array bitfields{Member{s("x"), 1, 0, 3}, Member{s("y"), 4, 3, 5},
                               Member{s("z"), 1, 32, 0}, Member{kNoName, 12, 40, 0}};
    g.add(StructType{s("bf"), 8, bitfields, true}); // 11
    g.add(UnionType{kNoName, 0, {}});               // 12

    // ENUM reads only the low 32 bits: a loader may sign-extend them (SA) or not (SC).
    const std::array unsignedValues{Enumerator{s("UA"), 0}, Enumerator{s("UB"), 0x80000000},
                                    Enumerator{s("UC"), 0xffffffff}};
    g.add(EnumType{s("ue"), 4, unsignedValues, false}); // 13
    const std::array signedValues{Enumerator{s("SA"), UINT64_MAX}, Enumerator{s("SB"), 5},
                                  Enumerator{s("SC"), 0x80000000}};
    g.add(EnumType{s("se"), 4, signedValues, true}); // 14
    g.add(EnumType{kNoName, 4, {}, false});          // 15
    const std::array unsigned64{Enumerator{s("U64A"), 1}, Enumerator{s("U64B"), UINT64_MAX},
                                Enumerator{s("U64C"), 1ull << 32}};
    g.add(Enum64Type{s("ue64"), 8, unsigned64, false}); // 16
    const std::array signed64{Enumerator{s("S64A"), UINT64_MAX},
                              Enumerator{s("S64B"), uint64_t{INT64_MAX}},
                              Enumerator{s("S64C"), uint64_t(-(int64_t{1} << 32))},
                              Enumerator{s("S64D"), uint64_t{1} << 63}};
    g.add(Enum64Type{s("se64"), 8, signed64, true}); // 17

    g.add(FwdType{s("fs"), false});  // 18
    g.add(FwdType{s("fu"), true});   // 19
    g.add(TypedefType{s("t"), 1});   // 20
    g.add(VolatileType{kNoName, 1}); // 21
    g.add(ConstType{kNoName, 21});   // 22
    g.add(RestrictType{kNoName, 7}); // 23
    // bpftool 7.1 ignores kind_flag on TYPE_TAG and DECL_TAG; btforge shows it.
    g.add(TypeTagType{s("user"), 1, true}); // 24

    const std::array varargs{Param{s("a"), 1}, Param{s("b"), 7}, Param{kNoName, kVoidType}};
    g.add(FuncProtoType{kNoName, 1, varargs});                     // 25
    g.add(FuncProtoType{kNoName, kVoidType, {}});                  // 26
    g.add(FuncType{s("f_static"), 25, FuncLinkage::Static});       // 27
    g.add(FuncType{s("f_global"), 25, FuncLinkage::Global});       // 28
    g.add(FuncType{s("f_extern"), 26, FuncLinkage::Extern});       // 29
    g.add(FuncType{s("f_odd"), 26, static_cast<FuncLinkage>(3)});  // 30
    g.add(VarType{s("v_static"), 1, VarLinkage::Static});          // 31
    g.add(VarType{s("v_global"), 4, VarLinkage::GlobalAllocated}); // 32
    g.add(VarType{s("v_extern"), 1, VarLinkage::GlobalExtern});    // 33
    g.add(VarType{s("v_odd"), 1, static_cast<VarLinkage>(7)});     // 34

    // Annotated in text when the id is below the type count: void, non-VARs, the last type;
    // 41 (the count itself) and 999 are not.
    const std::array entries{VarSecInfo{31, 0, 4},  VarSecInfo{32, 4, 4},  VarSecInfo{0, 8, 4},
                             VarSecInfo{1, 12, 4},  VarSecInfo{15, 16, 4}, VarSecInfo{40, 20, 4},
                             VarSecInfo{41, 24, 4}, VarSecInfo{999, 28, 4}};
    g.add(DatasecType{s(".data"), 64, entries});         // 35
    g.add(FloatType{s("double"), 8});                    // 36
    g.add(DeclTagType{s("tag_on_type"), 10, -1});        // 37
    g.add(DeclTagType{s("tag_on_member"), 10, 1, true}); // 38

    // A non-zero name offset at a NUL is the empty string '', not (anon).
    StrId emptyName = s("tail") + 4;
    REQUIRE(g.str(emptyName).empty());
    g.add(TypedefType{emptyName, 1}); // 39
    // A name offset past the string section.
    g.add(ConstType{100000, 1}); // 40
    REQUIRE(g.endId() == 41);
    return g;
}

} // namespace

TEST_CASE("Bpftool text dump of every kind matches bpftool") {
    CHECK(dumpText(everyKindGraph()) ==
          "[1] INT 'int' size=4 bits_offset=0 nr_bits=32 encoding=SIGNED\n"
          "[2] INT 'char' size=1 bits_offset=0 nr_bits=8 encoding=CHAR\n"
          "[3] INT '_Bool' size=1 bits_offset=0 nr_bits=8 encoding=BOOL\n"
          "[4] INT 'unsigned int' size=4 bits_offset=0 nr_bits=32 encoding=(none)\n"
          "[5] INT 'a\tb\nc\015d\014e\010f\\g\"h'i/j\001k\177l\303\251' size=8 bits_offset=3 "
          "nr_bits=5 encoding=UNKN\n"
          "[6] INT 'odd' size=1 bits_offset=0 nr_bits=8 encoding=UNKN\n"
          "[7] PTR '(anon)' type_id=1\n"
          "[8] PTR 'p' type_id=0\n"
          "[9] ARRAY '(anon)' type_id=1 index_type_id=4 nr_elems=10\n"
          "[10] STRUCT 'plain' size=8 vlen=2\n"
          "\t'a' type_id=1 bits_offset=0\n"
          "\t'b' type_id=4 bits_offset=16777248\n"
          "[11] STRUCT 'bf' size=8 vlen=4\n"
          "\t'x' type_id=1 bits_offset=0 bitfield_size=3\n"
          "\t'y' type_id=4 bits_offset=3 bitfield_size=5\n"
          "\t'z' type_id=1 bits_offset=32\n"
          "\t'(anon)' type_id=12 bits_offset=40\n"
          "[12] UNION '(anon)' size=0 vlen=0\n"
          "[13] ENUM 'ue' encoding=UNSIGNED size=4 vlen=3\n"
          "\t'UA' val=0\n"
          "\t'UB' val=2147483648\n"
          "\t'UC' val=4294967295\n"
          "[14] ENUM 'se' encoding=SIGNED size=4 vlen=3\n"
          "\t'SA' val=-1\n"
          "\t'SB' val=5\n"
          "\t'SC' val=-2147483648\n"
          "[15] ENUM '(anon)' encoding=UNSIGNED size=4 vlen=0\n"
          "[16] ENUM64 'ue64' encoding=UNSIGNED size=8 vlen=3\n"
          "\t'U64A' val=1ULL\n"
          "\t'U64B' val=18446744073709551615ULL\n"
          "\t'U64C' val=4294967296ULL\n"
          "[17] ENUM64 'se64' encoding=SIGNED size=8 vlen=4\n"
          "\t'S64A' val=-1LL\n"
          "\t'S64B' val=9223372036854775807LL\n"
          "\t'S64C' val=-4294967296LL\n"
          "\t'S64D' val=-9223372036854775808LL\n"
          "[18] FWD 'fs' fwd_kind=struct\n"
          "[19] FWD 'fu' fwd_kind=union\n"
          "[20] TYPEDEF 't' type_id=1\n"
          "[21] VOLATILE '(anon)' type_id=1\n"
          "[22] CONST '(anon)' type_id=21\n"
          "[23] RESTRICT '(anon)' type_id=7\n"
          "[24] TYPE_TAG 'user' type_id=1 kind_flag=1\n"
          "[25] FUNC_PROTO '(anon)' ret_type_id=1 vlen=3\n"
          "\t'a' type_id=1\n"
          "\t'b' type_id=7\n"
          "\t'(anon)' type_id=0\n"
          "[26] FUNC_PROTO '(anon)' ret_type_id=0 vlen=0\n"
          "[27] FUNC 'f_static' type_id=25 linkage=static\n"
          "[28] FUNC 'f_global' type_id=25 linkage=global\n"
          "[29] FUNC 'f_extern' type_id=26 linkage=extern\n"
          "[30] FUNC 'f_odd' type_id=26 linkage=(unknown)\n"
          "[31] VAR 'v_static' type_id=1, linkage=static\n"
          "[32] VAR 'v_global' type_id=4, linkage=global\n"
          "[33] VAR 'v_extern' type_id=1, linkage=extern\n"
          "[34] VAR 'v_odd' type_id=1, linkage=(unknown)\n"
          "[35] DATASEC '.data' size=64 vlen=8\n"
          "\ttype_id=31 offset=0 size=4 (VAR 'v_static')\n"
          "\ttype_id=32 offset=4 size=4 (VAR 'v_global')\n"
          "\ttype_id=0 offset=8 size=4 (UNKNOWN '(anon)')\n"
          "\ttype_id=1 offset=12 size=4 (INT 'int')\n"
          "\ttype_id=15 offset=16 size=4 (ENUM '(anon)')\n"
          "\ttype_id=40 offset=20 size=4 (CONST '(invalid)')\n"
          "\ttype_id=41 offset=24 size=4\n"
          "\ttype_id=999 offset=28 size=4\n"
          "[36] FLOAT 'double' size=8\n"
          "[37] DECL_TAG 'tag_on_type' type_id=10 component_idx=-1\n"
          "[38] DECL_TAG 'tag_on_member' type_id=10 component_idx=1 kind_flag=1\n"
          "[39] TYPEDEF '' type_id=1\n"
          "[40] CONST '(invalid)' type_id=1\n");
}

TEST_CASE("Bpftool JSON dump of every kind matches bpftool -j") {
    CHECK(dumpJson(everyKindGraph()) ==
          R"j({"types":[)j"
          R"j({"id":1,"kind":"INT","name":"int","size":4,"bits_offset":0,)j"
          R"j("nr_bits":32,"encoding":"SIGNED"},)j"
          R"j({"id":2,"kind":"INT","name":"char","size":1,"bits_offset":0,)j"
          R"j("nr_bits":8,"encoding":"CHAR"},)j"
          R"j({"id":3,"kind":"INT","name":"_Bool","size":1,"bits_offset":0,)j"
          R"j("nr_bits":8,"encoding":"BOOL"},)j"
          R"j({"id":4,"kind":"INT","name":"unsigned int","size":4,"bits_offset":0,)j"
          R"j("nr_bits":32,"encoding":"(none)"},)j"
          "{\"id\":5,\"kind\":\"INT\",\"name\":\"a\\tb\\nc\\rd\\fe\\bf\\ng\\\"h'i/"
          "j\001k\177l\303\251\","
          R"j("size":8,"bits_offset":3,"nr_bits":5,"encoding":"UNKN"},)j"
          R"j({"id":6,"kind":"INT","name":"odd","size":1,"bits_offset":0,)j"
          R"j("nr_bits":8,"encoding":"UNKN"},)j"
          R"j({"id":7,"kind":"PTR","name":"(anon)","type_id":1},)j"
          R"j({"id":8,"kind":"PTR","name":"p","type_id":0},)j"
          R"j({"id":9,"kind":"ARRAY","name":"(anon)","type_id":1,"index_type_id":4,)j"
          R"j("nr_elems":10},)j"
          R"j({"id":10,"kind":"STRUCT","name":"plain","size":8,"vlen":2,"members":[)j"
          R"j({"name":"a","type_id":1,"bits_offset":0},)j"
          R"j({"name":"b","type_id":4,"bits_offset":16777248}]},)j"
          R"j({"id":11,"kind":"STRUCT","name":"bf","size":8,"vlen":4,"members":[)j"
          R"j({"name":"x","type_id":1,"bits_offset":0,"bitfield_size":3},)j"
          R"j({"name":"y","type_id":4,"bits_offset":3,"bitfield_size":5},)j"
          R"j({"name":"z","type_id":1,"bits_offset":32},)j"
          R"j({"name":"(anon)","type_id":12,"bits_offset":40}]},)j"
          R"j({"id":12,"kind":"UNION","name":"(anon)","size":0,"vlen":0,)j"
          R"j("members":[]},)j"
          R"j({"id":13,"kind":"ENUM","name":"ue","encoding":"UNSIGNED","size":4,)j"
          R"j("vlen":3,"values":[)j"
          R"j({"name":"UA","val":0},)j"
          R"j({"name":"UB","val":18446744071562067968},)j"
          R"j({"name":"UC","val":18446744073709551615}]},)j"
          R"j({"id":14,"kind":"ENUM","name":"se","encoding":"SIGNED","size":4,)j"
          R"j("vlen":3,"values":[)j"
          R"j({"name":"SA","val":-1},)j"
          R"j({"name":"SB","val":5},)j"
          R"j({"name":"SC","val":-2147483648}]},)j"
          R"j({"id":15,"kind":"ENUM","name":"(anon)","encoding":"UNSIGNED",)j"
          R"j("size":4,"vlen":0,"values":[]},)j"
          R"j({"id":16,"kind":"ENUM64","name":"ue64","encoding":"UNSIGNED",)j"
          R"j("size":8,"vlen":3,"values":[)j"
          R"j({"name":"U64A","val":1},)j"
          R"j({"name":"U64B","val":18446744073709551615},)j"
          R"j({"name":"U64C","val":4294967296}]},)j"
          R"j({"id":17,"kind":"ENUM64","name":"se64","encoding":"SIGNED","size":8,)j"
          R"j("vlen":4,"values":[)j"
          R"j({"name":"S64A","val":-1},)j"
          R"j({"name":"S64B","val":9223372036854775807},)j"
          R"j({"name":"S64C","val":-4294967296},)j"
          R"j({"name":"S64D","val":-9223372036854775808}]},)j"
          R"j({"id":18,"kind":"FWD","name":"fs","fwd_kind":"struct"},)j"
          R"j({"id":19,"kind":"FWD","name":"fu","fwd_kind":"union"},)j"
          R"j({"id":20,"kind":"TYPEDEF","name":"t","type_id":1},)j"
          R"j({"id":21,"kind":"VOLATILE","name":"(anon)","type_id":1},)j"
          R"j({"id":22,"kind":"CONST","name":"(anon)","type_id":21},)j"
          R"j({"id":23,"kind":"RESTRICT","name":"(anon)","type_id":7},)j"
          R"j({"id":24,"kind":"TYPE_TAG","name":"user","type_id":1,"kind_flag":1},)j"
          R"j({"id":25,"kind":"FUNC_PROTO","name":"(anon)","ret_type_id":1,)j"
          R"j("vlen":3,"params":[)j"
          R"j({"name":"a","type_id":1},)j"
          R"j({"name":"b","type_id":7},)j"
          R"j({"name":"(anon)","type_id":0}]},)j"
          R"j({"id":26,"kind":"FUNC_PROTO","name":"(anon)","ret_type_id":0,)j"
          R"j("vlen":0,"params":[]},)j"
          R"j({"id":27,"kind":"FUNC","name":"f_static","type_id":25,)j"
          R"j("linkage":"static"},)j"
          R"j({"id":28,"kind":"FUNC","name":"f_global","type_id":25,)j"
          R"j("linkage":"global"},)j"
          R"j({"id":29,"kind":"FUNC","name":"f_extern","type_id":26,)j"
          R"j("linkage":"extern"},)j"
          R"j({"id":30,"kind":"FUNC","name":"f_odd","type_id":26,)j"
          R"j("linkage":"(unknown)"},)j"
          R"j({"id":31,"kind":"VAR","name":"v_static","type_id":1,)j"
          R"j("linkage":"static"},)j"
          R"j({"id":32,"kind":"VAR","name":"v_global","type_id":4,)j"
          R"j("linkage":"global"},)j"
          R"j({"id":33,"kind":"VAR","name":"v_extern","type_id":1,)j"
          R"j("linkage":"extern"},)j"
          R"j({"id":34,"kind":"VAR","name":"v_odd","type_id":1,)j"
          R"j("linkage":"(unknown)"},)j"
          R"j({"id":35,"kind":"DATASEC","name":".data","size":64,"vlen":8,"vars":[)j"
          R"j({"type_id":31,"offset":0,"size":4},)j"
          R"j({"type_id":32,"offset":4,"size":4},)j"
          R"j({"type_id":0,"offset":8,"size":4},)j"
          R"j({"type_id":1,"offset":12,"size":4},)j"
          R"j({"type_id":15,"offset":16,"size":4},)j"
          R"j({"type_id":40,"offset":20,"size":4},)j"
          R"j({"type_id":41,"offset":24,"size":4},)j"
          R"j({"type_id":999,"offset":28,"size":4}]},)j"
          R"j({"id":36,"kind":"FLOAT","name":"double","size":8},)j"
          R"j({"id":37,"kind":"DECL_TAG","name":"tag_on_type","type_id":10,)j"
          R"j("component_idx":-1},)j"
          R"j({"id":38,"kind":"DECL_TAG","name":"tag_on_member","type_id":10,)j"
          R"j("component_idx":1,"kind_flag":1},)j"
          R"j({"id":39,"kind":"TYPEDEF","name":"","type_id":1},)j"
          R"j({"id":40,"kind":"CONST","name":"(invalid)","type_id":1}]})j"
          "\n");
}

TEST_CASE("Bpftool dump of an empty graph") {
    TypeGraph empty;
    CHECK(dumpText(empty).empty());
    CHECK(dumpJson(empty) == "{\"types\":[]}\n");
}

// Base ids 1-2; the split graph's ids continue at 3 and its names may be base strings.
TEST_CASE("Bpftool dump of a split graph prints only its own types, naming base ones") {
    auto base = std::make_shared<TypeGraph>();
    base->add(IntType{base->intern("int"), 4, int_encoding::kSigned, 0, 32});
    base->add(IntType{base->intern("char"), 1, int_encoding::kSigned, 0, 8});

    TypeGraph split(base);
    auto s = [&](std::string_view text) { return split.intern(text); };
    split.add(PtrType{kNoName, 1}); // 3
    const std::array members{Member{s("m"), 3, 0, 0}, Member{s("int"), 2, 32, 0}};
    split.add(StructType{s("mystruct"), 8, members});            // 4
    split.add(TypedefType{s("char"), 1});                        // 5
    split.add(VarType{s("sv"), 4, VarLinkage::GlobalAllocated}); // 6
    // The annotation reaches into the base; 8 is the combined type count, so it gets none.
    const std::array entries{VarSecInfo{6, 0, 8}, VarSecInfo{1, 8, 4}, VarSecInfo{2, 12, 1},
                             VarSecInfo{8, 13, 1}};
    split.add(DatasecType{s(".bss"), 16, entries}); // 7
    REQUIRE(split.firstId() == 3);
    REQUIRE(s("char") < base->strings().endId());

    CHECK(dumpText(split) == "[3] PTR '(anon)' type_id=1\n"
                             "[4] STRUCT 'mystruct' size=8 vlen=2\n"
                             "\t'm' type_id=3 bits_offset=0\n"
                             "\t'int' type_id=2 bits_offset=32\n"
                             "[5] TYPEDEF 'char' type_id=1\n"
                             "[6] VAR 'sv' type_id=4, linkage=global\n"
                             "[7] DATASEC '.bss' size=16 vlen=4\n"
                             "\ttype_id=6 offset=0 size=8 (VAR 'sv')\n"
                             "\ttype_id=1 offset=8 size=4 (INT 'int')\n"
                             "\ttype_id=2 offset=12 size=1 (INT 'char')\n"
                             "\ttype_id=8 offset=13 size=1\n");
    CHECK(dumpJson(split) ==
          R"j({"types":[)j"
          R"j({"id":3,"kind":"PTR","name":"(anon)","type_id":1},)j"
          R"j({"id":4,"kind":"STRUCT","name":"mystruct","size":8,"vlen":2,)j"
          R"j("members":[)j"
          R"j({"name":"m","type_id":3,"bits_offset":0},)j"
          R"j({"name":"int","type_id":2,"bits_offset":32}]},)j"
          R"j({"id":5,"kind":"TYPEDEF","name":"char","type_id":1},)j"
          R"j({"id":6,"kind":"VAR","name":"sv","type_id":4,"linkage":"global"},)j"
          R"j({"id":7,"kind":"DATASEC","name":".bss","size":16,"vlen":4,"vars":[)j"
          R"j({"type_id":6,"offset":0,"size":8},)j"
          R"j({"type_id":1,"offset":8,"size":4},)j"
          R"j({"type_id":2,"offset":12,"size":1},)j"
          R"j({"type_id":8,"offset":13,"size":1}]}]})j"
          "\n");
}

// Output many times the writer's buffer, with one name longer than the whole buffer. The
// expectation is built by pattern; bpftool prints exactly this for the same types as raw BTF.
TEST_CASE("Bpftool dump larger than the output buffer") {
    TypeGraph g;
    const std::string longName(70000, 'x');
    g.add(IntType{g.intern(longName), 4, int_encoding::kSigned, 0, 32});
    std::string text =
        "[1] INT '" + longName + "' size=4 bits_offset=0 nr_bits=32 encoding=SIGNED\n";
    std::string json = R"j({"types":[{"id":1,"kind":"INT","name":")j" + longName +
                       R"j(","size":4,"bits_offset":0,"nr_bits":32,"encoding":"SIGNED"})j";
    for (TypeId id = 2; id <= 3001; ++id) {
        g.add(PtrType{kNoName, 1});
        text += "[" + std::to_string(id) + "] PTR '(anon)' type_id=1\n";
        json +=
            R"j(,{"id":)j" + std::to_string(id) + R"j(,"kind":"PTR","name":"(anon)","type_id":1})j";
    }
    json += "]}\n";

    CHECK(dumpText(g) == text);
    CHECK(dumpJson(g) == json);
}
