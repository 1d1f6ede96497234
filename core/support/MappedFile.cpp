#include "btforge/support/MappedFile.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace btforge {
namespace {

struct FdCloser {
    int fd;
    ~FdCloser() {
        if (fd >= 0)
            ::close(fd);
    }
};

Error systemError(const std::string& path, const char* what) {
    return Error::io(path + ": " + what + ": " + std::strerror(errno));
}

} // namespace

Expected<MappedFile> MappedFile::open(const std::string& path) {
    FdCloser fd{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
    if (fd.fd < 0)
        return systemError(path, "cannot open");
    struct stat st {};
    if (::fstat(fd.fd, &st) != 0)
        return systemError(path, "cannot stat");
    if (S_ISDIR(st.st_mode))
        return Error::badInput(path + ": is a directory");
    if (S_ISREG(st.st_mode) && st.st_size > 0) {
        void* p =
            ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd.fd, 0);
        if (p != MAP_FAILED)
            return MappedFile(path, static_cast<const std::byte*>(p),
                              static_cast<size_t>(st.st_size), true);
    }
    // sysfs files report a size but refuse mmap, pipes report none: read them to the end.
    std::vector<std::byte> buffer;
    std::byte chunk[1 << 16];
    for (;;) {
        ssize_t n = ::read(fd.fd, chunk, sizeof chunk);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return systemError(path, "cannot read");
        }
        if (n == 0)
            break;
        buffer.insert(buffer.end(), chunk, chunk + n);
    }
    auto* copy = new std::byte[buffer.size() ? buffer.size() : 1];
    std::copy(buffer.begin(), buffer.end(), copy); // memcpy may not take an empty vector's null
    return MappedFile(path, copy, buffer.size(), false);
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : path_(std::move(other.path_)), data_(other.data_), size_(other.size_),
      mapped_(other.mapped_) {
    other.data_ = nullptr;
    other.size_ = 0;
}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
    if (this != &other) {
        release();
        path_ = std::move(other.path_);
        data_ = other.data_;
        size_ = other.size_;
        mapped_ = other.mapped_;
        other.data_ = nullptr;
        other.size_ = 0;
    }
    return *this;
}

MappedFile::~MappedFile() {
    release();
}

void MappedFile::release() {
    if (!data_)
        return;
    if (mapped_)
        ::munmap(const_cast<std::byte*>(data_), size_);
    else
        delete[] data_;
    data_ = nullptr;
}

void dropFilePages(std::span<const std::byte> range) {
    const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
    auto first = (reinterpret_cast<uintptr_t>(range.data()) + page - 1) & ~(page - 1);
    auto last = reinterpret_cast<uintptr_t>(range.data() + range.size()) & ~(page - 1);
    if (last > first)
        ::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
}

} // namespace btforge
