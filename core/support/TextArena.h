// Copies of short strings in large shared blocks: views into it stay valid for as long as any
// arena holding the block lives, however the arenas are moved, copied or merged.
#pragma once

#include <algorithm>
#include <memory>
#include <string_view>
#include <vector>

namespace btforge {

class TextArena {
public:
    std::string_view store(std::string_view text) {
        if (text.empty())
            return {};
        if (blocks_.empty() || text.size() > capacity_ - used_) {
            // Blocks double from small ones: thousands of arenas (one per compile unit) must
            // not each hold a large, mostly empty block.
            capacity_ = std::max(std::min(capacity_ * 2, kMaxBlock), text.size());
            blocks_.push_back(std::shared_ptr<char[]>(new char[capacity_]));
            used_ = 0;
        }
        char* at = blocks_.back().get() + used_;
        std::copy(text.begin(), text.end(), at);
        used_ += text.size();
        return {at, text.size()};
    }

    // Keeps `other`'s blocks alive here too (views into them stay valid after `other` is gone).
    void adopt(const TextArena& other) {
        blocks_.insert(blocks_.begin(), other.blocks_.begin(), other.blocks_.end());
    }

private:
    static constexpr size_t kMaxBlock = 64 * 1024;
    std::vector<std::shared_ptr<char[]>> blocks_; // the last one is being filled
    size_t capacity_ = 256;                       // of the last block
    size_t used_ = 0;
};

} // namespace btforge
