// TypeGraph: the common type IR every loader fills and every emitter reads.
//
// Storage is columnar: one fixed 20-byte record per type plus one arena per kind of list
// (members, params, enumerators, DATASEC entries). There is no heap node per type, so the ~3
// million types of a kernel before dedup stay cheap. A graph may continue a base graph (split
// BTF): its ids start after the base's last id and lookups below that go to the base.
#pragma once

#include "btforge/ir/Kind.h"
#include "btforge/ir/StringPool.h"
#include "btforge/ir/Types.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

namespace btforge::ir {

enum class ByteOrder : uint8_t { Little, Big };
ByteOrder nativeByteOrder();

// A compile unit a type was read from (DWARF loaders); kNoCu where unknown.
using CuId = uint32_t;
inline constexpr CuId kNoCu = UINT32_MAX;

class TypeGraph {
public:
    explicit TypeGraph(std::shared_ptr<const TypeGraph> base = nullptr);
    TypeGraph(TypeGraph&&) = default;
    TypeGraph& operator=(TypeGraph&&) = default;

    // --- ids ---
    TypeId firstId() const { return firstId_; }                 // first id owned by this graph
    TypeId endId() const { return firstId_ + ownCount(); }      // one past the last id
    uint32_t ownCount() const { return static_cast<uint32_t>(records_.size()); }
    bool contains(TypeId id) const { return id < endId(); } // void and the base included
    bool isOwn(TypeId id) const { return id >= firstId_ && id < endId(); }
    const TypeGraph* base() const { return base_.get(); }
    std::shared_ptr<const TypeGraph> sharedBase() const { return base_; }

    // --- reading ---
    Kind kind(TypeId id) const;
    StrId nameId(TypeId id) const;
    std::string_view name(TypeId id) const { return strings_->get(nameId(id)); }
    TypeView get(TypeId id) const;
    template <typename T> T getAs(TypeId id) const { return std::get<T>(get(id)); }

    // The type a reference kind, FUNC, VAR, DECL_TAG or ARRAY (element) points to; void otherwise.
    TypeId target(TypeId id) const;

    std::string_view str(StrId id) const { return strings_->get(id); }
    StringPool& strings() { return *strings_; }
    const StringPool& strings() const { return *strings_; }
    StrId intern(std::string_view s) { return strings_->intern(s); }

    // --- building ---
    // Each add copies the view's lists into the arenas and returns the new id.
    TypeId add(const TypeView& view);
    // Replaces an own type in place (dedup and amending rewrite types; ids stay stable).
    void replace(TypeId id, const TypeView& view);
    // Rewrites every type id stored in own types (targets, members, params, entries).
    void remapTypeIds(const std::function<TypeId(TypeId)>& map);
    // Keeps own types for which keep(id) is true, in order, renumbering the survivors and every
    // reference to them with `newId` (from the returned table: old own index -> new id or 0).
    std::vector<TypeId> compact(const std::function<bool(TypeId)>& keep);
    void reserve(size_t types);

    // --- facts beyond BTF ---
    void setOrigin(TypeId id, CuId cu);
    CuId origin(TypeId id) const;
    ByteOrder byteOrder() const { return byteOrder_; }
    void setByteOrder(ByteOrder order) { byteOrder_ = order; }

    // Bytes of heap the graph holds (records, arenas, strings): for memory reports.
    size_t memoryUsage() const;

private:
    struct Record {
        StrId name;
        Kind kind;
        uint8_t flag;       // BTF kind_flag
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

    const Record& record(TypeId id) const;
    Record encode(const TypeView& view);
    template <typename T> uint32_t appendList(std::vector<T>& arena, std::span<const T> items);
    uint32_t appendPlacement(std::optional<uint64_t> address, StrId section);

    std::shared_ptr<const TypeGraph> base_;
    std::shared_ptr<StringPool> strings_;
    TypeId firstId_ = 1;
    ByteOrder byteOrder_;
    std::vector<Record> records_;
    std::vector<Member> members_;
    std::vector<Param> params_;
    std::vector<Enumerator> enumerators_;
    std::vector<VarSecInfo> secinfos_;
    std::vector<Placement> placements_;
    std::vector<CuId> origins_; // empty until the first setOrigin
};

// The size in bytes of a value of this type (through typedefs, qualifiers and arrays; pointers
// are 8 bytes), or nullopt for void, functions and forward declarations.
std::optional<uint64_t> sizeOf(const TypeGraph& graph, TypeId id);

} // namespace btforge::ir
