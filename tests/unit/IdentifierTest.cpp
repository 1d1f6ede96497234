// support::isIdentifier, which checks names a word at a time, against the byte-by-byte rule.
#include "support/Identifier.h"

#include <doctest/doctest.h>

#include <random>
#include <string>

namespace btforge {
namespace {

bool plainRule(std::string_view s) {
    if (s.empty())
        return false;
    auto start = [](unsigned char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    };
    if (!start(s[0]))
        return false;
    for (unsigned char c : s) {
        if (!start(c) && !(c >= '0' && c <= '9'))
            return false;
    }
    return true;
}

} // namespace

TEST_CASE("isIdentifier: every byte value at every place of the first three words") {
    for (size_t length = 1; length <= 24; ++length) {
        for (size_t at = 0; at < length; ++at) {
            for (int byte = 0; byte < 256; ++byte) {
                std::string s(length, 'x');
                s[at] = static_cast<char>(byte);
                CHECK_MESSAGE(support::isIdentifier(s) == plainRule(s),
                              "length " << length << ", byte " << byte << " at " << at);
            }
        }
    }
}

TEST_CASE("isIdentifier: random names, mostly of identifier characters") {
    const std::string alphabet = "azAZ_09@[`{/:\x7f\x80\xff ";
    std::mt19937 random(26);
    CHECK_FALSE(support::isIdentifier(""));
    for (int i = 0; i < 200000; ++i) {
        std::string s(random() % 20 + 1, 'a');
        for (char& c : s)
            c = random() % 4 ? "abcXYZ_019"[random() % 10] : alphabet[random() % alphabet.size()];
        REQUIRE(support::isIdentifier(s) == plainRule(s));
    }
}

} // namespace btforge
