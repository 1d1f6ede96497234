// Raw BTF -> TypeGraph, checking every field before it is used. The type section is walked three
// times: the first pass only finds record boundaries (kind, and vlen against what is left), so the
// second knows the last type id and checks each reference as it decodes; the third checks what
// needs other types (FUNC targets, DECL_TAG components, loops: btf/TypeChecks.h). Records of kinds
// this reader does not know are stepped over by the file's kind-layout section and dropped; the
// first pass renumbers the types after them.
//
// One file over ~600 lines for one job: the passes share the Reader's state (record offsets, the
// renumbering, the record being decoded for messages), which splitting would publish in a header
// for this file alone. The checks across types, which the json loader shares, are TypeChecks.cpp.
#include "btforge/btf/BtfReader.h"

#include "BtfCommon.h"

#include "btforge/btf/BtfFormat.h"
#include "btforge/btf/TypeChecks.h"
#include "btforge/support/MappedFile.h"

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace btforge::btf {
namespace {

using ir::Kind;
using ir::StrId;
using ir::TypeId;

// Where the classic header keeps its fields.
constexpr uint64_t kVersionAt = 2;
constexpr uint64_t kHdrLenAt = 4;
constexpr uint64_t kTypeOffAt = 8;
constexpr uint64_t kTypeLenAt = 12;
constexpr uint64_t kStrOffAt = 16;
constexpr uint64_t kStrLenAt = 20;
constexpr uint64_t kLayoutOffAt = 24;
constexpr uint64_t kLayoutLenAt = 28;

// Offsets inside a type record.
constexpr uint64_t kInfoAt = 4;
constexpr uint64_t kSizeOrTypeAt = 8;

constexpr uint32_t kMaxIntBits = 128;
constexpr uint32_t kMaxLinkage = 2; // static, global, extern (FUNC and VAR alike)

// Bytes a record holds after its 12-byte common part.
uint64_t trailingSize(KindLayout layout, uint32_t vlen) {
    return layout.infoSize + uint64_t{vlen} * layout.elemSize;
}

// Names one field of the record being decoded: "type", "member 2 name", ...
// Plain pointers to literals: one is built for every field read, and used only in a message.
struct Field {
    const char* part;
    const char* list = nullptr;
    uint32_t index = 0;

    std::string str() const {
        if (!list)
            return part;
        return std::string(list) + " " + std::to_string(index) + " " + part;
    }
};

class Reader {
public:
    Reader(std::span<const std::byte> bytes, const ReadOptions& options)
        : bytes_(bytes), options_(options), graph_(options.base) {}

    Expected<ir::TypeGraph> read();

private:
    // The record being decoded, for messages; its name is set once checked.
    struct Current {
        TypeId id = ir::kVoidType;
        Kind kind = Kind::Void;
        uint64_t at = 0;
        StrId name = ir::kNoName;
    };

    Expected<void> readHeader();
    Expected<void> readLayout(uint64_t hdrLen, uint64_t dataSize);
    void dropRecords(std::vector<bool>& dropped);
    void warnDropped() const;
    Expected<void> readStrings();
    Expected<void> findRecords();
    Expected<void> decodeRecords();
    Expected<void> checkTypes();

    // Each adds the record's type to the graph (discarded should a problem be noted).
    template <typename T> void add(const T& type) { graph_.add(type); }
    void decodeRecord(uint32_t info);
    void decodeInt(uint32_t size, uint64_t data);
    template <Kind K> void decodeReference(bool kindFlag);
    template <Kind K> void decodeComposite(uint32_t vlen, bool kindFlag);
    template <Kind K> void decodeEnumeration(uint32_t vlen, bool isSigned);
    template <typename T, typename DecodeOne>
    std::span<const T> decodeList(std::vector<T>& scratch, uint32_t vlen, uint32_t elementSize,
                                  DecodeOne decodeOne);

    // Read and check one reference; a bad one is noted and reads as 0. The usual case inline,
    // the rest (dropped records renumbered, and the message) out of line.
    StrId nameRef(uint64_t at, const Field& field) {
        const StrId name = u32(at);
        return name < stringsEnd_ && graph_.strings().startsText(name) ? name
                                                                       : otherName(at, field);
    }
    TypeId typeRef(uint64_t at, const Field& field) {
        const TypeId type = u32(at);
        return renumbered_.empty() && type < endId_ ? type : otherType(at, field);
    }
    StrId otherName(uint64_t at, const Field& field);
    TypeId otherType(uint64_t at, const Field& field);

    uint32_t u32(uint64_t at) const { return detail::load<uint32_t>(bytes_, at, swap_); }
    uint64_t recordAt(TypeId id) const {
        return typeStart_ + recordOffsets_[id - graph_.firstId()];
    }
    std::string describe(TypeId id, Kind kind, StrId name) const;
    Error error(uint64_t at, std::string_view what) const;
    // Keeps the first problem found while decoding a record.
    void note(uint64_t at, std::string_view what);

    std::span<const std::byte> bytes_;
    const ReadOptions& options_;
    ir::TypeGraph graph_;
    ir::ByteOrder order_ = ir::ByteOrder::Little;
    bool swap_ = false;
    uint64_t typeStart_ = 0;
    uint64_t typeLen_ = 0;
    uint64_t strStart_ = 0;
    uint64_t strLen_ = 0;
    StrId stringsEnd_ = 0; // one past the last valid name offset, the base's included
    std::vector<uint32_t> recordOffsets_; // from the type section's start, one per own type
    std::vector<KindLayout> layout_;      // the file's kind-layout section, by kind number
    TypeId endId_ = 0;
    // When records were dropped: the file's ids run to fileEndId_, and renumbered_ maps each (from
    // the first own id) to the graph's, void for a dropped one. Empty when nothing was dropped.
    TypeId fileEndId_ = 0;
    std::vector<TypeId> renumbered_;
    std::vector<std::pair<uint32_t, uint32_t>> droppedKinds_; // (kind, records), by kind
    uint64_t droppedTags_ = 0; // DECL_TAGs on dropped records, dropped with them
    uint64_t droppedRefs_ = 0;
    Current current_;
    std::optional<Error> failure_;
    std::vector<ir::Member> members_;
    std::vector<ir::Param> params_;
    std::vector<ir::Enumerator> enumerators_;
    std::vector<ir::VarSecInfo> entries_;
};

Expected<ir::TypeGraph> Reader::read() {
    for (auto step : {&Reader::readHeader, &Reader::readStrings, &Reader::findRecords,
                      &Reader::decodeRecords, &Reader::checkTypes}) {
        if (Expected<void> done = (this->*step)(); !done)
            return std::move(done).error();
    }
    warnDropped();
    // Decoded: the types' bytes are not read again (a mapping's pages go back to the file).
    if (options_.owner)
        dropFilePages(bytes_.subspan(typeStart_, typeLen_));
    graph_.setByteOrder(order_);
    judgePointerSize(graph_);
    return std::move(graph_);
}

Expected<void> Reader::readHeader() {
    const uint64_t size = bytes_.size();
    if (size < sizeof kMagic)
        return error(0, "truncated header: " + std::to_string(size) + " bytes");
    const bool littleHost = ir::nativeByteOrder() == ir::ByteOrder::Little;
    const auto magic = detail::load<uint16_t>(bytes_, 0, !littleHost); // as little-endian
    if (magic == kMagic)
        order_ = ir::ByteOrder::Little;
    else if (magic == detail::byteSwap(kMagic))
        order_ = ir::ByteOrder::Big;
    else
        return error(0, "bad magic " + hex(magic) + ": not BTF (0xeb9f in either byte order)");
    swap_ = detail::needsSwap(order_);
    if (size < kMinHeaderSize)
        return error(0, "truncated header: " + std::to_string(size) + " bytes, the header needs " +
                            std::to_string(kMinHeaderSize));
    if (auto version = detail::load<uint8_t>(bytes_, kVersionAt, false); version != kVersion)
        return error(kVersionAt, "unsupported BTF version " + std::to_string(version) +
                                     " (only version 1 is defined)");

    const uint64_t hdrLen = u32(kHdrLenAt);
    if (hdrLen < kMinHeaderSize || hdrLen > size)
        return error(kHdrLenAt, "header length " + std::to_string(hdrLen) + " is not between " +
                                    std::to_string(kMinHeaderSize) + " and the data size " +
                                    std::to_string(size));
    const uint64_t dataSize = size - hdrLen;
    const uint64_t typeOff = u32(kTypeOffAt);
    const uint64_t strOff = u32(kStrOffAt);
    typeLen_ = u32(kTypeLenAt);
    strLen_ = u32(kStrLenAt);
    auto range = [](uint64_t off, uint64_t len) {
        return "[" + hex(off) + ", " + hex(off + len) + ")";
    };
    for (auto [what, off, len, at] : {std::tuple{"type", typeOff, typeLen_, kTypeOffAt},
                                      std::tuple{"string", strOff, strLen_, kStrOffAt}}) {
        if (off + len > dataSize)
            return error(at, std::string(what) + " section " + range(off, len) +
                                 " runs past the end of the data after the header (" +
                                 hex(dataSize) + " bytes)");
    }
    if (typeOff % 4 != 0)
        return error(kTypeOffAt, "type section offset " + hex(typeOff) + " is not 4-byte aligned");
    if (typeLen_ % 4 != 0)
        return error(kTypeLenAt,
                     "type section length " + hex(typeLen_) + " is not a multiple of 4");
    if (typeLen_ != 0 && strLen_ != 0 && typeOff < strOff + strLen_ && strOff < typeOff + typeLen_)
        return error(kStrOffAt, "string section " + range(strOff, strLen_) +
                                    " overlaps the type section " + range(typeOff, typeLen_));
    typeStart_ = hdrLen + typeOff;
    strStart_ = hdrLen + strOff;
    if (hdrLen < kLayoutHeaderSize)
        return {};
    return readLayout(hdrLen, dataSize);
}

Expected<void> Reader::readLayout(uint64_t hdrLen, uint64_t dataSize) {
    const uint64_t off = u32(kLayoutOffAt);
    const uint64_t len = u32(kLayoutLenAt);
    if (len == 0)
        return {};
    const std::string range = "[" + hex(off) + ", " + hex(off + len) + ")";
    if (off + len > dataSize)
        return error(kLayoutOffAt, "layout section " + range +
                                       " runs past the end of the data after the header (" +
                                       hex(dataSize) + " bytes)");
    if (off % 4 != 0)
        return error(kLayoutOffAt, "layout section offset " + hex(off) + " is not 4-byte aligned");
    if (len % kKindLayoutSize != 0)
        return error(kLayoutLenAt, "layout section length " + hex(len) +
                                       " is not a multiple of 4 (struct btf_layout)");
    const uint64_t typeOff = u32(kTypeOffAt);
    const uint64_t strOff = u32(kStrOffAt);
    for (auto [what, secOff, secLen] :
         {std::tuple{"type", typeOff, typeLen_}, std::tuple{"string", strOff, strLen_}}) {
        if (secLen != 0 && off < secOff + secLen && secOff < off + len)
            return error(kLayoutOffAt, "layout section " + range + " overlaps the " +
                                           std::string(what) + " section");
    }
    for (uint64_t at = hdrLen + off; at < hdrLen + off + len; at += kKindLayoutSize)
        layout_.push_back({detail::load<uint8_t>(bytes_, at, false),
                           detail::load<uint8_t>(bytes_, at + 1, false),
                           detail::load<uint16_t>(bytes_, at + 2, swap_)});
    return {};
}

Expected<void> Reader::readStrings() {
    const bool split = graph_.base() != nullptr;
    stringsEnd_ = graph_.strings().endId();
    if (strLen_ == 0) {
        if (split) // a split BTF may add no strings at all
            return {};
        return error(kStrLenAt, "string section is empty: it needs at least the empty name");
    }
    std::span<const char> section(reinterpret_cast<const char*>(bytes_.data() + strStart_),
                                  strLen_);
    if (!split && section.front() != '\0')
        // Split BTF's strings continue its base's, so they start with a name: the likely cause.
        return error(strStart_, "string section does not start with a NUL byte (the empty "
                                "name): if this is split BTF (a module's), give its base with -B");
    if (section.back() != '\0')
        return error(strStart_ + strLen_ - 1, "string section does not end with a NUL byte");
    graph_.strings().adoptSection(section, options_.owner);
    stringsEnd_ = graph_.strings().endId();
    return {};
}

Expected<void> Reader::findRecords() {
    TypeId id = graph_.firstId();
    std::vector<bool> dropped; // by own type, from the first
    // A record takes at least 12 bytes: room for that many, untouched until used, spares the
    // copies (and twice the pages) of growing a vmlinux's 100,000 offsets step by step.
    recordOffsets_.reserve(typeLen_ / kTypeRecordSize);
    for (uint64_t pos = 0; pos < typeLen_; ++id) {
        const uint64_t at = typeStart_ + pos;
        const uint64_t left = typeLen_ - pos;
        if (id > kMaxTypeId)
            return error(at, "type [" + std::to_string(id) + "]: more types than BTF can number");
        if (left < kTypeRecordSize)
            return error(at, "type [" + std::to_string(id) + "]: only " + std::to_string(left) +
                                 " bytes left in the type section, a record needs 12");
        const uint32_t info = u32(at + kInfoAt);
        const uint32_t kind = infoKind(info);
        const bool known = kind != 0 && kind <= ir::kMaxKind;
        const std::optional<KindLayout> described =
            kind != 0 && kind < layout_.size() ? std::optional(layout_[kind]) : std::nullopt;
        if (!known && !described)
            return error(at + kInfoAt, "type [" + std::to_string(id) + "]: unknown kind " +
                                           std::to_string(kind) + " (info " + hex(info) + ")" +
                                           (kind == 0 ? ""
                                                      : ", and no layout section entry "
                                                        "says how long its record is"));
        // Only for a message: built per record, it cost a twentieth of a module's run.
        auto label = [&] { return describe(id, static_cast<Kind>(kind), ir::kNoName); };
        const uint32_t vlen = infoVlen(info);
        const bool funcAddress = kind == static_cast<uint32_t>(Kind::Func) && infoKindFlag(info);
        // Its record is longer, so nothing after it could be read right: stop here.
        if (funcAddress && !options_.funcAddresses)
            return error(at + kInfoAt, label() + ": FUNC with kind_flag set (address-carrying FUNC "
                                                 "extension) is not standard BTF");
        const bool funcAddressKind =
            kind == kFuncAddrKind && options_.funcAddresses && described == kFuncAddrLayout;
        KindLayout layout = known ? standardLayout(static_cast<Kind>(kind)) : *described;
        if (funcAddress)
            layout = kFuncAddrLayout;
        if (layout.infoSize % 4 != 0 || layout.elemSize % 4 != 0)
            return error(at + kInfoAt,
                         label() + ": the layout section gives kind " + std::to_string(kind) + " " +
                             std::to_string(layout.infoSize) + " bytes once and " +
                             std::to_string(layout.elemSize) + " per element: not multiples of 4");
        const uint64_t recordSize = kTypeRecordSize + trailingSize(layout, vlen);
        if (recordSize > left)
            return error(at, label() + ": record of " + std::to_string(recordSize) +
                                 " bytes (vlen " + std::to_string(vlen) +
                                 ") runs past the end of the type section (" +
                                 std::to_string(left) + " bytes left)");
        recordOffsets_.push_back(static_cast<uint32_t>(pos));
        pos += recordSize;
        if (!known && !funcAddressKind) {
            // Most files drop nothing: the marks are made at the first record dropped.
            dropped.resize(recordOffsets_.size() - 1, false);
            dropped.push_back(true);
            auto counted = std::find_if(droppedKinds_.begin(), droppedKinds_.end(),
                                        [&](const auto& k) { return k.first == kind; });
            if (counted == droppedKinds_.end())
                droppedKinds_.emplace_back(kind, 1);
            else
                ++counted->second;
        }
    }
    endId_ = id;
    fileEndId_ = id;
    if (!droppedKinds_.empty()) {
        dropped.resize(recordOffsets_.size(), false);
        dropRecords(dropped);
    }
    return {};
}

// Drops the records marked, and the DECL_TAGs on them (a tag annotates its target, and one on
// void would not read back), then numbers the rest in order.
void Reader::dropRecords(std::vector<bool>& dropped) {
    const TypeId first = graph_.firstId();
    for (size_t i = 0; i < dropped.size(); ++i) {
        const uint64_t at = typeStart_ + recordOffsets_[i];
        if (dropped[i] || infoKind(u32(at + kInfoAt)) != static_cast<uint32_t>(Kind::DeclTag))
            continue;
        const TypeId target = u32(at + kSizeOrTypeAt);
        if (target >= first && target < fileEndId_ && dropped[target - first]) {
            dropped[i] = true;
            ++droppedTags_;
        }
    }
    std::vector<uint32_t> kept;
    for (size_t i = 0; i < dropped.size(); ++i) {
        renumbered_.push_back(dropped[i] ? ir::kVoidType
                                         : first + static_cast<TypeId>(kept.size()));
        if (!dropped[i])
            kept.push_back(recordOffsets_[i]);
    }
    recordOffsets_ = std::move(kept);
    endId_ = first + static_cast<TypeId>(recordOffsets_.size());
    std::sort(droppedKinds_.begin(), droppedKinds_.end());
}

void Reader::warnDropped() const {
    if (droppedKinds_.empty() || !options_.warning)
        return;
    uint64_t records = 0;
    std::string kinds;
    for (auto [kind, count] : droppedKinds_) {
        records += count;
        kinds += (kinds.empty() ? "" : ", ") + std::string("kind ") + std::to_string(kind) + ": " +
                 std::to_string(count);
    }
    const std::string& source = options_.sourceName;
    options_.warning((source.empty() ? std::string("BTF") : source) + ": dropped " +
                     std::to_string(records) + " types of kinds btforge does not know (" + kinds +
                     "), stepped over as the layout section describes them" +
                     (droppedTags_ ? ", and " + std::to_string(droppedTags_) + " DECL_TAGs on them"
                                   : std::string()) +
                     "; " + std::to_string(droppedRefs_) + " references to them read as void");
}

Expected<void> Reader::decodeRecords() {
    graph_.reserve(recordOffsets_.size());
    for (TypeId id = graph_.firstId(); id < endId_; ++id) {
        const uint64_t at = recordAt(id);
        const uint32_t info = u32(at + kInfoAt);
        // findRecords kept kFuncAddrKind only as the layout-described FUNC address form.
        const uint32_t kind = infoKind(info);
        current_ = {id, kind == kFuncAddrKind ? Kind::Func : static_cast<Kind>(kind), at,
                    ir::kNoName};
        current_.name = nameRef(at, {"name"});
        decodeRecord(info);
        if (failure_)
            return std::move(*failure_);
    }
    return {};
}

void Reader::decodeRecord(uint32_t info) {
    const uint64_t at = current_.at;
    const uint64_t data = at + kTypeRecordSize;
    const StrId name = current_.name;
    const uint32_t sizeOrType = u32(at + kSizeOrTypeAt);
    const uint32_t vlen = infoVlen(info);
    const bool flag = infoKindFlag(info);
    switch (current_.kind) {
    case Kind::Int:
        return decodeInt(sizeOrType, data);
    case Kind::Ptr:
        return decodeReference<Kind::Ptr>(flag);
    case Kind::Typedef:
        return decodeReference<Kind::Typedef>(flag);
    case Kind::Volatile:
        return decodeReference<Kind::Volatile>(flag);
    case Kind::Const:
        return decodeReference<Kind::Const>(flag);
    case Kind::Restrict:
        return decodeReference<Kind::Restrict>(flag);
    case Kind::TypeTag:
        return decodeReference<Kind::TypeTag>(flag);
    case Kind::Array:
        return add(ir::ArrayType{name, typeRef(data, {"element type"}),
                                 typeRef(data + 4, {"index type"}), u32(data + 8)});
    case Kind::Struct:
        return decodeComposite<Kind::Struct>(vlen, flag);
    case Kind::Union:
        return decodeComposite<Kind::Union>(vlen, flag);
    case Kind::Enum:
        return decodeEnumeration<Kind::Enum>(vlen, flag);
    case Kind::Enum64:
        return decodeEnumeration<Kind::Enum64>(vlen, flag);
    case Kind::Fwd:
        return add(ir::FwdType{name, flag});
    case Kind::Func: {
        if (vlen > kMaxLinkage)
            note(at + kInfoAt, "linkage " + std::to_string(vlen) +
                                   " is none of static (0), global (1), extern (2)");
        // findRecords admitted both address forms only with the option.
        std::optional<uint64_t> address;
        if (flag || infoKind(info) == kFuncAddrKind)
            address = detail::load<uint64_t>(bytes_, data, swap_);
        return add(ir::FuncType{name, typeRef(at + kSizeOrTypeAt, {"type"}),
                                static_cast<ir::FuncLinkage>(vlen), address});
    }
    case Kind::FuncProto: {
        auto params = decodeList(params_, vlen, kParamSize, [&](uint64_t p, uint32_t i) {
            return ir::Param{nameRef(p, {"name", "param", i}),
                             typeRef(p + 4, {"type", "param", i})};
        });
        return add(ir::FuncProtoType{name, typeRef(at + kSizeOrTypeAt, {"return type"}), params});
    }
    case Kind::Var: {
        const uint32_t linkage = u32(data);
        if (linkage > kMaxLinkage)
            note(data, "linkage " + std::to_string(linkage) +
                           " is none of static (0), global allocated (1), global extern (2)");
        return add(ir::VarType{name, typeRef(at + kSizeOrTypeAt, {"type"}),
                               static_cast<ir::VarLinkage>(linkage)});
    }
    case Kind::Datasec: {
        auto entries = decodeList(entries_, vlen, kVarSecInfoSize, [&](uint64_t e, uint32_t i) {
            return ir::VarSecInfo{typeRef(e, {"type", "entry", i}), u32(e + 4), u32(e + 8)};
        });
        return add(ir::DatasecType{name, sizeOrType, entries});
    }
    case Kind::Float:
        return add(ir::FloatType{name, sizeOrType});
    case Kind::DeclTag: {
        const auto component = static_cast<int32_t>(u32(data));
        if (component < -1)
            note(data, "component_idx " + std::to_string(component) + " is negative but not -1");
        return add(ir::DeclTagType{name, typeRef(at + kSizeOrTypeAt, {"type"}), component, flag});
    }
    case Kind::Void: // unreachable: findRecords kept kinds 1-19 and the FUNC address kind
        break;
    }
}

void Reader::decodeInt(uint32_t size, uint64_t data) {
    const uint32_t word = u32(data);
    const ir::IntType type{current_.name, size, static_cast<uint8_t>((word >> 24) & 0x0f),
                           static_cast<uint8_t>((word >> 16) & 0xff),
                           static_cast<uint8_t>(word & 0xff)};
    // Reserved bits are left alone, as libbpf does; only sizes no value can have are refused.
    const uint32_t usedBits = uint32_t{type.bitOffset} + type.bits;
    if (usedBits > kMaxIntBits)
        note(data, "bit offset " + std::to_string(type.bitOffset) + " + " +
                       std::to_string(type.bits) + " bits exceed 128");
    else if (usedBits > uint64_t{size} * 8)
        note(data, "bit offset " + std::to_string(type.bitOffset) + " + " +
                       std::to_string(type.bits) + " bits do not fit in " + std::to_string(size) +
                       " bytes");
    add(type);
}

template <Kind K> void Reader::decodeReference(bool kindFlag) {
    add(ir::ReferenceType<K>{current_.name, typeRef(current_.at + kSizeOrTypeAt, {"type"}),
                             kindFlag});
}

template <Kind K> void Reader::decodeComposite(uint32_t vlen, bool kindFlag) {
    auto members = decodeList(members_, vlen, kMemberSize, [&](uint64_t m, uint32_t i) {
        const uint32_t word = u32(m + 8);
        return ir::Member{nameRef(m, {"name", "member", i}), typeRef(m + 4, {"type", "member", i}),
                          kindFlag ? memberBitOffset(word) : word,
                          kindFlag ? memberBitfieldSize(word) : 0};
    });
    add(ir::CompositeType<K>{current_.name, u32(current_.at + kSizeOrTypeAt), members, kindFlag});
}

template <Kind K> void Reader::decodeEnumeration(uint32_t vlen, bool isSigned) {
    constexpr bool wide = K == Kind::Enum64;
    auto values = decodeList(
        enumerators_, vlen, wide ? kEnum64ValueSize : kEnumValueSize, [&](uint64_t e, uint32_t i) {
            uint64_t value = u32(e + 4);
            if (wide)
                value |= uint64_t{u32(e + 8)} << 32;
            return ir::Enumerator{nameRef(e, {"name", "enumerator", i}), value};
        });
    add(ir::EnumerationType<K>{current_.name, u32(current_.at + kSizeOrTypeAt), values, isSigned});
}

// findRecords checked that the vlen elements fit, so scratch never grows past the section.
template <typename T, typename DecodeOne>
std::span<const T> Reader::decodeList(std::vector<T>& scratch, uint32_t vlen, uint32_t elementSize,
                                      DecodeOne decodeOne) {
    scratch.clear();
    const uint64_t first = current_.at + kTypeRecordSize;
    for (uint32_t i = 0; i < vlen; ++i)
        scratch.push_back(decodeOne(first + uint64_t{i} * elementSize, i));
    return scratch;
}

// The names nameRef does not settle: one past the strings (noted, read as no name), and one
// inside another text or at its NUL, which BTF allows (a writer may share a text's tail): that
// one is read as its text from the start, so that one text keeps one id, which merging compares
// names by (StringPool::uniqueStrings).
StrId Reader::otherName(uint64_t at, const Field& field) {
    const StrId name = u32(at);
    if (name >= stringsEnd_) {
        note(at, field.str() + " offset " + hex(name) + " is past the end of the strings (" +
                     hex(graph_.strings().endId()) + ")");
        return ir::kNoName;
    }
    const std::string text(graph_.strings().get(name));
    return text.empty() ? ir::kNoName : graph_.intern(text);
}

TypeId Reader::otherType(uint64_t at, const Field& field) {
    const TypeId type = u32(at);
    if (!renumbered_.empty() && type < fileEndId_) {
        if (type < graph_.firstId())
            return type;
        const TypeId now = renumbered_[type - graph_.firstId()];
        droppedRefs_ += now == ir::kVoidType;
        return now;
    }
    const TypeId fileEnd = renumbered_.empty() ? endId_ : fileEndId_;
    note(at, field.str() + " refers to type [" + std::to_string(type) + "], past the last type [" +
                 std::to_string(fileEnd - 1) + "]");
    return ir::kVoidType;
}

Expected<void> Reader::checkTypes() {
    const std::optional<TypeFault> fault = findTypeFault(graph_);
    if (!fault)
        return {};
    uint64_t at = recordAt(fault->id);
    if (fault->field == TypeFault::Field::Target)
        at += kSizeOrTypeAt;
    else if (fault->field == TypeFault::Field::ComponentIndex)
        at += kTypeRecordSize;
    return error(at, fault->what);
}

std::string Reader::describe(TypeId id, Kind kind, StrId name) const {
    std::string out = "type [" + std::to_string(id) + "] " + std::string(ir::kindName(kind));
    if (std::string_view s = graph_.str(name); !s.empty())
        out += " " + quoted(s);
    return out;
}

Error Reader::error(uint64_t at, std::string_view what) const {
    const std::string& source = options_.sourceName;
    return Error::badInput((source.empty() ? std::string("BTF") : source) + ": offset " + hex(at) +
                           ": " + std::string(what));
}

void Reader::note(uint64_t at, std::string_view what) {
    if (!failure_)
        failure_ = error(at, describe(current_.id, current_.kind, current_.name) + ": " +
                                 std::string(what));
}

} // namespace

Expected<ir::TypeGraph> readBtf(std::span<const std::byte> bytes, const ReadOptions& options) {
    return Reader(bytes, options).read();
}

void judgePointerSize(ir::TypeGraph& graph) {
    for (ir::TypeId id = graph.firstId(); id < graph.endId(); ++id) {
        if (graph.kind(id) != ir::Kind::Int)
            continue;
        auto type = graph.getAs<ir::IntType>(id);
        std::string_view name = graph.str(type.name);
        if ((type.size == 4 || type.size == 8) &&
            (name == "long" || name == "long int" || name == "unsigned long" ||
             name == "long unsigned int" || name == "unsigned long int")) {
            graph.setPointerSize(static_cast<uint8_t>(type.size));
            return;
        }
    }
}

bool looksLikeBtf(std::span<const std::byte> head) {
    if (head.size() < sizeof kMagic)
        return false;
    const auto magic = detail::load<uint16_t>(head, 0, false);
    return magic == kMagic || magic == detail::byteSwap(kMagic);
}

} // namespace btforge::btf
