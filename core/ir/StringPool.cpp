#include "btforge/ir/StringPool.h"

#include "../support/Hash.h"
#include "support/Prefetch.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <utility>

namespace btforge::ir {
namespace {

uint64_t loadWord(const char* p, size_t n) {
    uint64_t w = 0;
    std::memcpy(&w, p, n);
    return w;
}

// `s` up to its first NUL, eight bytes at a time: memchr costs more than the short names
// interned here.
std::string_view cutAtNul(std::string_view s) {
    constexpr uint64_t kOnes = 0x0101010101010101ull;
    constexpr uint64_t kHighs = 0x8080808080808080ull;
    size_t i = 0;
    for (; i + 8 <= s.size(); i += 8) {
        const uint64_t w = loadWord(s.data() + i, 8);
        if ((w - kOnes) & ~w & kHighs) // a zero byte
            break;
    }
    while (i < s.size() && s[i] != '\0')
        ++i;
    return s.substr(0, i);
}

constexpr uint64_t kSeed = 0x243f6a8885a308d3ull;

uint32_t upperHalf(uint64_t hash) {
    return static_cast<uint32_t>(hash >> 32);
}

// The upper half of the text's hash: its bytes eight at a time in memory order (the last word
// zero-padded), then its length, so that hashTerminated can take it in one pass.
uint32_t hashString(std::string_view s) {
    uint64_t h = kSeed;
    size_t i = 0;
    for (; i + 8 <= s.size(); i += 8)
        h = hashing::combine(h, loadWord(s.data() + i, 8));
    if (i < s.size())
        h = hashing::combine(h, loadWord(s.data() + i, s.size() - i));
    return upperHalf(hashing::combine(h, s.size()));
}

// hashString of the NUL-terminated text at `p`, and its length, reading no byte at or past `end`
// (there is a NUL before it): measuring and hashing a section's strings in one pass.
std::pair<uint32_t, size_t> hashTerminated(const char* p, const char* end) {
    constexpr uint64_t kLows = 0x7f7f7f7f7f7f7f7full;
    uint64_t h = kSeed;
    for (size_t i = 0;; i += 8) {
        const size_t left = static_cast<size_t>(end - p) - i;
        const uint64_t w = left >= 8 ? loadWord(p + i, 8) : loadWord(p + i, left);
        // A byte's high bit is set exactly where it is zero.
        const uint64_t zeros = ~(((w & kLows) + kLows) | w | kLows);
        if (zeros == 0) {
            h = hashing::combine(h, w);
            continue;
        }
        const bool little = std::endian::native == std::endian::little;
        const unsigned before = (little ? std::countr_zero(zeros) : std::countl_zero(zeros)) / 8;
        if (before != 0) {
            const uint64_t kept = ~0ull >> (64 - 8 * before);
            h = hashing::combine(h, w & (little ? kept : ~(~0ull >> (8 * before))));
        }
        return {upperHalf(hashing::combine(h, i + before)), i + before};
    }
}

} // namespace

StringPool::StringPool(std::shared_ptr<const StringPool> base) : base_(std::move(base)) {
    if (base_) {
        firstId_ = base_->endId();
    } else {
        bytes_.push_back('\0'); // offset 0: the empty name
    }
    text_ = bytes_;
    slots_.assign(64, Slot{});
    table_ = slots_;
}

void StringPool::ownText() {
    if (owner_) {
        bytes_.assign(text_.begin(), text_.end());
        owner_.reset();
    }
}

StrId StringPool::findLocal(std::string_view s, uint32_t hash) const {
    const size_t mask = table_.size() - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
        const Slot slot = table_[i];
        if (slot.local == 0)
            return kAbsent;
        const StrId local = slot.local - 1;
        // Every string is NUL-terminated inside text_, so the bounds check keeps memcmp inside.
        if (slot.hash == hash && local + s.size() < text_.size() &&
            text_[local + s.size()] == '\0' &&
            std::memcmp(text_.data() + local, s.data(), s.size()) == 0)
            return firstId_ + local;
    }
}

StrId StringPool::findHashed(std::string_view s, uint32_t hash) const {
    if (base_) {
        if (StrId id = base_->findHashed(s, hash); id != kAbsent)
            return id;
    }
    return findLocal(s, hash);
}

std::optional<StrId> StringPool::find(std::string_view s) const {
    s = cutAtNul(s);
    if (s.empty())
        return kNoName;
    const StrId id = findHashed(s, hashString(s));
    return id != kAbsent ? std::optional(id) : std::nullopt;
}

void StringPool::insertSlot(StrId local, uint32_t hash) {
    if ((used_ + 1) * 4 > slots_.size() * 3)
        grow();
    const size_t mask = slots_.size() - 1;
    size_t i = hash & mask;
    while (slots_[i].local != 0)
        i = (i + 1) & mask;
    slots_[i] = {hash, local + 1}; // +1 keeps 0 free as the empty-slot marker
    ++used_;
}

