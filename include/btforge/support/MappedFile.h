// A whole input file, read-only and memory-mapped (never modified through this mapping).
#pragma once

#include "btforge/support/Error.h"

#include <cstddef>
#include <span>
#include <string>

namespace btforge {

class MappedFile {
public:
    static Expected<MappedFile> open(const std::string& path);

    MappedFile(MappedFile&& other) noexcept;
    MappedFile& operator=(MappedFile&& other) noexcept;
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;
    ~MappedFile();

    std::span<const std::byte> bytes() const { return {data_, size_}; }
    const std::string& path() const { return path_; }

private:
    MappedFile(std::string path, const std::byte* data, size_t size, bool mapped)
        : path_(std::move(path)), data_(data), size_(size), mapped_(mapped) {}
    void release();

    std::string path_;
    const std::byte* data_ = nullptr;
    size_t size_ = 0;
    bool mapped_ = false; // false: heap copy (files mmap refuses, like /sys/kernel/btf/*)
};

// Gives back the resident pages wholly inside `range`, which must lie in a read-only mapping of a
// file (never a heap copy): they read back from the file when next touched. Readers use it once
// they are done with a part of a large input (a kernel's 164 MB of .debug_info).
void dropFilePages(std::span<const std::byte> range);

} // namespace btforge
