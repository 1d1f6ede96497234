// The flat byte form of a base image (ir/BaseImage.h): plain values and arrays of trivially
// copyable items, each starting 8-aligned, so that a mapped image's arrays are used where they
// lie. Native byte order: an image is read by the build of btforge that wrote it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace btforge::image {

// Hands the bytes to a sink a block at a time, so that a whole image is never held in memory
// (it would add its size to the peak of the run that prepares it).
class Writer {
public:
    // Takes a block; false when it could not (writing stops there).
    using Sink = std::function<bool(std::span<const std::byte>)>;

    Writer(Sink sink, size_t blockSize) : sink_(std::move(sink)), block_(blockSize) {
        buffer_.reserve(block_);
    }
    template <typename T> void value(const T& v) {
        static_assert(std::is_trivially_copyable_v<T>);
        put(&v, sizeof v);
    }
    template <typename T> void array(std::span<const T> items) {
        static_assert(std::is_trivially_copyable_v<T>);
        value<uint64_t>(items.size());
        put(items.data(), items.size_bytes());
    }
    // Hands over what is left; whether the sink took everything.
    bool finish() {
        flush();
        return good_;
    }

private:
    void put(const void* data, size_t size) {
        static constexpr std::byte kZeros[8]{};
        append(static_cast<const std::byte*>(data), size);
        append(kZeros, (8 - size % 8) % 8); // the next item 8-aligned
    }
    void append(const std::byte* p, size_t size) {
        while (size > 0) {
            const size_t n = std::min(size, block_ - buffer_.size());
            buffer_.insert(buffer_.end(), p, p + n);
            p += n;
            size -= n;
            if (buffer_.size() == block_)
                flush();
        }
    }
    void flush() {
        if (good_ && !buffer_.empty())
            good_ = sink_(buffer_);
        buffer_.clear();
    }

    Sink sink_;
    size_t block_;
    std::vector<std::byte> buffer_;
    bool good_ = true;
};

// Reads what Writer wrote. Reading past the end gives zeros and empty arrays and makes the
// reader bad: callers check good() once at the end, before using anything read.
class Reader {
public:
    explicit Reader(std::span<const std::byte> bytes) : bytes_(bytes) {}

    template <typename T> T value() {
        static_assert(std::is_trivially_copyable_v<T>);
        T v{};
        if (take(sizeof v))
            std::memcpy(&v, bytes_.data() + at_ - round(sizeof v), sizeof v);
        return v;
    }
    // Where the items lie in the image (the image must be 8-aligned in memory).
    template <typename T> std::span<const T> array() {
        static_assert(std::is_trivially_copyable_v<T> && alignof(T) <= 8);
        const auto count = value<uint64_t>();
        if (!good_ || count > (bytes_.size() - at_) / sizeof(T)) {
            good_ = false;
            return {};
        }
        const auto* first = reinterpret_cast<const T*>(bytes_.data() + at_);
        take(count * sizeof(T));
        return {first, static_cast<size_t>(count)};
    }
    bool good() const { return good_; }
    bool atEnd() const { return at_ == bytes_.size(); }

private:
    static size_t round(size_t n) { return (n + 7) & ~size_t{7}; }
    bool take(size_t n) {
        if (!good_ || round(n) > bytes_.size() - at_ || round(n) < n) {
            good_ = false;
            return false;
        }
        at_ += round(n);
        return true;
    }
    std::span<const std::byte> bytes_;
    size_t at_ = 0;
    bool good_ = true;
};

} // namespace btforge::image
