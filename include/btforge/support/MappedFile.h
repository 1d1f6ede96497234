// A whole input file, opened once and read-only: mapped when it is a regular file, read once
// into an anonymous memory file (memfd) when it is a pipe, a socket or a file mmap refuses
// (/sys/kernel/btf/*). Devices and directories are refused. docs/security.md lists the rules.
#pragma once

#include "btforge/Export.h"
#include "btforge/support/Error.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace btforge {

// The most a non-regular input may hold (--stream-limit): a FIFO fed from /dev/zero must end.
inline constexpr uint64_t kDefaultStreamLimit = uint64_t(4) << 30;

class BTFORGE_API MappedFile {
public:
    static Expected<MappedFile> open(const std::string& path,
                                     uint64_t streamLimit = kDefaultStreamLimit);

    MappedFile(MappedFile&& other) noexcept;
    MappedFile& operator=(MappedFile&& other) noexcept;
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;
    ~MappedFile();

    std::span<const std::byte> bytes() const { return {data_, size_}; }
    const std::string& path() const { return path_; }
    // A descriptor of the same bytes (the file itself, or the memfd holding a stream's bytes),
    // for libraries that read through one (libelf); it stays owned by this object.
    int descriptor() const { return fd_; }

private:
    MappedFile(std::string path, int fd, const std::byte* data, size_t size, int watch)
        : path_(std::move(path)), fd_(fd), data_(data), size_(size), watch_(watch) {}
    void release();

    std::string path_;
    int fd_ = -1;
    const std::byte* data_ = nullptr;
    size_t size_ = 0;
    int watch_ = -1; // FileGuard's token: a mapped regular file that may shrink while read
};

// Gives back the resident pages wholly inside `range`, which must lie in a read-only mapping of a
// file: they read back from the file when next touched. Readers use it once they are done with a
// part of a large input (a kernel's 164 MB of .debug_info).
BTFORGE_API void dropFilePages(std::span<const std::byte> range);

} // namespace btforge
