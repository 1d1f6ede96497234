#include "btforge/support/MappedFile.h"

#include "btforge/support/FileGuard.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <optional>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>
#include <vector>

namespace btforge {
namespace {

struct Descriptor {
    int fd;
    ~Descriptor() {
        if (fd >= 0)
            ::close(fd);
    }
    int release() { return std::exchange(fd, -1); }
};

Error systemError(const std::string& path, const char* what) {
    return Error::io(path + ": " + what + ": " + std::strerror(errno));
}

// Directories and devices are no input: a device may never end (/dev/zero) or act when opened.
std::optional<Error> refusedKind(const std::string& path, const struct stat& st) {
    if (S_ISDIR(st.st_mode))
        return Error::badInput(path + ": is a directory");
    if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
        return Error::badInput(path + ": is a device; btforge reads regular files, pipes and "
                                      "sockets");
    return std::nullopt;
}

const std::byte* mapReadOnly(int fd, size_t size) {
    void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    return p == MAP_FAILED ? nullptr : static_cast<const std::byte*>(p);
}

// Reads `in` to its end into a new memfd, at most `limit` bytes; returns the memfd.
Expected<int> readIntoMemory(const std::string& path, int in, uint64_t limit, uint64_t& size) {
    Descriptor memory{::memfd_create("btforge-input", MFD_CLOEXEC)};
    if (memory.fd < 0)
        return systemError(path, "cannot make room for its bytes");
    // On the heap, not thread_local: every thread of every run would have its 64 KB zeroed at
    // its start (16 page faults each), for the rare run that reads a stream.
    std::vector<std::byte> buffer(1 << 16);
    std::byte* chunk = buffer.data();
    size = 0;
    for (;;) {
        ssize_t n = ::read(in, chunk, buffer.size());
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return systemError(path, "cannot read");
        if (n == 0)
            break;
        if (size + static_cast<uint64_t>(n) > limit)
            return Error::badInput(path + ": not a regular file, and longer than the " +
                                   std::to_string(limit) +
                                   " bytes btforge reads from a stream (--stream-limit)");
        for (ssize_t done = 0; done < n;) {
            ssize_t w = ::write(memory.fd, chunk + done, static_cast<size_t>(n - done));
            if (w < 0 && errno == EINTR)
                continue;
            if (w < 0)
                return systemError(path, "cannot keep its bytes in memory");
            done += w;
        }
        size += static_cast<uint64_t>(n);
    }
    return memory.release();
}

} // namespace

Expected<MappedFile> MappedFile::open(const std::string& path, uint64_t streamLimit) {
    // Checked before opening, so that no device is ever opened; and again on what was opened.
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
        return systemError(path, "cannot open");
    if (auto refused = refusedKind(path, st))
        return *refused;
    Descriptor fd{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY)};
    if (fd.fd < 0)
        return systemError(path, "cannot open");
    if (::fstat(fd.fd, &st) != 0)
        return systemError(path, "cannot stat");
    if (auto refused = refusedKind(path, st))
        return *refused;
    if (S_ISREG(st.st_mode) && st.st_size > 0) {
        auto size = static_cast<size_t>(st.st_size);
        if (const std::byte* data = mapReadOnly(fd.fd, size)) {
            installFileGuard();
            int watch = watchInput(fd.fd, size, path);
            return MappedFile(path, fd.release(), data, size, watch);
        }
    }
    // Pipes, sockets, and files that report no size or refuse mmap (procfs, sysfs): read once.
    uint64_t size = 0;
    auto memory = readIntoMemory(path, fd.fd, streamLimit, size);
    if (!memory)
        return std::move(memory).error();
    Descriptor held{*memory};
    const std::byte* data = nullptr;
    if (size > 0 && !(data = mapReadOnly(held.fd, static_cast<size_t>(size))))
        return systemError(path, "cannot map its bytes");
    return MappedFile(path, held.release(), data, static_cast<size_t>(size), -1);
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : path_(std::move(other.path_)), fd_(std::exchange(other.fd_, -1)),
      data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)),
      watch_(std::exchange(other.watch_, -1)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
    if (this != &other) {
        release();
        path_ = std::move(other.path_);
        fd_ = std::exchange(other.fd_, -1);
        data_ = std::exchange(other.data_, nullptr);
        size_ = std::exchange(other.size_, 0);
        watch_ = std::exchange(other.watch_, -1);
    }
    return *this;
}

MappedFile::~MappedFile() {
    release();
}

void MappedFile::release() {
    unwatchInput(std::exchange(watch_, -1));
    if (data_)
        ::munmap(const_cast<std::byte*>(data_), size_);
    if (fd_ >= 0)
        ::close(fd_);
    data_ = nullptr;
    fd_ = -1;
}

void dropFilePages(std::span<const std::byte> range) {
    const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
    auto first = (reinterpret_cast<uintptr_t>(range.data()) + page - 1) & ~(page - 1);
    auto last = reinterpret_cast<uintptr_t>(range.data() + range.size()) & ~(page - 1);
    if (last > first)
        ::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
}

} // namespace btforge
