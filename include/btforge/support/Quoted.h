// "'name'": how messages show a name from the input. Cut when long, anything but printable ASCII
// escaped as \xNN, so a hostile name cannot break a one-line message.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace btforge {

// A byte as \xNN, the way messages show what they may not print.
inline void appendHexEscape(std::string& out, unsigned char c) {
    constexpr char kDigits[] = "0123456789abcdef";
    out += "\\x";
    out += kDigits[c >> 4];
    out += kDigits[c & 0xf];
}

inline std::string quoted(std::string_view name) {
    constexpr size_t kMaxShown = 64;
    std::string out = "'";
    for (unsigned char c : name.substr(0, kMaxShown)) {
        if (c < 0x20 || c >= 0x7f || c == '\'' || c == '\\')
            appendHexEscape(out, c);
        else
            out += static_cast<char>(c);
    }
    if (name.size() > kMaxShown)
        out += "...";
    return out + "'";
}

} // namespace btforge
