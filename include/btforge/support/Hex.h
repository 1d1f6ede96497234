// "0x1c": how offsets and addresses appear in messages.
#pragma once

#include <charconv>
#include <cstdint>
#include <string>

namespace btforge {

inline std::string hex(uint64_t value) {
    char digits[16];
    char* end = std::to_chars(std::begin(digits), std::end(digits), value, 16).ptr;
    return "0x" + std::string(digits, end);
}

} // namespace btforge
