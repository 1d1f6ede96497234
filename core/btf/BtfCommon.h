// What the BTF reader and writer share beyond the format constants: fixed-width integers in
// either byte order, and how messages show offsets and names (support/Hex.h, support/Quoted.h).
#pragma once

#include "btforge/ir/TypeGraph.h"
#include "btforge/support/Hex.h"
#include "btforge/support/Quoted.h"

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace btforge::btf::detail {

template <typename T> constexpr T byteSwap(T value) {
    static_assert(std::is_unsigned_v<T>);
    if constexpr (sizeof(T) == 1)
        return value;
    else if constexpr (sizeof(T) == 2)
        return __builtin_bswap16(value);
    else if constexpr (sizeof(T) == 4)
        return __builtin_bswap32(value);
    else
        return __builtin_bswap64(value);
}

inline bool needsSwap(ir::ByteOrder order) {
    return order != ir::nativeByteOrder();
}

// Everything goes through memcpy: a blob comes from a file or an ELF section at any alignment, so
// no pointer into it is ever cast. The caller has checked that the bytes are there.
template <typename T> T load(std::span<const std::byte> bytes, size_t offset, bool swap) {
    T value;
    std::memcpy(&value, bytes.data() + offset, sizeof value);
    return swap ? byteSwap(value) : value;
}

template <typename T> void append(std::vector<std::byte>& out, T value, bool swap) {
    if (swap)
        value = byteSwap(value);
    size_t at = out.size();
    out.resize(at + sizeof value);
    std::memcpy(out.data() + at, &value, sizeof value);
}

} // namespace btforge::btf::detail
