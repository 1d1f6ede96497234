// TypeGraph: the common type IR every loader fills and every emitter reads.
//
// Storage is columnar: one fixed 20-byte record per type plus one arena per kind of list
// (members, params, enumerators, DATASEC entries), all in chunks (ChunkedArena.h). There is no
// heap node per type, so the ~3 million types of a kernel before dedup stay cheap. A graph may
// continue a base graph (split BTF): its ids start after the base's last id and lookups below that
// go to the base.
#pragma once

#include "btforge/Export.h"
#include "btforge/ir/ChunkedArena.h"
#include "btforge/ir/Kind.h"
#include "btforge/ir/StringPool.h"
#include "btforge/ir/Types.h"

#include <cassert>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <type_traits>
#include <vector>

namespace btforge::ir {

enum class ByteOrder : uint8_t { Little, Big };
BTFORGE_API ByteOrder nativeByteOrder();

class BTFORGE_API TypeGraph {
public:
    explicit TypeGraph(std::shared_ptr<const TypeGraph> base = nullptr);
    TypeGraph(TypeGraph&&) = default;
    TypeGraph& operator=(TypeGraph&&) = default;

    // --- ids ---
    TypeId firstId() const { return firstId_; }            // first id owned by this graph
    TypeId endId() const { return firstId_ + ownCount(); } // one past the last id
    uint32_t ownCount() const { return static_cast<uint32_t>(records_.size()); }
    bool contains(TypeId id) const { return id < endId(); } // void and the base included
    bool isOwn(TypeId id) const { return id >= firstId_ && id < endId(); }
    const TypeGraph* base() const { return base_.get(); }
    // For a graph built over the same base (conversions and amending rewrite a split graph's own
    // types).
    const std::shared_ptr<const TypeGraph>& sharedBase() const { return base_; }

    // --- reading ---
    // Inline for own types: every pass over a graph asks these for each type.
    Kind kind(TypeId id) const { return id >= firstId_ ? record(id).kind : kindBelow(id); }
    StrId nameId(TypeId id) const { return id >= firstId_ ? record(id).name : nameIdBelow(id); }
    std::string_view name(TypeId id) const { return strings_->get(nameId(id)); }
    TypeView get(TypeId id) const;
    template <typename T> T getAs(TypeId id) const { return std::get<T>(get(id)); }
    // Calls f with the type as its struct from Types.h (VoidType for void) and returns what f
    // returns: get() without building a TypeView, for hot paths that switch on the kind anyway.
    template <typename F> std::invoke_result_t<F&, const VoidType&> visit(TypeId id, F&& f) const;

    // The type a reference kind, FUNC, VAR, DECL_TAG or ARRAY (element) points to; void otherwise.
    TypeId target(TypeId id) const;

    std::string_view str(StrId id) const { return strings_->get(id); }
    StringPool& strings() { return *strings_; }
    const StringPool& strings() const { return *strings_; }
    StrId intern(std::string_view s) { return strings_->intern(s); }

    // --- building ---
    // Each add copies the view's lists into the arenas and returns the new id.
    TypeId add(const TypeView& view);
    // The same for one kind's struct from Types.h (not VoidType), without building a TypeView:
    // readers add types one at a time.
    template <typename T>
    requires(!std::is_same_v<T, VoidType> && !std::is_same_v<T, TypeView>) TypeId
        add(const T& type) {
        records_.push_back(encodeAs(type));
        return endId() - 1;
    }
    // Replaces an own type in place (dedup and amending rewrite types; ids stay stable).
    void replace(TypeId id, const TypeView& view);
    void reserve(size_t types);
    // The bytes this graph holds, its strings included and its base's not (--stats).
    size_t memoryUsage() const;

