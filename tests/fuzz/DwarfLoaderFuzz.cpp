// libFuzzer target for the DWARF path: the input is an ELF image, read by LibdwUnitReader, or by
// LlvmUnitReader when built with BTFORGE_FUZZ_LLVM_READER (both take the host's mapped file: the
// bytes go to a memfd, opened as /proc/self/fd/N) and mapped by dwarf::mapUnit as the conversion
// does (partial and type units together, then every other unit), the addresses of the functions
// found located in ELF sections. The merger is left out. Nothing may crash, and every error must be
// one line naming the file.
#ifdef BTFORGE_FUZZ_LLVM_READER
#include "../../plugins/loader-llvm-dwarf/LlvmUnitReader.h"
using Reader = btforge::dwarf::LlvmUnitReader;
#else
#include "../../plugins/loader-dwarf/LibdwUnitReader.h"
using Reader = btforge::dwarf::LibdwUnitReader;
#endif

#include "dwarf/UnitMapper.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

namespace {

using namespace btforge;

[[noreturn]] void die(const char* what, const std::string& detail) {
    std::fprintf(stderr, "dwarf-loader-fuzz: %s: %s\n", what, detail.c_str());
    std::abort();
}

void checkError(const Error& error, const std::string& path) {
    const std::string& message = error.message();
    if (message.find('\n') != std::string::npos)
        die("multi-line error", message);
    if (message.rfind(path + ": ", 0) != 0)
        die("error does not name the file", message);
}

// One memfd for the whole run, rewritten per input.
int inputFile() {
    static const int fd = memfd_create("dwarf-loader-fuzz", MFD_CLOEXEC);
    if (fd < 0)
        die("memfd_create failed", "");
    return fd;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const int fd = inputFile();
    if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != static_cast<ssize_t>(size))
        die("cannot write the input", "");
    static const std::string path = "/proc/self/fd/" + std::to_string(fd);

    auto file = MappedFile::open(path);
    if (!file)
        die("cannot map the input", file.error().message());
    auto shared = std::make_shared<MappedFile>(std::move(*file));
#ifdef BTFORGE_FUZZ_LLVM_READER
    auto reader = Reader::open(shared);
#else
    auto reader = Reader::open(shared, "");
#endif
    if (!reader) {
        checkError(reader.error(), path);
        return 0;
    }
    // As the conversion does: partial and type units mapped together, then each other unit.
    dwarf::UnitReader& units = **reader;
    dwarf::UnitDies partial, dies;
    for (size_t i = 0; i < units.unitCount(); ++i) {
        if (!units.isPartialUnit(i))
            continue;
        if (auto read = units.readUnit(i, dies); !read)
            checkError(read.error(), path);
        else if (partial.dies.empty())
            partial = dies;
        else if (dies.unitOffset > partial.dies.back().offset)
            partial.append(dies);
    }
    // The input's own target, so that big-endian and 32-bit rules are fuzzed too.
    dwarf::MappingRules rules;
    if (auto target = elf::targetOf(std::as_bytes(std::span(data, size)))) {
        rules.target = *target;
        rules.convention = dwarf::callingConventionOf(*target);
    }
    auto map = [&](const dwarf::UnitDies& unit, size_t index) {
        dwarf::MappedUnit mapped = dwarf::mapUnit(unit, static_cast<uint32_t>(index), rules);
        for (const dwarf::FunctionObservation& f : mapped.observations.functions) {
            if (f.hasLowPc)
                (void)units.locate(f.lowPc);
        }
    };
    if (!partial.dies.empty())
        map(partial, 0);
    for (size_t i = 0; i < units.unitCount(); ++i) {
        if (units.isPartialUnit(i))
            continue;
        if (auto read = units.readUnit(i, dies); !read) {
            checkError(read.error(), path);
            continue;
        }
        map(dies, i);
        units.releaseUnit(i);
    }
    return 0;
}
