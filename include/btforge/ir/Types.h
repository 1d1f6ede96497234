// One plain struct per kind, and TypeView, the variant over them. These are what TypeGraph hands
// out and takes in; list members are spans into the graph's arenas, so a view is cheap to copy
// and valid until the graph next grows.
#pragma once

#include "btforge/ir/Kind.h"

#include <cstdint>
#include <optional>
#include <span>
#include <variant>

namespace btforge::ir {

struct Member {
    StrId name = kNoName;
    TypeId type = kVoidType;
    uint32_t bitOffset = 0;
    uint32_t bitfieldSize = 0; // 0: not a bitfield
    friend bool operator==(const Member&, const Member&) = default;
};

struct Param {
    StrId name = kNoName;
    TypeId type = kVoidType; // void as the last parameter means "..." (varargs)
    friend bool operator==(const Param&, const Param&) = default;
};

// Raw value bits; ENUM uses the low 32. The owning enum's isSigned says how to read them.
struct Enumerator {
    StrId name = kNoName;
    uint64_t value = 0;
    friend bool operator==(const Enumerator&, const Enumerator&) = default;
};

struct VarSecInfo {
    TypeId type = kVoidType;
    uint32_t offset = 0;
    uint32_t size = 0;
    friend bool operator==(const VarSecInfo&, const VarSecInfo&) = default;
};

struct VoidType {
    static constexpr Kind kKind = Kind::Void;
};

struct IntType {
    static constexpr Kind kKind = Kind::Int;
    StrId name = kNoName;
    uint32_t size = 0;
    uint8_t encoding = 0; // int_encoding bits
    uint8_t bitOffset = 0;
    uint8_t bits = 0;
};

// PTR, TYPEDEF, VOLATILE, CONST, RESTRICT, TYPE_TAG: a name (usually empty) and a target.
// kindFlag is only meaningful for TYPE_TAG (the attribute form).
template <Kind K> struct ReferenceType {
    static constexpr Kind kKind = K;
    StrId name = kNoName;
    TypeId type = kVoidType;
    bool kindFlag = false;
};
using PtrType = ReferenceType<Kind::Ptr>;
using TypedefType = ReferenceType<Kind::Typedef>;
using VolatileType = ReferenceType<Kind::Volatile>;
using ConstType = ReferenceType<Kind::Const>;
using RestrictType = ReferenceType<Kind::Restrict>;
using TypeTagType = ReferenceType<Kind::TypeTag>;

struct ArrayType {
    static constexpr Kind kKind = Kind::Array;
    StrId name = kNoName;
    TypeId elemType = kVoidType;
    TypeId indexType = kVoidType;
    uint32_t count = 0;
};

// STRUCT and UNION. kindFlag set means members carry bitfield sizes in BTF; a writer also sets it
// whenever a member has a bitfield size, so builders need not.
template <Kind K> struct CompositeType {
    static constexpr Kind kKind = K;
    StrId name = kNoName;
    uint32_t size = 0;
    std::span<const Member> members;
    bool kindFlag = false;
};
using StructType = CompositeType<Kind::Struct>;
using UnionType = CompositeType<Kind::Union>;

template <Kind K> struct EnumerationType {
    static constexpr Kind kKind = K;
    StrId name = kNoName;
    uint32_t size = 0;
    std::span<const Enumerator> values;
    bool isSigned = false; // BTF kind_flag
};
using EnumType = EnumerationType<Kind::Enum>;
using Enum64Type = EnumerationType<Kind::Enum64>;

struct FwdType {
    static constexpr Kind kKind = Kind::Fwd;
    StrId name = kNoName;
    bool isUnion = false; // BTF kind_flag
};

// A function. `address` is set for an instance tied to one ELF address (the DWARF loaders, and
// the address-carrying FUNC extension); standard BTF has no room for it.
struct FuncType {
    static constexpr Kind kKind = Kind::Func;
    StrId name = kNoName;
    TypeId proto = kVoidType;
    FuncLinkage linkage = FuncLinkage::Static;
    std::optional<uint64_t> address;
};

struct FuncProtoType {
    static constexpr Kind kKind = Kind::FuncProto;
    StrId name = kNoName;
    TypeId returnType = kVoidType;
    std::span<const Param> params;
};

// A variable. `address`/`section` come from the ELF symbol table when a DWARF loader knows them;
// BTF keeps only the DATASEC offset.
struct VarType {
    static constexpr Kind kKind = Kind::Var;
    StrId name = kNoName;
    TypeId type = kVoidType;
    VarLinkage linkage = VarLinkage::Static;
    std::optional<uint64_t> address;
    StrId section = kNoName;
};

struct DatasecType {
    static constexpr Kind kKind = Kind::Datasec;
    StrId name = kNoName;
    uint32_t size = 0;
    std::span<const VarSecInfo> entries;
};

struct FloatType {
    static constexpr Kind kKind = Kind::Float;
    StrId name = kNoName;
    uint32_t size = 0;
};

struct DeclTagType {
    static constexpr Kind kKind = Kind::DeclTag;
    StrId name = kNoName; // the tag's value
    TypeId type = kVoidType;
    int32_t componentIndex = -1; // -1: the tag is on the type itself
    bool kindFlag = false;       // attribute form
};

// Alternative index == BTF kind number.
using TypeView =
    std::variant<VoidType, IntType, PtrType, ArrayType, StructType, UnionType, EnumType, FwdType,
                 TypedefType, VolatileType, ConstType, RestrictType, FuncType, FuncProtoType,
                 VarType, DatasecType, FloatType, DeclTagType, TypeTagType, Enum64Type>;

static_assert(std::variant_size_v<TypeView> == kMaxKind + 1);

inline Kind kindOf(const TypeView& view) {
    return static_cast<Kind>(view.index());
}

} // namespace btforge::ir