    // --- facts beyond BTF ---
    ByteOrder byteOrder() const { return byteOrder_; }
    void setByteOrder(ByteOrder order) { byteOrder_ = order; }
    // The target's pointer size in bytes: BTF does not record it, so DWARF and ELF inputs give
    // it, and raw BTF is judged by its `long` (as libbpf does).
    uint8_t pointerSize() const { return pointerSize_; }
    void setPointerSize(uint8_t bytes) { pointerSize_ = bytes; }
    // Byte order and pointer size as `other` has them: a graph rebuilt from another describes
    // the same target.
    void setTargetAs(const TypeGraph& other) {
        byteOrder_ = other.byteOrder_;
        pointerSize_ = other.pointerSize_;
    }

private:
    friend struct ImageAccess; // base images (BaseImage.h) read and write the storage
    struct Record {
        StrId name;
        Kind kind;
        uint8_t flag; // BTF kind_flag
        uint16_t spare;
        uint32_t sizeOrType; // as in struct btf_type: size, or the referenced type
        uint32_t data;  // INT word; linkage; component index; ARRAY index type; first list index
        uint32_t extra; // list length; ARRAY count; FUNC/VAR: index into placements_, or kNone
    };
    static_assert(sizeof(Record) == 20);
    struct Placement {
        uint64_t address;
        StrId section;
    };
    static constexpr uint32_t kNone = UINT32_MAX;

    const Record& record(TypeId id) const {
        assert(isOwn(id));
        return records_[id - firstId_];
    }
    Record encode(const TypeView& view);
    template <typename T> Record encodeAs(const T& type);
    // kind() and nameId() of void and the base's types.
    Kind kindBelow(TypeId id) const;
    StrId nameIdBelow(TypeId id) const;
    uint32_t appendPlacement(std::optional<uint64_t> address, StrId section);

