// C identifiers, [A-Za-z_][A-Za-z0-9_]*: the only names the kernel takes in BTF. Mapping checks
// every name a unit holds, so whole words are checked at once, not a byte at a time.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace btforge::support {

constexpr bool isIdentifierStart(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

constexpr bool isIdentifierChar(char c) {
    return isIdentifierStart(c) || (c >= '0' && c <= '9');
}

namespace detail {
inline constexpr uint64_t kOnes = 0x0101010101010101ull;
inline constexpr uint64_t kHighs = kOnes * 0x80;

template <typename Word> Word load(const char* p) {
    Word w;
    std::memcpy(&w, p, sizeof w);
    return w;
}

// The high bit of each byte of `w` that lies in [lo, hi]; every byte of `w` is below 0x80, so
// no sum carries into the next byte.
constexpr uint64_t bytesInRange(uint64_t w, uint8_t lo, uint8_t hi) {
    return (w + kOnes * (0x80u - lo)) & ~(w + kOnes * (0x7fu - hi)) & kHighs;
}

constexpr bool allIdentifierChars(uint64_t w) {
    if (w & kHighs)
        return false;
    // OR-ing 0x20 folds upper case onto lower case, and no other byte into a-z.
    return (bytesInRange(w, '0', '9') | bytesInRange(w | kOnes * 0x20, 'a', 'z') |
            bytesInRange(w, '_', '_')) == kHighs;
}
} // namespace detail

inline bool isIdentifier(std::string_view s) {
    using namespace detail;
    if (s.empty() || !isIdentifierStart(s.front()))
        return false;
    const char* p = s.data();
    const size_t n = s.size();
    // Only fixed-size loads, some of them overlapping (a byte checked twice passes or fails
    // twice): a word put together in memory from a copy of variable length is loaded only once
    // the copy's stores are done, a stall on every name.
    if (n < 8) {
        constexpr uint64_t kPass = kOnes * '_';
        uint64_t w;
        if (n >= 4)
            w = load<uint32_t>(p) | uint64_t{load<uint32_t>(p + n - 4)} << 32;
        else if (n >= 2)
            w = load<uint16_t>(p) | uint64_t{load<uint16_t>(p + n - 2)} << 16 |
                (kPass & ~0xffffffffull);
        else
            w = static_cast<unsigned char>(p[0]) | (kPass & ~0xffull);
        return allIdentifierChars(w);
    }
    for (size_t i = 0; i + 8 <= n; i += 8) {
        if (!allIdentifierChars(load<uint64_t>(p + i)))
            return false;
    }
    return n % 8 == 0 || allIdentifierChars(load<uint64_t>(p + n - 8));
}

} // namespace btforge::support
