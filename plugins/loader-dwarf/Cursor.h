// Reads DWARF encodings from a byte range with bounds checks: any overrun clears ok() and yields
// 0, so a decoder checks once at the end instead of at every read.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

namespace btforge::dwarf {

class Cursor {
public:
    // `bigEndian`: the file's byte order, for fixed-size values.
    explicit Cursor(std::span<const uint8_t> bytes, bool bigEndian = false)
        : p_(bytes.data()), end_(bytes.data() + bytes.size()), bigEndian_(bigEndian) {}

    bool ok() const { return ok_; }
    bool atEnd() const { return p_ >= end_; }
    const uint8_t* position() const { return p_; }
    size_t remaining() const { return static_cast<size_t>(end_ - p_); }
    // Moves to `p`, which must lie in the range.
    void seek(const uint8_t* p) { p_ = p; }

    uint64_t fixed(size_t size) {
        if (size > 8 || remaining() < size) {
            fail();
            return 0;
        }
        uint64_t value = 0;
        switch (size) { // the forms' sizes, read whole: every DIE has several
        case 1:
            value = *p_;
            break;
        case 2:
            value = load<uint16_t>();
            break;
        case 4:
            value = load<uint32_t>();
            break;
        case 8:
            value = load<uint64_t>();
            break;
        default:
            for (size_t i = 0; i < size; ++i)
                value |= uint64_t(p_[bigEndian_ ? size - 1 - i : i]) << (8 * i);
        }
        p_ += size;
        return value;
    }
    uint8_t byte() { return static_cast<uint8_t>(fixed(1)); }
    uint64_t uleb() {
        if (p_ < end_ && *p_ < 0x80) // one byte: most abbreviation codes, attribute names, forms
            return *p_++;
        uint64_t value = 0;
        for (unsigned shift = 0; p_ < end_; shift += 7) {
            uint8_t byte = *p_++;
            if (shift < 64)
                value |= uint64_t(byte & 0x7f) << shift;
            if (!(byte & 0x80))
                return value;
        }
        ok_ = false;
        return 0;
    }
    int64_t sleb() {
        uint64_t value = 0;
        unsigned shift = 0;
        for (; p_ < end_; shift += 7) {
            uint8_t byte = *p_++;
            if (shift < 64)
                value |= uint64_t(byte & 0x7f) << shift;
            if (!(byte & 0x80)) {
                if (shift + 7 < 64 && (byte & 0x40))
                    value |= ~uint64_t(0) << (shift + 7);
                return static_cast<int64_t>(value);
            }
        }
        ok_ = false;
        return 0;
    }
    std::span<const uint8_t> block(uint64_t size) {
        if (size > remaining()) {
            fail();
            return {};
        }
        std::span<const uint8_t> result(p_, size);
        p_ += size;
        return result;
    }
    void skip(uint64_t size) { block(size); }
    // Past a NUL-terminated string.
    void skipString() {
        const void* nul = std::memchr(p_, 0, remaining());
        if (!nul) {
            fail();
            return;
        }
        p_ = static_cast<const uint8_t*>(nul) + 1;
    }

private:
    // The value of the next sizeof(T) bytes in the file's byte order (bounds checked by fixed).
    template <class T> uint64_t load() const {
        T value;
        std::memcpy(&value, p_, sizeof(T));
        if (bigEndian_ == (std::endian::native == std::endian::big))
            return value;
        if constexpr (sizeof(T) == 2)
            return __builtin_bswap16(value);
        else if constexpr (sizeof(T) == 4)
            return __builtin_bswap32(value);
        else
            return __builtin_bswap64(value);
    }

    void fail() {
        ok_ = false;
        p_ = end_;
    }

    const uint8_t* p_;
    const uint8_t* end_;
    bool bigEndian_;
    bool ok_ = true;
};

} // namespace btforge::dwarf
