// libFuzzer target for the DWARF path: the input is an ELF image, read by LibdwUnitReader (which
// takes a path: the bytes go to a memfd, opened as /proc/self/fd/N) and every unit it decodes
// mapped by dwarf::mapUnit, the addresses of the functions it finds located in ELF sections.
// Nothing may crash, and every error must be one line naming the file.
#include "../../plugins/loader-dwarf/LibdwUnitReader.h"
#include "btforge/dwarf/UnitMapper.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
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

    auto reader = dwarf::LibdwUnitReader::open(path);
    if (!reader) {
        checkError(reader.error(), path);
        return 0;
    }
    dwarf::UnitDies dies;
    for (size_t i = 0; i < (*reader)->unitCount(); ++i) {
        if (auto read = (*reader)->readUnit(i, dies); !read) {
            checkError(read.error(), path);
            continue;
        }
        dwarf::MappedUnit mapped = dwarf::mapUnit(dies, static_cast<uint32_t>(i));
        for (const dwarf::FunctionObservation& f : mapped.observations.functions) {
            if (f.hasLowPc)
                (void)(*reader)->locate(f.lowPc);
        }
        (*reader)->releaseUnit(i);
    }
    return 0;
}
