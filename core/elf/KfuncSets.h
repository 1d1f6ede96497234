// Kernel functions BPF programs may call (kfuncs), as the kernel lists them: each kfunc set is
// a `__BTF_ID__set8__<set>` symbol in .BTF_ids covering {u32 count; u32 flags;} and then one
// {u32 id; u32 flags;} pair per function, each labelled `__BTF_ID__func__<name>__<n>`. Sets are
// kfunc sets when their flags have BTF_SET8_KFUNCS (kernel 6.9 and later mark them).
#pragma once

#include "btforge/elf/ElfSymbolTable.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace btforge::elf {

inline constexpr uint32_t kSet8Kfuncs = 1u << 0;     // BTF_SET8_KFUNCS, in a set's flags
inline constexpr uint32_t kKfuncFastcall = 1u << 12; // KF_FASTCALL, in a function's flags
// KF_ARENA_RET, KF_ARENA_ARG1, KF_ARENA_ARG2: that pointer is into a BPF arena (address space 1).
inline constexpr uint32_t kKfuncArenaReturn = 1u << 13;
inline constexpr uint32_t kKfuncArenaFirstArg = 1u << 14;
inline constexpr uint32_t kKfuncArenaSecondArg = 1u << 15;

struct Kfunc {
    std::string_view name;
    uint32_t flags = 0; // KF_* of the function's entry (the last one, if it is in several sets)
};

// Every kfunc, sorted by name. Empty without .BTF_ids or kfunc sets. A set or entry outside
// its section is an error naming the file and the symbol.
Expected<std::vector<Kfunc>> findKfuncs(const ElfSymbolTable& elf);

} // namespace btforge::elf
