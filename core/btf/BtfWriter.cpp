// TypeGraph -> raw BTF. The string section is rebuilt from the names the written types use, in
// first-use order, so the bytes depend on the types alone, not on how the pool was filled.
#include "btforge/btf/BtfWriter.h"

#include "BtfCommon.h"

#include "btforge/btf/BtfFormat.h"

#include <algorithm>
#include <limits>
#include <ostream>
#include <string>
#include <string_view>
#include <unordered_map>

namespace btforge::btf {
namespace {

using ir::Kind;
using ir::StrId;
using ir::TypeId;

// The kind_flag member word: bit offset in bits 0-23, bitfield size in bits 24-31.
constexpr uint32_t kMaxFlaggedBitOffset = (1u << 24) - 1;
constexpr uint32_t kMaxBitfieldSize = 0xff;

class Encoder {
public:
    Encoder(const ir::TypeGraph& graph, const WriteOptions& options)
        : graph_(graph), swap_(detail::needsSwap(options.byteOrder.value_or(graph.byteOrder()))),
          funcAddresses_(options.funcAddresses), layout_(options.layout),
          flatten_(options.withBase && graph.base()) {
        if (flatten_) {
            std::vector<const ir::StringPool*> pools;
            for (const ir::StringPool* pool = &graph.strings(); pool; pool = pool->base())
                pools.push_back(pool);
            for (auto pool = pools.rbegin(); pool != pools.rend(); ++pool)
                strings_.insert(strings_.end(), (*pool)->bytes().begin(), (*pool)->bytes().end());
        } else if (const ir::TypeGraph* base = graph.base()) {
            stringsStart_ = base->strings().endId(); // split offsets continue the base's section
        } else {
            strings_.push_back('\0'); // offset 0: the empty name
        }
        offsetOfId_.assign(graph.strings().bytes().size(), kUnknownOffset);
    }

    Expected<std::vector<std::byte>> encode();

private:
    std::vector<std::byte> layoutSection() const;
    Expected<void> encode(TypeId id, const ir::VoidType&);
    Expected<void> encode(TypeId id, const ir::IntType& type);
    template <Kind K> Expected<void> encode(TypeId id, const ir::ReferenceType<K>& type);
    Expected<void> encode(TypeId id, const ir::ArrayType& type);
    template <Kind K> Expected<void> encode(TypeId id, const ir::CompositeType<K>& type);
    template <Kind K> Expected<void> encode(TypeId id, const ir::EnumerationType<K>& type);
    Expected<void> encode(TypeId id, const ir::FwdType& type);
    Expected<void> encode(TypeId id, const ir::FuncType& type);
    Expected<void> encode(TypeId id, const ir::FuncProtoType& type);
    Expected<void> encode(TypeId id, const ir::VarType& type);
    Expected<void> encode(TypeId id, const ir::DatasecType& type);
    Expected<void> encode(TypeId id, const ir::FloatType& type);
    Expected<void> encode(TypeId id, const ir::DeclTagType& type);

    // A list's length as vlen, or the error naming the type when BTF cannot count that far.
    template <typename T>
    Expected<uint32_t> vlenOf(TypeId id, std::span<const T> list, std::string_view what) const;
    void putRecord(StrId name, Kind kind, uint32_t vlen, bool kindFlag, uint32_t sizeOrType) {
        putRecord(name, static_cast<uint32_t>(kind), vlen, kindFlag, sizeOrType);
    }
    void putRecord(StrId name, uint32_t kind, uint32_t vlen, bool kindFlag, uint32_t sizeOrType);
    void put(uint32_t word) { detail::append(types_, word, swap_); }
    uint32_t stringOffset(StrId name);
    Error error(TypeId id, std::string_view what) const;

