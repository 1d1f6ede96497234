// Interned strings stored back to back, NUL-terminated, so a pool's bytes are already a BTF
// string section and a StrId is a BTF name offset. A pool may continue a base pool (split BTF):
// its ids start where the base ends, and strings the base has keep the base's id.
#pragma once

#include "btforge/Export.h"
#include "btforge/ir/Kind.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace btforge::ir {

class BTFORGE_API StringPool {
public:
    explicit StringPool(std::shared_ptr<const StringPool> base = nullptr);
    // Pools are shared (TypeGraph holds one by shared_ptr), never copied: text_ views bytes_.
    StringPool(const StringPool&) = delete;
    StringPool& operator=(const StringPool&) = delete;

    // The id of `s`, adding it if new. Strings with an embedded NUL are cut at it.
    StrId intern(std::string_view s);
    // ids[i] = intern(strings[i]), in order. Faster than one call per string in a big pool: the
    // index slots and bytes of strings a few places ahead are loaded while earlier ones are
    // looked up.
    void internAll(std::span<const std::string_view> strings, std::span<StrId> ids);
    // Room for `strings` more strings without rehashing the index on the way.
    void reserve(size_t strings);
    // The id of `s` if present here or in the base.
    std::optional<StrId> find(std::string_view s) const;

    // `id` must be a valid id: the start of a string here or in the base.
    std::string_view get(StrId id) const;
    bool isValid(StrId id) const;
    // Whether `id` is 0 (the empty name) or starts a text that is not empty: not so for a BTF
    // name offset inside another text or at its NUL, which BTF allows.
    bool startsText(StrId id) const {
        if (id < firstId_)
            return base_ ? base_->startsText(id) : id == 0;
        const StrId local = id - firstId_;
        if (local >= text_.size())
            return false;
        if (local == 0)
            return !base_ || text_[0] != '\0';
        return text_[local - 1] == '\0' && text_[local] != '\0';
    }

    StrId firstId() const { return firstId_; }
    // One past the last byte: the next pool in a split chain starts here.
    StrId endId() const { return firstId_ + static_cast<StrId>(text_.size()); }
    // This pool's own bytes (without the base's), starting with the NUL of the empty string
    // unless this pool continues a base.
    std::span<const char> bytes() const { return text_; }
    const StringPool* base() const { return base_.get(); }
    // The bytes this pool holds, its base's not included (--stats).
    size_t memoryUsage() const {
        return (owner_ ? 0 : bytes_.capacity()) + slots_.capacity() * sizeof(Slot) +
               cut_.capacity() * sizeof(std::string_view) + hashes_.capacity() * sizeof(uint32_t);
    }

    // Adopts a whole string section as read from BTF, keeping its offsets. The caller has checked
    // that it starts with NUL (when not split) and ends with NUL. With an `owner` that keeps the
    // section's bytes alive (the input mapped), they are used where they lie, not copied: a
    // vmlinux's 2.5 MB of names, for each module over it. Interning a new string copies them.
    void adoptSection(std::span<const char> section, std::shared_ptr<const void> owner = nullptr);
    // Whether each text has one id: always for interned strings; for an adopted section, when it
    // holds no text twice (nor an empty string but at its start).
    bool uniqueStrings() const { return unique_; }

private:
    friend struct ImageAccess; // base images (BaseImage.h) read and write the storage
    // `s` holds no NUL and is not empty; `hash` is hashString(s). Here or in the base; kAbsent
    // if in neither (a plain id: an optional returned through memory stalled every lookup).
    static constexpr StrId kAbsent = UINT32_MAX;
    StrId findHashed(std::string_view s, uint32_t hash) const;
    StrId findLocal(std::string_view s, uint32_t hash) const;
    // `s` holds no NUL and is not empty; `hash` is hashString(s).
    StrId internHashed(std::string_view s, uint32_t hash);
    void insertSlot(StrId local, uint32_t hash);
    void grow();
    void rehash(size_t size);

    // Open addressing over local ids. A slot keeps the string's hash, which also chose it, so
    // probing compares bytes only on a hash match and growing never reads the strings.
    struct Slot {
        uint32_t hash = 0;
        StrId local = 0; // local id + 1; 0: empty (local id 0 is never hashed: in a base pool it
                         // is the empty string, which find() answers directly)
    };

    // The pool's bytes are text_: bytes_, or an adopted section its owner_ keeps alive.
    void ownText();

    std::shared_ptr<const StringPool> base_;
    StrId firstId_ = 0;
    std::vector<char> bytes_;
    std::span<const char> text_;
    std::shared_ptr<const void> owner_;
    std::vector<Slot> slots_;
    std::span<const Slot> table_; // what lookups read: slots_, or a base image's
    size_t used_ = 0;
    bool unique_ = true;
    // internAll's scratch, kept so a pool interning batch after batch does not allocate.
    std::vector<std::string_view> cut_;
    std::vector<uint32_t> hashes_;
};

} // namespace btforge::ir
