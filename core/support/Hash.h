// The one hash mixer of the code base, for tables (string interning, dedup's indexes) and for the
// hashes types are compared by (dedup's labels and rounds, `btforge diff`'s shapes). Not for
// anything written out: no output depends on a hash value, only on hashes being equal or not.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace btforge::hashing {

__extension__ typedef unsigned __int128 Uint128;

// Multiply-fold mixing: one 64x64->128 multiplication, both halves kept. The constants pick one
// member of the family; two hashes that must be independent (dedup's LabelHash) use two members.
template <uint64_t kState, uint64_t kValue> inline uint64_t mix(uint64_t h, uint64_t v) {
#if defined(__x86_64__)
    // The same product, spelt out: in the hashing loops GCC 12 stored the 128-bit product to the
    // stack and loaded it back, a store-forwarding delay on every step of the chain.
    uint64_t low, high;
    asm("mulq %3" : "=a"(low), "=d"(high) : "a"(h ^ kState), "rm"(v ^ kValue) : "cc");
    return low ^ high;
#else
    const Uint128 product = static_cast<Uint128>(h ^ kState) * (v ^ kValue);
    return static_cast<uint64_t>(product) ^ static_cast<uint64_t>(product >> 64);
#endif
}

// The member of the family everything but a second, independent hash uses.
inline uint64_t combine(uint64_t h, uint64_t v) {
    return mix<0xa0761d6478bd642full, 0xe7037ed1a0b428dbull>(h, v);
}

// Calls word(uint64_t) with the string's length, then its bytes eight at a time (the last word
// zero-padded): the length prefix keeps a sequence of texts unambiguous. Always inlined: called
// out of line, a `word` that updates a captured hash keeps it in memory between the steps.
template <typename Word>
[[gnu::always_inline]] inline void forEachWord(std::string_view s, Word&& word) {
    word(s.size());
    size_t i = 0;
    for (; i + 8 <= s.size(); i += 8) {
        uint64_t w;
        std::memcpy(&w, s.data() + i, 8);
        word(w);
    }
    if (i < s.size()) {
        uint64_t w = 0;
        std::memcpy(&w, s.data() + i, s.size() - i);
        word(w);
    }
}

// `s` combined into `h` word by word.
inline uint64_t combineText(uint64_t h, std::string_view s) {
    forEachWord(s, [&](uint64_t w) { h = combine(h, w); });
    return h;
}

} // namespace btforge::hashing
