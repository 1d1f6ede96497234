// A cache hint for code that knows a few steps ahead which memory it will read.
#pragma once

namespace btforge {

// Starts loading `address` into the cache. The empty asm keeps the hint: GCC 12 drops a bare
// __builtin_prefetch from some inlined helpers as if it were dead code.
inline void prefetch(const void* address) {
    __builtin_prefetch(address);
    asm volatile("" : : "r"(address));
}

} // namespace btforge
