#include "btforge/elf/Target.h"

#include <cstring>
#include <elf.h>

namespace btforge::elf {

std::string Target::machineName() const {
    switch (machine) {
    case EM_386:
        return "i386";
    case EM_X86_64:
        return "x86-64";
    case EM_ARM:
        return "arm";
    case EM_AARCH64:
        return "aarch64";
    case EM_S390:
        return pointerSize == 8 ? "s390x" : "s390";
    case EM_PPC:
        return "powerpc";
    case EM_PPC64:
        return "powerpc64";
    case EM_RISCV:
        return pointerSize == 8 ? "riscv64" : "riscv32";
    case EM_LOONGARCH:
        return "loongarch";
    case EM_MIPS:
        return "mips";
    case EM_SPARC:
    case EM_SPARCV9:
        return "sparc";
    case EM_BPF:
        return "bpf";
    default:
        return "EM " + std::to_string(machine);
    }
}

std::string Target::describe() const {
    return machineName() + ", " + std::to_string(pointerSize * 8) + "-bit, " +
           (isBigEndian() ? "big-endian" : "little-endian");
}

std::optional<Target> targetOf(std::span<const std::byte> image) {
    if (image.size() < EI_NIDENT + 4 || std::memcmp(image.data(), ELFMAG, SELFMAG) != 0)
        return std::nullopt;
    auto ident = [&](size_t i) { return static_cast<uint8_t>(image[i]); };
    Target target;
    switch (ident(EI_CLASS)) {
    case ELFCLASS32:
        target.pointerSize = 4;
        break;
    case ELFCLASS64:
        target.pointerSize = 8;
        break;
    default:
        return std::nullopt;
    }
    switch (ident(EI_DATA)) {
    case ELFDATA2LSB:
        target.byteOrder = ir::ByteOrder::Little;
        break;
    case ELFDATA2MSB:
        target.byteOrder = ir::ByteOrder::Big;
        break;
    default:
        return std::nullopt;
    }
    // An unsigned field of the header, in the file's byte order.
    auto field = [&](size_t at, size_t width) {
        uint32_t value = 0;
        for (size_t i = 0; i < width; ++i)
            value = value << 8 | ident(at + (target.isBigEndian() ? i : width - 1 - i));
        return value;
    };
    // e_machine follows e_type, right after the identification, in both classes.
    target.machine = static_cast<uint16_t>(field(EI_NIDENT + 2, 2));
    // e_flags follows e_entry, e_phoff and e_shoff, each as wide as an address.
    const size_t flagsAt = EI_NIDENT + 8 + 3 * size_t{target.pointerSize};
    if (image.size() >= flagsAt + 4)
        target.flags = field(flagsAt, 4);
    return target;
}

} // namespace btforge::elf
