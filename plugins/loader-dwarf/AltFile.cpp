#include "AltFile.h"

#include "btforge/support/FileGuard.h"
#include "btforge/support/Hex.h"

#include <elfutils/libdwelf.h>
#include <gelf.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <vector>

namespace btforge::dwarf {
namespace {

// The input's bytes, shown on one printable line.
std::string printable(std::string text) {
    std::replace_if(
        text.begin(), text.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; }, '?');
    return text;
}

std::string hexBytes(const void* data, size_t size) {
    static const char digits[] = "0123456789abcdef";
    std::string out;
    for (size_t i = 0; i < size; ++i) {
        auto byte = static_cast<const unsigned char*>(data)[i];
        out += digits[byte >> 4];
        out += digits[byte & 15];
    }
    return out;
}

std::vector<std::string> candidates(const std::string& name, const std::string& id,
                                    const std::string& inputPath) {
    std::vector<std::string> paths;
    if (name.starts_with('/'))
        paths.push_back(name);
    else if (!name.empty()) {
        auto slash = inputPath.rfind('/');
        paths.push_back(slash == std::string::npos ? name : inputPath.substr(0, slash + 1) + name);
    }
    const std::string byId = id.size() > 2 ? "/usr/lib/debug/.build-id/" + id.substr(0, 2) + "/" +
                                                 id.substr(2) + ".debug"
                                           : "";
    // An input in an unpacked debug package (ROOT/usr/lib/debug/...: dpkg-deb -x, rpm2cpio)
    // names its alt file as installed: look under ROOT too, before the system's.
    if (const size_t at = inputPath.rfind("/usr/lib/debug/"); at != std::string::npos && at > 0) {
        const std::string root = inputPath.substr(0, at);
        if (name.starts_with('/'))
            paths.push_back(root + name);
        if (!byId.empty())
            paths.push_back(root + byId);
    }
    if (!byId.empty())
        paths.push_back(byId);
    return paths;
}

} // namespace

Expected<std::unique_ptr<AltFile>> AltFile::attach(Dwarf* main, const std::string& inputPath,
                                                   const std::string& explicitPath) {
    const char* rawName = nullptr;
    const void* rawId = nullptr;
    ssize_t idSize = dwelf_dwarf_gnu_debugaltlink(main, &rawName, &rawId);
    if (idSize == 0)
        return std::unique_ptr<AltFile>();
    if (idSize < 0 || !rawName)
        return Error::badInput(inputPath + ": .gnu_debugaltlink cannot be read (" +
                               printable(dwarf_errmsg(-1) ? dwarf_errmsg(-1) : "no build-id") +
                               ")");
    const std::string name = printable(rawName);
    const std::string id = hexBytes(rawId, static_cast<size_t>(idSize));
    const std::string link = inputPath + ": the alt file its .gnu_debugaltlink names ('" + name +
                             "', build-id " + id + ")";

    std::vector<std::string> paths = explicitPath.empty() ? candidates(rawName, id, inputPath)
                                                          : std::vector<std::string>{explicitPath};
    std::string problem;
    for (const std::string& path : paths) {
        // Never opened unless a regular file with bytes (which /proc's files report none of),
        // and opened without blocking, should it have become a FIFO since.
        auto refuse = [&](const std::string& why) {
            if (problem.empty())
                problem = printable(path) + ": " + why;
        };
        struct stat st {};
        struct statfs fs {};
        if (::stat(path.c_str(), &st) != 0) {
            if (!explicitPath.empty() || errno != ENOENT)
                refuse(std::strerror(errno));
            continue;
        }
        if (!S_ISREG(st.st_mode) || st.st_size == 0) {
            refuse("not a regular file with contents");
            continue;
        }
        if (::statfs(path.c_str(), &fs) == 0 &&
            (fs.f_type == PROC_SUPER_MAGIC || fs.f_type == SYSFS_MAGIC)) {
            refuse("in /proc or /sys");
            continue;
        }
        std::unique_ptr<AltFile> alt(new AltFile);
        alt->fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        struct stat opened {};
        if (alt->fd_ < 0 || ::fstat(alt->fd_, &opened) != 0 || !S_ISREG(opened.st_mode)) {
            refuse(alt->fd_ < 0 ? std::strerror(errno) : "not a regular file");
            continue;
        }
        installFileGuard();
        alt->watch_ = watchInput(alt->fd_, static_cast<uint64_t>(opened.st_size), path);
        alt->elf_ = elf_begin(alt->fd_, ELF_C_READ_MMAP, nullptr);
        if (!alt->elf_ || elf_kind(alt->elf_) != ELF_K_ELF) {
            refuse("not an ELF file");
            continue;
        }
        const void* altId = nullptr;
        ssize_t altIdSize = dwelf_elf_gnu_build_id(alt->elf_, &altId);
        if (altIdSize <= 0) {
            refuse("has no build-id");
            continue;
        }
        if (altIdSize != idSize || std::memcmp(altId, rawId, static_cast<size_t>(idSize)) != 0) {
            refuse("its build-id is " + hexBytes(altId, static_cast<size_t>(altIdSize)));
            continue;
        }
        alt->dwarf_ = dwarf_begin_elf(alt->elf_, DWARF_C_READ, nullptr);
        if (!alt->dwarf_) {
            refuse(std::string("cannot read its DWARF (") +
                   (dwarf_errmsg(-1) ? dwarf_errmsg(-1) : "unknown error") + ")");
            continue;
        }
        dwarf_setalt(main, alt->dwarf_);
        return alt;
    }
    return Error::badInput(
        link + ": " + (problem.empty() ? "not found (name it with --dwarf-alt FILE)" : problem));
}

AltFile::~AltFile() {
    if (dwarf_)
        dwarf_end(dwarf_);
    if (elf_)
        elf_end(elf_);
    unwatchInput(watch_);
    if (fd_ >= 0)
        ::close(fd_);
}

} // namespace btforge::dwarf
