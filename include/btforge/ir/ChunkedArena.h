// Append-only storage in fixed-size chunks, addressed by 32-bit index. Growing never copies what
// is stored and never reserves more than one chunk ahead, unlike a doubling std::vector, whose
// spare capacity is a quarter of a big graph on average. A list appended at once is contiguous:
// it never straddles two chunks (the rest of a chunk it does not fit in is skipped), and a list
// longer than a chunk gets a block of its own.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <type_traits>
#include <vector>

namespace btforge::ir {

template <typename T> class ChunkedArena {
    static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);

public:
    // Small enough that the many small graphs (one per compile unit) stay small.
    static constexpr unsigned kChunkBits = 10;
    static constexpr uint32_t kChunk = 1u << kChunkBits;

    // One past the last index handed out (skipped chunk tails included).
    uint32_t size() const { return end_; }
    bool empty() const { return end_ == 0; }
    T& operator[](uint32_t index) { return chunks_[index >> kChunkBits][index & (kChunk - 1)]; }
    const T& operator[](uint32_t index) const {
        return chunks_[index >> kChunkBits][index & (kChunk - 1)];
    }
    // The `count` items appended at `first` by one append().
    std::span<const T> list(uint32_t first, uint32_t count) const {
        return count == 0 ? std::span<const T>() : std::span<const T>(&(*this)[first], count);
    }

    // The items from `first` to the end of its chunk or of the arena, whichever comes first: for
    // walking an arena of single items in order without an index computation per item.
    std::span<const T> run(uint32_t first) const {
        const uint32_t end = std::min(end_, (first | (kChunk - 1)) + 1);
        return {&(*this)[first], end - first};
    }

    // Appends `items` contiguously and returns the index of the first.
    uint32_t append(std::span<const T> items) {
        const auto count = static_cast<uint32_t>(items.size());
        const uint32_t offset = end_ & (kChunk - 1);
        if (count == 0)
            return end_;
        if (offset == 0 || offset + count > kChunk)
            startChunks(count);
        const uint32_t first = end_;
        std::copy(items.begin(), items.end(), &(*this)[first]);
        end_ += count;
        // A list with a block of its own leaves no room after it in its last chunk.
        if (count > kChunk)
            end_ = static_cast<uint32_t>(chunks_.size()) << kChunkBits;
        return first;
    }
    // append() of one item, without the checks only a list needs: every type added to a graph
    // comes through here.
    uint32_t push_back(const T& item) {
        if ((end_ & (kChunk - 1)) == 0)
            startChunks(1);
        const uint32_t at = end_++;
        (*this)[at] = item;
        return at;
    }

    void reserve(size_t items) { chunks_.reserve(items / kChunk + 1); }

    // Base images (ir/BaseImage.h): an arena over an array read from one, where it lies, for
    // reading only (nothing may be appended to it).
    template <typename Reader> void readInPlace(Reader& in) {
        const std::span<const T> flat = in.template array<T>();
        blocks_.clear();
        chunks_.clear();
        allocated_ = 0;
        end_ = static_cast<uint32_t>(flat.size());
        for (uint32_t at = 0; at < end_; at += kChunk)
            chunks_.push_back(const_cast<T*>(flat.data()) + at); // never written: see above
    }
    size_t memoryUsage() const {
        return allocated_ * sizeof(T) + chunks_.capacity() * sizeof(T*) +
               blocks_.capacity() * sizeof(blocks_[0]);
    }

private:
    // Moves end_ to the start of new chunks that hold `count` items.
    void startChunks(uint32_t count) {
        const size_t size = std::max(count, kChunk);
        // Left uninitialised: every item is written by append() before it is read.
        blocks_.push_back(Block(std::allocator<T>().allocate(size), Free{size}));
        allocated_ += size;
        end_ = static_cast<uint32_t>(chunks_.size()) << kChunkBits;
        for (size_t at = 0; at < size; at += kChunk)
            chunks_.push_back(blocks_.back().get() + at);
    }

    struct Free {
        size_t size;
        void operator()(T* block) const { std::allocator<T>().deallocate(block, size); }
    };
    using Block = std::unique_ptr<T[], Free>;

    std::vector<T*> chunks_; // by index >> kChunkBits, into blocks_
    std::vector<Block> blocks_;
    size_t allocated_ = 0;
    uint32_t end_ = 0;
};

} // namespace btforge::ir
