#include "btforge/ir/StringPool.h"

#include <cstring>

namespace btforge::ir {
namespace {

uint64_t hashString(std::string_view s) {
    // FNV-1a: short identifiers dominate, where it is as good as anything heavier.
    uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned char c : s) {
        h ^= c;
        h *= 0x100000001b3ull;
    }
    return h;
}

} // namespace

StringPool::StringPool(std::shared_ptr<const StringPool> base) : base_(std::move(base)) {
    if (base_) {
        firstId_ = base_->endId();
    } else {
        bytes_.push_back('\0'); // offset 0: the empty name
    }
    slots_.assign(64, 0);
}

std::optional<StrId> StringPool::findLocal(std::string_view s, uint64_t hash) const {
    size_t mask = slots_.size() - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
        StrId slot = slots_[i];
        if (slot == 0)
            return std::nullopt;
        StrId local = slot - 1;
        const char* candidate = bytes_.data() + local;
        if (std::strncmp(candidate, s.data(), s.size()) == 0 && candidate[s.size()] == '\0')
            return firstId_ + local;
    }
}

std::optional<StrId> StringPool::find(std::string_view s) const {
    s = s.substr(0, s.find('\0'));
    if (s.empty())
        return kNoName;
    if (base_) {
        if (auto id = base_->find(s))
            return id;
    }
    return findLocal(s, hashString(s));
}

void StringPool::insertSlot(StrId local, uint64_t hash) {
    if ((used_ + 1) * 4 > slots_.size() * 3)
        grow();
    size_t mask = slots_.size() - 1;
    size_t i = hash & mask;
    while (slots_[i] != 0)
        i = (i + 1) & mask;
    slots_[i] = local + 1; // +1 keeps 0 free as the empty-slot marker
    ++used_;
}

void StringPool::grow() {
    std::vector<StrId> old = std::move(slots_);
    slots_.assign(old.size() * 2, 0);
    size_t mask = slots_.size() - 1;
    for (StrId slot : old) {
        if (slot == 0)
            continue;
        std::string_view s(bytes_.data() + slot - 1);
        size_t i = hashString(s) & mask;
        while (slots_[i] != 0)
            i = (i + 1) & mask;
        slots_[i] = slot;
    }
}

StrId StringPool::intern(std::string_view s) {
    s = s.substr(0, s.find('\0'));
    if (s.empty())
        return kNoName;
    if (base_) {
        if (auto id = base_->find(s))
            return *id;
    }
    uint64_t hash = hashString(s);
    if (auto id = findLocal(s, hash))
        return *id;
    auto local = static_cast<StrId>(bytes_.size());
    bytes_.insert(bytes_.end(), s.begin(), s.end());
    bytes_.push_back('\0');
    insertSlot(local, hash);
    return firstId_ + local;
}

bool StringPool::isValid(StrId id) const {
    if (id < firstId_)
        return base_ && base_->isValid(id);
    return id - firstId_ < bytes_.size();
}

std::string_view StringPool::get(StrId id) const {
    if (id < firstId_)
        return base_ ? base_->get(id) : std::string_view();
    StrId local = id - firstId_;
    if (local >= bytes_.size())
        return {};
    return std::string_view(bytes_.data() + local);
}

void StringPool::adoptSection(std::span<const char> section) {
    bytes_.assign(section.begin(), section.end());
    slots_.assign(64, 0);
    used_ = 0;
    // Index every string that starts right after a NUL (or at the start of a split section),
    // skipping ones already indexed so the first copy keeps its offset.
    size_t start = base_ ? 0 : 1;
    while (start < bytes_.size()) {
        std::string_view s(bytes_.data() + start);
        if (!s.empty()) {
            uint64_t hash = hashString(s);
            if (!findLocal(s, hash))
                insertSlot(static_cast<StrId>(start), hash);
        }
        start += s.size() + 1;
    }
}

} // namespace btforge::ir