    const ir::TypeGraph& graph_;
    const bool swap_;
    const bool funcAddresses_;
    const bool layout_;
    const bool flatten_;        // withBase, for a split graph
    bool funcAddrKind_ = false; // a record of kind kFuncAddrKind was written
    std::vector<std::byte> types_;
    std::vector<char> strings_;
    uint64_t stringsStart_ = 0; // the offset strings_[0] gets
    std::unordered_map<std::string_view, uint32_t> offsets_;
    static constexpr uint32_t kUnknownOffset = UINT32_MAX;
    std::vector<uint32_t> offsetOfId_; // by StrId of graph_'s own strings, from its first
};

Expected<std::vector<std::byte>> Encoder::encode() {
    for (TypeId id = flatten_ ? 1 : graph_.firstId(); id < graph_.endId(); ++id) {
        Expected<void> done =
            std::visit([&](const auto& type) { return encode(id, type); }, graph_.get(id));
        if (!done)
            return std::move(done).error();
    }
    // With a layout: header, types, layout, strings, where libbpf expects the layout. Split BTF
    // has the 2026 header but no section of its own: readers use its base's, and upstream pahole
    // writes none there either; unless it holds the FUNC address kind, which its base need not
    // describe (a standard vmlinux does not), so only its own section can.
    const std::vector<std::byte> layout = layout_ && (!graph_.base() || flatten_ || funcAddrKind_)
                                              ? layoutSection()
                                              : std::vector<std::byte>{};
    const uint32_t headerSize = layout_ ? kLayoutHeaderSize : kMinHeaderSize;
    constexpr uint64_t kMaxU32 = std::numeric_limits<uint32_t>::max();
    if (headerSize + types_.size() + layout.size() + strings_.size() > kMaxU32 ||
        stringsStart_ + strings_.size() > kMaxU32)
        return Error::badInput("BTF of " + std::to_string(graph_.ownCount()) +
                               " types would exceed the format's 4 GiB limit");

    const auto typeLen = static_cast<uint32_t>(types_.size());
    const auto layoutLen = static_cast<uint32_t>(layout.size());
    std::vector<std::byte> out;
    out.reserve(headerSize + types_.size() + layout.size() + strings_.size());
    detail::append(out, kMagic, swap_);
    detail::append(out, kVersion, swap_);
    detail::append(out, uint8_t{0}, swap_); // flags
    for (uint32_t field :
         {headerSize, 0u, typeLen, typeLen + layoutLen, static_cast<uint32_t>(strings_.size())})
        detail::append(out, field, swap_); // hdr_len, type_off, type_len, str_off, str_len
    if (layout_) {
        detail::append(out, layout.empty() ? 0u : typeLen, swap_); // layout_off
        detail::append(out, layoutLen, swap_);
    }
    out.insert(out.end(), types_.begin(), types_.end());
    out.insert(out.end(), layout.begin(), layout.end());
    const auto* strings = reinterpret_cast<const std::byte*>(strings_.data());
    out.insert(out.end(), strings, strings + strings_.size());
    return out;
}

Expected<void> Encoder::encode(TypeId id, const ir::VoidType&) {
    return error(id, "is void, which has no record"); // TypeGraph::add refuses it; kept total
}

// Every kind this writer may use, by number: the standard ones, and the FUNC address kind when
// the extension is written.
std::vector<std::byte> Encoder::layoutSection() const {
    std::vector<KindLayout> kinds;
    for (uint32_t kind = 0; kind <= ir::kMaxKind; ++kind)
        kinds.push_back(standardLayout(static_cast<Kind>(kind)));
    if (funcAddresses_) {
        kinds.resize(kFuncAddrKind);
        kinds.push_back(kFuncAddrLayout);
    }
    std::vector<std::byte> out;
    for (const KindLayout& k : kinds) {
        detail::append(out, k.infoSize, swap_);
        detail::append(out, k.elemSize, swap_);
        detail::append(out, k.flags, swap_);
    }
    return out;
}

Expected<void> Encoder::encode(TypeId, const ir::IntType& type) {
    putRecord(type.name, Kind::Int, 0, false, type.size);
    put(uint32_t{type.encoding & 0x0fu} << 24 | uint32_t{type.bitOffset} << 16 | type.bits);
    return {};
}

template <Kind K> Expected<void> Encoder::encode(TypeId, const ir::ReferenceType<K>& type) {
    putRecord(type.name, K, 0, type.kindFlag, type.type);
    return {};
}

Expected<void> Encoder::encode(TypeId, const ir::ArrayType& type) {
    putRecord(type.name, Kind::Array, 0, false, 0);
    put(type.elemType);
    put(type.indexType);
    put(type.count);
    return {};
}

template <Kind K> Expected<void> Encoder::encode(TypeId id, const ir::CompositeType<K>& type) {
    Expected<uint32_t> vlen = vlenOf(id, type.members, "members");
    if (!vlen)
        return std::move(vlen).error();
    const bool bitfields =
        type.kindFlag || std::any_of(type.members.begin(), type.members.end(),
                                     [](const ir::Member& m) { return m.bitfieldSize != 0; });
    for (size_t i = 0; bitfields && i < type.members.size(); ++i) {
        const ir::Member& m = type.members[i];
        if (m.bitOffset > kMaxFlaggedBitOffset || m.bitfieldSize > kMaxBitfieldSize)
            return error(id, "member " + std::to_string(i) + " " + quoted(graph_.str(m.name)) +
                                 " at bit " + std::to_string(m.bitOffset) + " with bitfield size " +
                                 std::to_string(m.bitfieldSize) +
                                 " does not fit the bitfield encoding (24-bit offset, 8-bit size)");
    }
    putRecord(type.name, K, *vlen, bitfields, type.size);
    for (const ir::Member& m : type.members) {
        put(stringOffset(m.name));
        put(m.type);
        put(bitfields ? m.bitfieldSize << 24 | m.bitOffset : m.bitOffset);
    }
    return {};
}

template <Kind K> Expected<void> Encoder::encode(TypeId id, const ir::EnumerationType<K>& type) {
    Expected<uint32_t> vlen = vlenOf(id, type.values, "enumerators");
    if (!vlen)
        return std::move(vlen).error();
    putRecord(type.name, K, *vlen, type.isSigned, type.size);
    for (const ir::Enumerator& e : type.values) {
        put(stringOffset(e.name));
        put(static_cast<uint32_t>(e.value));
        if constexpr (K == Kind::Enum64)
            put(static_cast<uint32_t>(e.value >> 32));
    }
    return {};
}

Expected<void> Encoder::encode(TypeId, const ir::FwdType& type) {
    putRecord(type.name, Kind::Fwd, 0, type.isUnion, 0);
    return {};
}

Expected<void> Encoder::encode(TypeId id, const ir::FuncType& type) {
    if (type.address && !funcAddresses_)
        return error(id, "carries an address (the address-carrying FUNC extension): standard "
                         "BTF cannot hold it; write it with -t btf-func-addr, or convert it with "
                         "--func-addr=merge or --func-addr=decl-tag");
    const auto linkage = static_cast<uint32_t>(type.linkage);
    if (type.address && layout_) { // a kind of its own, which the layout section describes
        putRecord(type.name, kFuncAddrKind, linkage, false, type.proto);
        funcAddrKind_ = true;
    } else { // kind_flag 1 says 8 bytes follow
        putRecord(type.name, Kind::Func, linkage, type.address.has_value(), type.proto);
    }
    if (type.address)
        detail::append(types_, *type.address, swap_);
    return {};
}

Expected<void> Encoder::encode(TypeId id, const ir::FuncProtoType& type) {
    Expected<uint32_t> vlen = vlenOf(id, type.params, "parameters");
    if (!vlen)
        return std::move(vlen).error();
    putRecord(type.name, Kind::FuncProto, *vlen, false, type.returnType);
    for (const ir::Param& p : type.params) {
        put(stringOffset(p.name));
        put(p.type);
    }
    return {};
}

Expected<void> Encoder::encode(TypeId, const ir::VarType& type) {
    putRecord(type.name, Kind::Var, 0, false, type.type);
    put(static_cast<uint32_t>(type.linkage));
    return {};
}

Expected<void> Encoder::encode(TypeId id, const ir::DatasecType& type) {
    Expected<uint32_t> vlen = vlenOf(id, type.entries, "entries");
    if (!vlen)
        return std::move(vlen).error();
    putRecord(type.name, Kind::Datasec, *vlen, false, type.size);
    for (const ir::VarSecInfo& e : type.entries) {
        put(e.type);
        put(e.offset);
        put(e.size);
    }
    return {};
}

Expected<void> Encoder::encode(TypeId, const ir::FloatType& type) {
    putRecord(type.name, Kind::Float, 0, false, type.size);
    return {};
}

Expected<void> Encoder::encode(TypeId, const ir::DeclTagType& type) {
    putRecord(type.name, Kind::DeclTag, 0, type.kindFlag, type.type);
    put(static_cast<uint32_t>(type.componentIndex));
    return {};
}

template <typename T>
Expected<uint32_t> Encoder::vlenOf(TypeId id, std::span<const T> list,
                                   std::string_view what) const {
    // 24-bit vlen came with the layout section: a reader of one knows the other.
    const uint32_t maxVlen = layout_ ? kMaxWideVlen : kMaxVlen;
    if (list.size() > maxVlen)
        return error(id,
                     "has " + std::to_string(list.size()) + " " + std::string(what) +
                         ": BTF allows at most " + std::to_string(maxVlen) +
                         (layout_ ? ""
                                  : " (" + std::to_string(kMaxWideVlen) +
                                        " with the layout feature: --features default,layout)"));
    return static_cast<uint32_t>(list.size());
}

void Encoder::putRecord(StrId name, uint32_t kind, uint32_t vlen, bool kindFlag,
                        uint32_t sizeOrType) {
    put(stringOffset(name));
    put(makeInfo(kind, vlen, kindFlag));
    put(sizeOrType);
}

// Strings the base already has keep the base's offset, as libbpf does for split BTF.
uint32_t Encoder::stringOffset(StrId name) {
    if (flatten_)
        return name;
    // Most names recur (member names above all): by id first, by text on first sight.
    const StrId own = name - graph_.strings().firstId(); // wraps for the base's: not cached
    if (own < offsetOfId_.size() && offsetOfId_[own] != kUnknownOffset)
        return offsetOfId_[own];
    const std::string_view s = graph_.str(name);
    const ir::TypeGraph* base = graph_.base();
    const std::optional<StrId> inBase = base && !s.empty() ? base->strings().find(s) : std::nullopt;
    uint32_t offset = 0; // the empty name
    if (inBase) {
        offset = *inBase;
    } else if (!s.empty()) {
        auto [it, added] =
            offsets_.try_emplace(s, static_cast<uint32_t>(stringsStart_ + strings_.size()));
        if (added) {
            strings_.insert(strings_.end(), s.begin(), s.end());
            strings_.push_back('\0');
        }
        offset = it->second;
    }
    if (own < offsetOfId_.size())
        offsetOfId_[own] = offset;
    return offset;
}

Error Encoder::error(TypeId id, std::string_view what) const {
    std::string label =
        std::string(ir::kindName(graph_.kind(id))) + " [" + std::to_string(id) + "]";
    if (std::string_view name = graph_.name(id); !name.empty())
        label += " " + quoted(name);
    return Error::badInput(label + " " + std::string(what));
}

} // namespace

Expected<std::vector<std::byte>> writeBtf(const ir::TypeGraph& graph, const WriteOptions& options) {
    return Encoder(graph, options).encode();
}

Expected<void> writeBtf(std::ostream& out, const ir::TypeGraph& graph,
                        const WriteOptions& options) {
    auto bytes = writeBtf(graph, options);
    if (!bytes)
        return std::move(bytes).error();
    out.write(reinterpret_cast<const char*>(bytes->data()),
              static_cast<std::streamsize>(bytes->size()));
    return {};
}

} // namespace btforge::btf
