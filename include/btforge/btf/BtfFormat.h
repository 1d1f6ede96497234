// The BTF wire format (Documentation/bpf/btf.rst): header layout, info-word packing and record
// sizes. Shared by the reader and the writer so the two can never disagree.
#pragma once

#include <cstdint>

namespace btforge::btf {

inline constexpr uint16_t kMagic = 0xEB9F;
inline constexpr uint8_t kVersion = 1;
// The classic header; a producer may write a longer one (hdr_len says how long).
inline constexpr uint32_t kMinHeaderSize = 24;

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

// Classic packing: vlen in bits 0-15, kind in bits 24-28, kind_flag in bit 31.
inline constexpr uint32_t kMaxVlen = 0xffff;
constexpr uint32_t infoVlen(uint32_t info) { return info & 0xffff; }
constexpr uint32_t infoKind(uint32_t info) { return (info >> 24) & 0x1f; }
constexpr bool infoKindFlag(uint32_t info) { return (info >> 31) != 0; }
constexpr uint32_t makeInfo(uint32_t kind, uint32_t vlen, bool kindFlag) {
    return (kindFlag ? 1u << 31 : 0u) | (kind << 24) | (vlen & 0xffff);
}

// Member offset word when the composite's kind_flag is set.
constexpr uint32_t memberBitOffset(uint32_t word) { return word & 0xffffff; }
constexpr uint32_t memberBitfieldSize(uint32_t word) { return word >> 24; }

inline constexpr uint32_t kMaxTypeId = (1u << 31) - 1;

} // namespace btforge::btf
