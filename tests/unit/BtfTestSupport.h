// Inputs the BTF reader and writer tests share: a graph holding every kind, a text dump to compare
// graphs by content, and a builder for hand-made (often broken) little-endian blobs.
#pragma once

#include "btforge/btf/BtfFormat.h"
#include "btforge/btf/BtfReader.h"
#include "btforge/btf/BtfWriter.h"
#include "btforge/ir/TypeGraph.h"

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace btforge::test {

using Bytes = std::vector<std::byte>;

// Every kind 1-19, with kind flags, bitfields, a signed enum, varargs, a self pointer and tags on
// a member and a parameter.
inline ir::TypeGraph allKindsGraph() {
    using namespace ir;
    TypeGraph g;
    auto n = [&](std::string_view s) { return g.intern(s); };
    TypeId intId = g.add(IntType{n("int"), 4, int_encoding::kSigned, 0, 32});
    TypeId ptr = g.add(PtrType{kNoName, intId});
    TypeId array = g.add(ArrayType{kNoName, intId, intId, 4});
    TypeId floatId = g.add(FloatType{n("double"), 8});
    const Member pointMembers[] = {{n("x"), intId, 0, 0},
                                   {n("y"), intId, 32, 0},
                                   {n("flags"), intId, 64, 3},
                                   {n("cells"), array, 96, 0}};
    TypeId point = g.add(StructType{n("point"), 28, pointMembers, true});
    const Member valueMembers[] = {{n("i"), intId, 0, 0}, {n("d"), floatId, 0, 0}};
    g.add(UnionType{n("value"), 8, valueMembers});
    const Enumerator colors[] = {{n("RED"), 0}, {n("BLUE"), 0xffffffff}};
    g.add(EnumType{n("color"), 4, colors, true});
    const Enumerator big[] = {{n("HUGE"), 0x100000000ull}, {n("x"), 7}};
    g.add(Enum64Type{n("big"), 8, big, false});
    g.add(FwdType{n("opaque"), true});
    g.add(TypedefType{n("int_t"), intId});
    TypeId volatileInt = g.add(VolatileType{kNoName, intId});
    g.add(ConstType{kNoName, volatileInt});
    g.add(RestrictType{kNoName, ptr});
    TypeId userInt = g.add(TypeTagType{n("user"), intId, true});
    TypeId userPtr = g.add(PtrType{kNoName, userInt});
    const Param params[] = {{n("argc"), intId}, {n("argv"), userPtr}, {kNoName, kVoidType}};
    TypeId proto = g.add(FuncProtoType{kNoName, intId, params});
    TypeId main = g.add(FuncType{n("main"), proto, FuncLinkage::Global});
    TypeId counter = g.add(VarType{n("counter"), intId, VarLinkage::GlobalAllocated});
    const VarSecInfo data[] = {{counter, 0, 4}};
    g.add(DatasecType{n(".data"), 4, data});
    g.add(DeclTagType{n("checked"), point, 1});
    g.add(DeclTagType{n("nonnull"), main, 1, true});
    g.add(DeclTagType{n("hot"), main, -1});
    TypeId node = g.endId(); // a struct that points to itself
    TypeId nodePtr = node + 1;
    const Member nodeMembers[] = {{n("next"), nodePtr, 0, 0}, {n("value"), intId, 64, 0}};
    g.add(StructType{n("node"), 16, nodeMembers});
    g.add(PtrType{kNoName, node});
    return g;
}

// One line per own type with every field and names spelled out, so graphs compare by content.
inline std::string dump(const ir::TypeGraph& g) {
    std::string out;
    auto name = [&](ir::StrId id) { return "'" + std::string(g.str(id)) + "'"; };
    auto num = [](auto v) { return std::to_string(v); };
    for (ir::TypeId id = g.firstId(); id < g.endId(); ++id) {
        out += "[" + num(id) + "] " + std::string(ir::kindName(g.kind(id))) + " ";
        std::visit(
            [&](const auto& t) {
                using T = std::decay_t<decltype(t)>;
                if constexpr (!std::is_same_v<T, ir::VoidType>)
                    out += name(t.name);
                if constexpr (std::is_same_v<T, ir::IntType>)
                    out += " size=" + num(t.size) + " enc=" + num(t.encoding) +
                           " off=" + num(t.bitOffset) + " bits=" + num(t.bits);
                else if constexpr (std::is_same_v<T, ir::DeclTagType>)
                    out += " type=" + num(t.type) + " component=" + num(t.componentIndex) +
                           " kflag=" + num(t.kindFlag);
                else if constexpr (ir::isReferenceKind(T::kKind))
                    out += " type=" + num(t.type) + " kflag=" + num(t.kindFlag);
                else if constexpr (std::is_same_v<T, ir::ArrayType>)
                    out += " elem=" + num(t.elemType) + " index=" + num(t.indexType) +
                           " count=" + num(t.count);
                else if constexpr (requires { t.members; }) {
                    out += " size=" + num(t.size) + " kflag=" + num(t.kindFlag);
                    for (const ir::Member& m : t.members)
                        out += " " + name(m.name) + ":" + num(m.type) + "@" + num(m.bitOffset) +
                               "/" + num(m.bitfieldSize);
                } else if constexpr (requires { t.values; }) {
                    out += " size=" + num(t.size) + " signed=" + num(t.isSigned);
                    for (const ir::Enumerator& e : t.values)
                        out += " " + name(e.name) + "=" + num(e.value);
                } else if constexpr (std::is_same_v<T, ir::FwdType>)
                    out += " union=" + num(t.isUnion);
                else if constexpr (std::is_same_v<T, ir::FuncType>)
                    out += " proto=" + num(t.proto) + " linkage=" + num(int(t.linkage)) +
                           (t.address ? " addr=" + num(*t.address) : "");
                else if constexpr (std::is_same_v<T, ir::FuncProtoType>) {
                    out += " ret=" + num(t.returnType);
                    for (const ir::Param& p : t.params)
                        out += " " + name(p.name) + ":" + num(p.type);
                } else if constexpr (std::is_same_v<T, ir::VarType>)
                    out += " type=" + num(t.type) + " linkage=" + num(int(t.linkage));
                else if constexpr (std::is_same_v<T, ir::DatasecType>) {
                    out += " size=" + num(t.size);
                    for (const ir::VarSecInfo& e : t.entries)
                        out += " " + num(e.type) + "@" + num(e.offset) + "+" + num(e.size);
                } else if constexpr (std::is_same_v<T, ir::FloatType>)
                    out += " size=" + num(t.size);
            },
            g.get(id));
        out += "\n";
    }
    return out;
}

inline void put32(Bytes& out, uint32_t v) {
    for (int i = 0; i < 4; ++i)
        out.push_back(std::byte((v >> (8 * i)) & 0xff));
}

inline uint32_t get32(const Bytes& b, size_t at) {
    uint32_t v = 0;
    for (int i = 3; i >= 0; --i)
        v = v << 8 | std::to_integer<uint32_t>(b.at(at + i));
    return v;
}

inline void patch32(Bytes& b, size_t at, uint32_t v) {
    for (int i = 0; i < 4; ++i)
        b.at(at + i) = std::byte((v >> (8 * i)) & 0xff);
}

// The string section of a blob as the writer lays it out (24-byte header, types, strings).
inline std::string stringSection(const Bytes& blob) {
    const uint32_t typeLen = get32(blob, 12);
    return std::string(reinterpret_cast<const char*>(blob.data()) + 24 + typeLen,
                       blob.size() - 24 - typeLen);
}

// Hand-made little-endian BTF: type records as words, strings as given.
struct RawBtf {
    std::vector<uint32_t> words;
    std::string strings = std::string(1, '\0');

    uint32_t str(std::string_view s) {
        auto at = static_cast<uint32_t>(strings.size());
        strings.append(s);
        strings.push_back('\0');
        return at;
    }
    RawBtf& type(uint32_t name, ir::Kind kind, uint32_t vlen, bool kindFlag, uint32_t sizeOrType,
                 std::initializer_list<uint32_t> rest = {}) {
        return record(name, btf::makeInfo(uint32_t(kind), vlen, kindFlag), sizeOrType, rest);
    }
    RawBtf& record(uint32_t name, uint32_t info, uint32_t sizeOrType,
                   std::initializer_list<uint32_t> rest = {}) {
        words.insert(words.end(), {name, info, sizeOrType});
        words.insert(words.end(), rest);
        return *this;
    }
    // hdrLen > 24 pads the header with zeros; typeOff puts that many zero bytes before the types.
    Bytes bytes(uint32_t hdrLen = 24, uint32_t typeOff = 0) const {
        Bytes out = {std::byte{0x9f}, std::byte{0xeb}, std::byte{1}, std::byte{0}};
        auto typeLen = static_cast<uint32_t>(words.size() * 4);
        for (uint32_t field :
             {hdrLen, typeOff, typeLen, typeOff + typeLen, static_cast<uint32_t>(strings.size())})
            put32(out, field);
        out.resize(hdrLen + typeOff);
        for (uint32_t w : words)
            put32(out, w);
        for (char c : strings)
            out.push_back(std::byte(c));
        return out;
    }
};

inline Bytes written(const ir::TypeGraph& g, std::optional<ir::ByteOrder> order = std::nullopt) {
    auto blob = btf::writeBtf(g, {order});
    REQUIRE(blob);
    return *blob;
}

inline Expected<ir::TypeGraph> read(const Bytes& blob,
                                    std::shared_ptr<const ir::TypeGraph> base = nullptr) {
    return btf::readBtf(blob, {"test.btf", std::move(base)});
}

} // namespace btforge::test
