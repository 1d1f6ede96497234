// libFuzzer custom mutator for the DWARF loaders' targets: half the time it rewrites one field of
// the ELF structure that byte flips seldom hit coherently (the ELF header's section table
// fields, a section header, a compression header, a symbol, a relocation) with a value chosen to
// be hostile (0, all ones, past the end of the file, a neighbour's index, off by one); otherwise
// it leaves the input to libFuzzer's own byte mutations. Both classes and byte orders.
#include <cstddef>
#include <cstdint>
#include <random>

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t maxSize);

namespace {

class ElfView {
public:
    ElfView(uint8_t* data, size_t size) : data_(data), size_(size) {}

    bool valid() const {
        return size_ >= 64 && data_[0] == 0x7f && data_[1] == 'E' && data_[2] == 'L' &&
               data_[3] == 'F' && (data_[4] == 1 || data_[4] == 2) &&
               (data_[5] == 1 || data_[5] == 2);
    }
    bool is64() const { return data_[4] == 2; }

    // A field of `width` bytes at `offset`; reads as 0 and writes nothing out of bounds.
    uint64_t get(size_t offset, size_t width) const {
        if (offset > size_ || width > size_ - offset)
            return 0;
        uint64_t value = 0;
        for (size_t i = 0; i < width; ++i) {
            const size_t at = data_[5] == 1 ? width - 1 - i : i;
            value = value << 8 | data_[offset + at];
        }
        return value;
    }
    void put(size_t offset, size_t width, uint64_t value) {
        if (offset > size_ || width > size_ - offset)
            return;
        for (size_t i = 0; i < width; ++i) {
            const size_t at = data_[5] == 1 ? i : width - 1 - i;
            data_[offset + at] = static_cast<uint8_t>(value >> (8 * i));
        }
    }

    size_t word() const { return is64() ? 8 : 4; }
    uint64_t sectionTable() const { return get(is64() ? 40 : 32, word()); }
    uint64_t sectionCount() const { return get(is64() ? 60 : 48, 2); }
    size_t sectionHeaderSize() const { return is64() ? 64 : 40; }
    size_t sectionHeader(uint64_t index) const {
        return static_cast<size_t>(sectionTable() + index * sectionHeaderSize());
    }
    // Offsets of sh_type, sh_flags, sh_offset, sh_size, sh_link, sh_info, sh_addralign,
    // sh_entsize in a section header, with their widths.
    struct Field {
        size_t offset32, offset64, width32, width64;
    };
    static constexpr Field kSectionFields[] = {{4, 4, 4, 4},   {8, 8, 4, 8},   {16, 24, 4, 8},
                                               {20, 32, 4, 8}, {24, 40, 4, 4}, {28, 44, 4, 4},
                                               {32, 48, 4, 8}, {36, 56, 4, 8}};
    size_t offsetOf(const Field& f) const { return is64() ? f.offset64 : f.offset32; }
    size_t widthOf(const Field& f) const { return is64() ? f.width64 : f.width32; }
    uint64_t sectionField(uint64_t index, int field) const {
        const Field& f = kSectionFields[field];
        return get(sectionHeader(index) + offsetOf(f), widthOf(f));
    }
    size_t size() const { return size_; }

private:
    uint8_t* data_;
    size_t size_;
};

constexpr int kType = 0, kFlags = 1, kOffset = 2, kSize = 3, kLink = 4;
constexpr uint64_t kCompressed = 0x800; // SHF_COMPRESSED

class Mutator {
public:
    Mutator(ElfView& elf, unsigned seed) : elf_(elf), random_(seed) {}

    // A value a parser must not trust: boundaries, the file's own size, near `current`.
    uint64_t hostile(uint64_t current, size_t width) {
        const uint64_t ones = width >= 8 ? UINT64_MAX : (uint64_t(1) << (8 * width)) - 1;
        switch (pick(9)) {
        case 0:
            return 0;
        case 1:
            return ones;
        case 2:
            return ones >> 1;
        case 3:
            return elf_.size();
        case 4:
            return elf_.size() + pick(64);
        case 5:
            return current + 1;
        case 6:
            return current - 1;
        case 7:
            return current * 2 + pick(4);
        default:
            return pick(64);
        }
    }

