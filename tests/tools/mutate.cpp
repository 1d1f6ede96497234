// mutate INPUT OUTDIR: writes deterministic corruptions of INPUT for the bad-input tests:
// truncations (trunc-N), single bit flips (flip-OFFSET-BIT) and garbage of the same length
// behind the input's first bytes (garbage-N). The same input always gives the same files.
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

namespace {

void writeFile(const std::string& path, const std::vector<char>& bytes, size_t size) {
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(size));
}

} // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: mutate INPUT OUTDIR\n");
        return 2;
    }
    std::ifstream in(argv[1], std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (bytes.empty()) {
        std::fprintf(stderr, "mutate: %s is empty or unreadable\n", argv[1]);
        return 1;
    }
    std::string dir = argv[2];
    std::mt19937_64 rng(0x5eed);

    // Every length inside the header and the first records, then a spread over the rest.
    for (size_t n = 0; n < bytes.size(); n += n < 96 ? 1 : 1 + bytes.size() / 64)
        writeFile(dir + "/trunc-" + std::to_string(n), bytes, n);

    // Every bit of the header, then random bits elsewhere.
    auto flip = [&](size_t offset, int bit) {
        std::vector<char> copy = bytes;
        copy[offset] = static_cast<char>(copy[offset] ^ (1 << bit));
        writeFile(dir + "/flip-" + std::to_string(offset) + "-" + std::to_string(bit), copy,
                  copy.size());
    };
    for (size_t offset = 0; offset < std::min<size_t>(bytes.size(), 32); ++offset)
        for (int bit = 0; bit < 8; ++bit)
            flip(offset, bit);
    for (int i = 0; i < 200; ++i)
        flip(rng() % bytes.size(), static_cast<int>(rng() % 8));

    // Garbage after an intact magic and header, so parsers get past the first check.
    for (int i = 0; i < 50; ++i) {
        std::vector<char> copy = bytes;
        size_t keep = std::min<size_t>(copy.size(), i % 2 ? 24 : 4);
        for (size_t j = keep; j < copy.size(); ++j)
            copy[j] = static_cast<char>(rng());
        writeFile(dir + "/garbage-" + std::to_string(i), copy, copy.size());
    }
    return 0;
}