    std::shared_ptr<const TypeGraph> base_;
    std::shared_ptr<StringPool> strings_;
    TypeId firstId_ = 1;
    ByteOrder byteOrder_;
    uint8_t pointerSize_ = 8;
    ChunkedArena<Record> records_;
    ChunkedArena<Member> members_;
    ChunkedArena<Param> params_;
    ChunkedArena<Enumerator> enumerators_;
    ChunkedArena<VarSecInfo> secinfos_;
    ChunkedArena<Placement> placements_;
};

template <typename F>
std::invoke_result_t<F&, const VoidType&> TypeGraph::visit(TypeId id, F&& f) const {
    if (id < firstId_) {
        if (base_ && id != kVoidType)
            return base_->visit(id, std::forward<F>(f));
        return f(VoidType{});
    }
    const Record& r = record(id);
    auto list = [&](const auto& arena) { return arena.list(r.data, r.extra); };
    auto placedAddress = [&]() -> std::optional<uint64_t> {
        if (r.extra == kNone)
            return std::nullopt;
        return placements_[r.extra].address;
    };
    const bool flag = r.flag != 0;
    switch (r.kind) {
    case Kind::Int:
        return f(IntType{r.name, r.sizeOrType, static_cast<uint8_t>((r.data >> 24) & 0x0f),
                         static_cast<uint8_t>((r.data >> 16) & 0xff),
                         static_cast<uint8_t>(r.data & 0xff)});
    case Kind::Ptr:
        return f(PtrType{r.name, r.sizeOrType, flag});
    case Kind::Typedef:
        return f(TypedefType{r.name, r.sizeOrType, flag});
    case Kind::Volatile:
        return f(VolatileType{r.name, r.sizeOrType, flag});
    case Kind::Const:
        return f(ConstType{r.name, r.sizeOrType, flag});
    case Kind::Restrict:
        return f(RestrictType{r.name, r.sizeOrType, flag});
    case Kind::TypeTag:
        return f(TypeTagType{r.name, r.sizeOrType, flag});
    case Kind::Array:
        return f(ArrayType{r.name, r.sizeOrType, r.data, r.extra});
    case Kind::Struct:
        return f(StructType{r.name, r.sizeOrType, list(members_), flag});
    case Kind::Union:
        return f(UnionType{r.name, r.sizeOrType, list(members_), flag});
    case Kind::Enum:
        return f(EnumType{r.name, r.sizeOrType, list(enumerators_), flag});
    case Kind::Enum64:
        return f(Enum64Type{r.name, r.sizeOrType, list(enumerators_), flag});
    case Kind::Fwd:
        return f(FwdType{r.name, flag});
    case Kind::Func:
        return f(FuncType{r.name, r.sizeOrType, static_cast<FuncLinkage>(r.data), placedAddress()});
    case Kind::FuncProto:
        return f(FuncProtoType{r.name, r.sizeOrType, list(params_)});
    case Kind::Var:
        return f(VarType{r.name, r.sizeOrType, static_cast<VarLinkage>(r.data), placedAddress(),
                         r.extra == kNone ? kNoName : placements_[r.extra].section});
    case Kind::Datasec:
        return f(DatasecType{r.name, r.sizeOrType, list(secinfos_)});
    case Kind::Float:
        return f(FloatType{r.name, r.sizeOrType});
    case Kind::DeclTag:
        return f(DeclTagType{r.name, r.sizeOrType, static_cast<int32_t>(r.data), flag});
    case Kind::Void:
        break;
    }
    return f(VoidType{});
}

template <typename T> TypeGraph::Record TypeGraph::encodeAs(const T& t) {
    static_assert(!std::is_same_v<T, VoidType>, "void is implicit (id 0)");
    Record r{};
    r.kind = T::kKind;
    r.name = t.name;
    if constexpr (std::is_same_v<T, IntType>) {
        r.sizeOrType = t.size;
        r.data = (uint32_t(t.encoding & 0x0f) << 24) | (uint32_t(t.bitOffset) << 16) | t.bits;
    } else if constexpr (isReferenceKind(T::kKind)) {
        r.sizeOrType = t.type;
        r.flag = t.kindFlag;
    } else if constexpr (std::is_same_v<T, ArrayType>) {
        r.sizeOrType = t.elemType;
        r.data = t.indexType;
        r.extra = t.count;
    } else if constexpr (std::is_same_v<T, StructType> || std::is_same_v<T, UnionType>) {
        r.sizeOrType = t.size;
        r.flag = t.kindFlag;
        r.data = members_.append(t.members);
        r.extra = static_cast<uint32_t>(t.members.size());
    } else if constexpr (std::is_same_v<T, EnumType> || std::is_same_v<T, Enum64Type>) {
        r.sizeOrType = t.size;
        r.flag = t.isSigned;
        r.data = enumerators_.append(t.values);
        r.extra = static_cast<uint32_t>(t.values.size());
    } else if constexpr (std::is_same_v<T, FwdType>) {
        r.flag = t.isUnion;
    } else if constexpr (std::is_same_v<T, FuncType>) {
        r.sizeOrType = t.proto;
        r.data = static_cast<uint32_t>(t.linkage);
        r.extra = t.address ? appendPlacement(t.address, kNoName) : kNone;
    } else if constexpr (std::is_same_v<T, FuncProtoType>) {
        r.sizeOrType = t.returnType;
        r.data = params_.append(t.params);
        r.extra = static_cast<uint32_t>(t.params.size());
    } else if constexpr (std::is_same_v<T, VarType>) {
        r.sizeOrType = t.type;
        r.data = static_cast<uint32_t>(t.linkage);
        r.extra = appendPlacement(t.address, t.section);
    } else if constexpr (std::is_same_v<T, DatasecType>) {
        r.sizeOrType = t.size;
        r.data = secinfos_.append(t.entries);
        r.extra = static_cast<uint32_t>(t.entries.size());
    } else if constexpr (std::is_same_v<T, FloatType>) {
        r.sizeOrType = t.size;
    } else if constexpr (std::is_same_v<T, DeclTagType>) {
        r.sizeOrType = t.type;
        r.data = static_cast<uint32_t>(t.componentIndex);
        r.flag = t.kindFlag;
    }
    return r;
}

// The size in bytes of a value of this type (through typedefs, qualifiers and arrays; pointers
// are 8 bytes), or nullopt for void, functions and forward declarations.
BTFORGE_API std::optional<uint64_t> sizeOf(const TypeGraph& graph, TypeId id);

} // namespace btforge::ir