    void mutate() {
        const uint64_t count = elf_.sectionCount();
        switch (count ? pick(5) : 0) {
        case 0: { // the ELF header's section table: e_shoff, e_shentsize, e_shnum, e_shstrndx
            static constexpr ElfView::Field kHeader[] = {
                {32, 40, 4, 8}, {46, 58, 2, 2}, {48, 60, 2, 2}, {50, 62, 2, 2}};
            put(kHeader[pick(std::size(kHeader))]);
            break;
        }
        case 1: { // a section header
            const uint64_t index = pick(count);
            const int field = static_cast<int>(pick(std::size(ElfView::kSectionFields)));
            const ElfView::Field& f = ElfView::kSectionFields[field];
            const size_t at = elf_.sectionHeader(index) + elf_.offsetOf(f);
            const size_t width = elf_.widthOf(f);
            // Links and infos mostly name another section; flags mostly gain or lose compression.
            if (field == kLink || field == 5)
                elf_.put(at, width,
                         pick(2) ? pick(count + 2) : hostile(elf_.get(at, width), width));
            else if (field == kFlags)
                elf_.put(at, width, elf_.get(at, width) ^ kCompressed);
            else
                elf_.put(at, width, hostile(elf_.get(at, width), width));
            break;
        }
        case 2: { // a compression header: ch_type, ch_size, ch_addralign
            const uint64_t index = sectionWith(
                [&](uint64_t i) { return (elf_.sectionField(i, kFlags) & kCompressed) != 0; });
            static constexpr ElfView::Field kChdr[] = {{0, 0, 4, 4}, {4, 8, 4, 8}, {8, 16, 4, 8}};
            putAt(elf_.sectionField(index, kOffset), kChdr[pick(std::size(kChdr))]);
            break;
        }
        default: { // an entry of a symbol table (2) or relocation section (4, 9)
            const uint64_t index = sectionWith([&](uint64_t i) {
                const uint64_t type = elf_.sectionField(i, kType);
                return type == 2 || type == 4 || type == 9;
            });
            const uint64_t entry = elf_.sectionField(index, 7);
            const uint64_t size = elf_.sectionField(index, kSize);
            if (entry == 0 || entry > 64 || size < entry)
                break;
            const uint64_t start = elf_.sectionField(index, kOffset) + pick(size / entry) * entry;
            // Any word of the entry: names, section indexes, values, symbol and type of r_info.
            const size_t width = pick(2) ? elf_.word() : 4;
            const uint64_t at = start + pick(entry / width) * width;
            elf_.put(static_cast<size_t>(at), width, hostile(elf_.get(at, width), width));
            break;
        }
        }
    }

private:
    uint64_t pick(uint64_t n) {
        return n ? std::uniform_int_distribution<uint64_t>(0, n - 1)(random_) : 0;
    }

    void put(const ElfView::Field& f) { putAt(0, f); }
    void putAt(uint64_t base, const ElfView::Field& f) {
        const size_t at = static_cast<size_t>(base + elf_.offsetOf(f));
        const size_t width = elf_.widthOf(f);
        elf_.put(at, width, hostile(elf_.get(at, width), width));
    }

    // A random section for which `wanted` holds, starting the search at a random one; 0 if none.
    template <typename Wanted> uint64_t sectionWith(Wanted&& wanted) {
        const uint64_t count = elf_.sectionCount();
        const uint64_t first = pick(count);
        for (uint64_t i = 0; i < count; ++i) {
            const uint64_t index = (first + i) % count;
            if (wanted(index))
                return index;
        }
        return 0;
    }

    ElfView& elf_;
    std::minstd_rand random_;
};

} // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t maxSize,
                                          unsigned seed) {
    ElfView elf(data, size);
    if (!elf.valid() || seed % 2 == 0)
        return LLVMFuzzerMutate(data, size, maxSize);
    Mutator(elf, seed / 2).mutate();
    return size;
}
