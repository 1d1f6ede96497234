// The BTF wire format (Documentation/bpf/btf.rst): header layout, info-word packing and record
// sizes. Shared by the reader and the writer so the two can never disagree.
#pragma once

#include "btforge/ir/Kind.h"

#include <cstdint>

namespace btforge::btf {

inline constexpr uint16_t kMagic = 0xEB9F;
inline constexpr uint8_t kVersion = 1;
// The classic header; a producer may write a longer one (hdr_len says how long).
inline constexpr uint32_t kMinHeaderSize = 24;
// The 2026 header adds layout_off and layout_len (both relative to the header's end, as the
// other offsets). A header this long or longer has them.
inline constexpr uint32_t kLayoutHeaderSize = 32;

inline constexpr uint32_t kTypeRecordSize = 12; // name_off, info, size/type
inline constexpr uint32_t kMemberSize = 12;
inline constexpr uint32_t kParamSize = 8;
inline constexpr uint32_t kEnumValueSize = 8;
inline constexpr uint32_t kEnum64ValueSize = 12;
inline constexpr uint32_t kVarSecInfoSize = 12;
inline constexpr uint32_t kArraySize = 12;
inline constexpr uint32_t kIntDataSize = 4;
inline constexpr uint32_t kVarDataSize = 4;
inline constexpr uint32_t kDeclTagDataSize = 4;
// The address-carrying FUNC extension: struct btf_func { __u64 addr; } after a FUNC with
// kind_flag 1 (btf/FuncAddrExtension.h).
inline constexpr uint32_t kFuncAddrDataSize = 8;

// 2026 packing: vlen in bits 0-23, kind in bits 24-30, kind_flag in bit 31. Classic BTF used
// 16 bits of vlen and 5 of kind and left the others 0, so one decoding reads both.
inline constexpr uint32_t kMaxVlen = 0xffff;       // what classic readers (old kernels) count to
inline constexpr uint32_t kMaxWideVlen = 0xffffff; // what a layout-aware reader counts to
constexpr uint32_t infoVlen(uint32_t info) {
    return info & 0xffffff;
}
constexpr uint32_t infoKind(uint32_t info) {
    return (info >> 24) & 0x7f;
}
constexpr bool infoKindFlag(uint32_t info) {
    return (info >> 31) != 0;
}
constexpr uint32_t makeInfo(uint32_t kind, uint32_t vlen, bool kindFlag) {
    return (kindFlag ? 1u << 31 : 0u) | ((kind & 0x7f) << 24) | (vlen & 0xffffff);
}

// One entry of the kind-layout section (struct btf_layout), indexed by kind number: how many
// bytes follow the 12-byte record once, and how many per vlen element.
struct KindLayout {
    uint8_t infoSize = 0;
    uint8_t elemSize = 0;
    uint16_t flags = 0; // none defined in 2026

    constexpr bool operator==(const KindLayout&) const = default;
};
inline constexpr uint32_t kKindLayoutSize = 4;

// The layout of each standard kind: what the kind-layout section says of it, and what this
// reader and writer use whatever a file's section says (as libbpf, which trusts it only for kinds
// it does not know).
constexpr KindLayout standardLayout(ir::Kind kind) {
    auto once = [](uint32_t size) { return KindLayout{static_cast<uint8_t>(size), 0, 0}; };
    auto each = [](uint32_t size) { return KindLayout{0, static_cast<uint8_t>(size), 0}; };
    switch (kind) {
    case ir::Kind::Int:
        return once(kIntDataSize);
    case ir::Kind::Array:
        return once(kArraySize);
    case ir::Kind::Var:
        return once(kVarDataSize);
    case ir::Kind::DeclTag:
        return once(kDeclTagDataSize);
    case ir::Kind::Struct:
    case ir::Kind::Union:
        return each(kMemberSize);
    case ir::Kind::Enum:
        return each(kEnumValueSize);
    case ir::Kind::Enum64:
        return each(kEnum64ValueSize);
    case ir::Kind::FuncProto:
        return each(kParamSize);
    case ir::Kind::Datasec:
        return each(kVarSecInfoSize);
    default:
        return {};
    }
}

// The address-carrying FUNC extension in its layout-described form: a kind of its own, laid out
// {info_sz 8, elem_sz 0} (the address), otherwise a FUNC (docs/func-addr-extension.md). 20 is
// the first kind number the 2026 UAPI leaves unassigned.
inline constexpr uint32_t kFuncAddrKind = 20;
inline constexpr KindLayout kFuncAddrLayout{static_cast<uint8_t>(kFuncAddrDataSize), 0, 0};

// Member offset word when the composite's kind_flag is set.
constexpr uint32_t memberBitOffset(uint32_t word) {
    return word & 0xffffff;
}
constexpr uint32_t memberBitfieldSize(uint32_t word) {
    return word >> 24;
}

inline constexpr uint32_t kMaxTypeId = (1u << 31) - 1;

} // namespace btforge::btf
