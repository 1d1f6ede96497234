#include "elf/KfuncSets.h"

#include <algorithm>
#include <cstring>
#include <tuple>

namespace btforge::elf {
namespace {

constexpr std::string_view kSetPrefix = "__BTF_ID__set8__";
constexpr std::string_view kFuncPrefix = "__BTF_ID__func__";

// `__BTF_ID__func__bpf_obj_new_impl__123` -> `bpf_obj_new_impl`.
std::string_view functionName(std::string_view symbol) {
    std::string_view rest = symbol.substr(kFuncPrefix.size());
    auto sep = rest.rfind("__");
    return sep == std::string_view::npos ? rest : rest.substr(0, sep);
}

} // namespace

Expected<std::vector<Kfunc>> findKfuncs(const ElfSymbolTable& elf) {
    std::vector<Kfunc> kfuncs;
    const ElfSection* section = elf.section(".BTF_ids");
    if (!section)
        return kfuncs;
    auto bytes = elf.sectionBytes(*section);
    if (!bytes)
        return kfuncs;
    // The u32 at `symbol`'s offset plus `skip`, in the file's byte order.
    auto word = [&](const ElfObject& symbol, uint64_t skip) -> Expected<uint32_t> {
        const uint64_t at = elf.offsetInSection(symbol.address, symbol.section) + skip;
        if (at > bytes->size() || bytes->size() - at < 4)
            return Error::badInput(elf.fileName() + ": .BTF_ids: symbol " +
                                   std::string(symbol.name) + " points past the section (offset " +
                                   std::to_string(at) + ")");
        uint8_t b[4];
        std::memcpy(b, bytes->data() + at, 4);
        return elf.isBigEndian() ? uint32_t(b[0]) << 24 | b[1] << 16 | b[2] << 8 | b[3]
                                 : uint32_t(b[3]) << 24 | b[2] << 16 | b[1] << 8 | b[0];
    };
    std::span<const ElfObject> symbols = elf.btfIdSymbols();
    for (const ElfObject& set : symbols) {
        if (set.section != section->index || !set.name.starts_with(kSetPrefix))
            continue;
        auto setFlags = word(set, 4);
        if (!setFlags)
            return std::move(setFlags).error();
        if (!(*setFlags & kSet8Kfuncs))
            continue;
        // Symbols are sorted by section and address: the set's entries follow it.
        auto first = std::lower_bound(
            symbols.begin(), symbols.end(), set, [](const ElfObject& a, const ElfObject& b) {
                return std::tie(a.section, a.address) < std::tie(b.section, b.address);
            });
        for (auto it = first; it != symbols.end() && it->section == set.section &&
                              it->address < set.address + set.size;
             ++it) {
            const ElfObject& entry = *it;
            if (!entry.name.starts_with(kFuncPrefix))
                continue;
            auto flags = word(entry, 4);
            if (!flags)
                return std::move(flags).error();
            kfuncs.push_back({functionName(entry.name), *flags});
        }
    }
    // One per name, the last entry's flags winning.
    std::stable_sort(kfuncs.begin(), kfuncs.end(),
                     [](const Kfunc& a, const Kfunc& b) { return a.name < b.name; });
    auto last = std::unique(kfuncs.rbegin(), kfuncs.rend(),
                            [](const Kfunc& a, const Kfunc& b) { return a.name == b.name; });
    kfuncs.erase(kfuncs.begin(), last.base());
    return kfuncs;
}

} // namespace btforge::elf