void StringPool::reserve(size_t strings) {
    size_t size = slots_.size();
    while ((used_ + strings) * 4 > size * 3)
        size *= 2;
    if (size != slots_.size())
        rehash(size);
}

void StringPool::grow() {
    rehash(slots_.size() * 2);
}

void StringPool::rehash(size_t size) {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(size, Slot{});
    table_ = slots_;
    const size_t mask = slots_.size() - 1;
    for (const Slot& slot : old) {
        if (slot.local == 0)
            continue;
        size_t i = slot.hash & mask;
        while (slots_[i].local != 0)
            i = (i + 1) & mask;
        slots_[i] = slot;
    }
}

StrId StringPool::intern(std::string_view s) {
    s = cutAtNul(s);
    return s.empty() ? kNoName : internHashed(s, hashString(s));
}

StrId StringPool::internHashed(std::string_view s, uint32_t hash) {
    if (StrId id = findHashed(s, hash); id != kAbsent)
        return id;
    ownText();
    auto local = static_cast<StrId>(bytes_.size());
    bytes_.insert(bytes_.end(), s.begin(), s.end());
    bytes_.push_back('\0');
    text_ = bytes_;
    insertSlot(local, hash);
    return firstId_ + local;
}

void StringPool::internAll(std::span<const std::string_view> strings, std::span<StrId> ids) {
    const size_t count = std::min(strings.size(), ids.size());
    cut_.resize(count);
    hashes_.resize(count);
    for (size_t i = 0; i < count; ++i) {
        cut_[i] = cutAtNul(strings[i]);
        hashes_[i] = hashString(cut_[i]);
    }
    // Two dependent misses per string: its slot, then the bytes the slot points at.
    constexpr size_t kSlotAhead = 16, kBytesAhead = 8;
    for (size_t i = 0; i < count; ++i) {
        const size_t mask = slots_.size() - 1;
        if (i + kSlotAhead < count)
            prefetch(&slots_[hashes_[i + kSlotAhead] & mask]);
        if (i + kBytesAhead < count) {
            const Slot& ahead = slots_[hashes_[i + kBytesAhead] & mask];
            if (ahead.local != 0)
                prefetch(text_.data() + ahead.local - 1);
        }
        ids[i] = cut_[i].empty() ? kNoName : internHashed(cut_[i], hashes_[i]);
    }
}

bool StringPool::isValid(StrId id) const {
    if (id < firstId_)
        return base_ && base_->isValid(id);
    return id - firstId_ < text_.size();
}

std::string_view StringPool::get(StrId id) const {
    if (id < firstId_)
        return base_ ? base_->get(id) : std::string_view();
    StrId local = id - firstId_;
    if (local >= text_.size())
        return {};
    return std::string_view(text_.data() + local);
}

void StringPool::adoptSection(std::span<const char> section, std::shared_ptr<const void> owner) {
    owner_ = std::move(owner);
    if (owner_) {
        bytes_.clear();
        bytes_.shrink_to_fit();
        text_ = section;
    } else {
        bytes_.assign(section.begin(), section.end());
        text_ = bytes_;
    }
    slots_.assign(64, Slot{});
    table_ = slots_;
    used_ = 0;
    // Sized once for a section of kernel names, which average 25 bytes: growing the index step
    // by step rehashed a vmlinux's 100,000 strings ten times, for each module over it.
    reserve(text_.size() / 24 + 64);
    // Index every string that starts right after a NUL (or at the start of a split section),
    // skipping ones already indexed so the first copy keeps its offset: one probe finds an equal
    // string or the free slot.
    size_t start = base_ ? 0 : 1;
    unique_ = true;
    const char* end = text_.data() + text_.size();
    while (start < text_.size()) {
        const auto [hash, length] = hashTerminated(text_.data() + start, end);
        const std::string_view s(text_.data() + start, length);
        unique_ = unique_ && !s.empty(); // "" is offset 0's
        if (!s.empty()) {
            if ((used_ + 1) * 4 > slots_.size() * 3)
                grow();
            const size_t mask = slots_.size() - 1;
            size_t i = hash & mask;
            for (; slots_[i].local != 0; i = (i + 1) & mask) {
                const StrId local = slots_[i].local - 1;
                if (slots_[i].hash == hash && local + s.size() < text_.size() &&
                    text_[local + s.size()] == '\0' &&
                    std::memcmp(text_.data() + local, s.data(), s.size()) == 0)
                    break;
            }
            if (slots_[i].local == 0) {
                slots_[i] = {hash, static_cast<StrId>(start) + 1};
                ++used_;
            } else {
                unique_ = false;
            }
        }
        start += s.size() + 1;
    }
}

} // namespace btforge::ir
