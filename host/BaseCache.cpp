#include "BaseCache.h"

#include "support/Hash.h"

#include "btforge/ir/BaseImage.h"
#include "btforge/support/Hex.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <optional>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>
#include <vector>

namespace btforge::host {
namespace {

constexpr std::string_view kPrefix = "base-";
constexpr std::string_view kSuffix = ".img";

// What names a file's contents for as long as nobody changes it: the change time moves on any
// write or rename, and no user can set it.
std::string identity(const struct stat& st) {
    return std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino) + ":" +
           std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) + "." +
           std::to_string(st.st_mtim.tv_nsec) + ":" + std::to_string(st.st_ctim.tv_sec) + "." +
           std::to_string(st.st_ctim.tv_nsec);
}

std::optional<std::string> pathIdentity(const char* path) {
    struct stat st {};
    if (!path || ::stat(path, &st) != 0)
        return std::nullopt;
    return identity(st);
}

// The image's file name: a hash of its key, which the image also holds whole (so a name that
// differs from one build to another only misses).
std::string nameOf(const std::string& key) {
    return std::string(kPrefix) + hex(hashing::combineText(0, key)) + std::string(kSuffix);
}

bool onlyOwnerWrites(const struct stat& st) {
    return st.st_uid == ::geteuid() && (st.st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

Error ioError(const std::string& path, const std::string& what) {
    return Error::io(path + ": --base-cache: " + what);
}

// Writes all of `bytes` to `fd`.
bool writeAll(int fd, std::span<const std::byte> bytes) {
    while (!bytes.empty()) {
        const ssize_t n = ::write(fd, bytes.data(), bytes.size());
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        bytes = bytes.subspan(static_cast<size_t>(n));
    }
    return true;
}

} // namespace

// The key of an image: the base file, the code that reads it and writes images (the core
// library, which holds both, found by one of its functions), the BTF loader and its options.
std::optional<std::string> BaseCache::keyOf(const MappedFile& file, const LoadedPlugin& loader) {
    // The file itself: a pipe's or sysfs's bytes, held in a memory file, have no lasting
    // identity.
    struct stat st {
    }, named{};
    if (::fstat(file.descriptor(), &st) != 0 || !S_ISREG(st.st_mode) ||
        ::stat(file.path().c_str(), &named) != 0 || named.st_dev != st.st_dev ||
        named.st_ino != st.st_ino)
        return std::nullopt;
    Dl_info core{};
    if (::dladdr(reinterpret_cast<const void*>(&ir::readBaseImage), &core) == 0)
        return std::nullopt;
    auto coreId = pathIdentity(core.dli_fname);
    auto loaderId = pathIdentity(loader.path.c_str());
    if (!coreId || !loaderId)
        return std::nullopt;
    std::string key = "base " + identity(st) + "\ncore " + *coreId + "\nloader " + *loaderId;
    for (const auto& [name, value] : loader.options)
        key += "\n" + name + "=" + value;
    return key;
}

Expected<BaseCache> BaseCache::open(const std::string& dir, Failures failures) {
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return ioError(dir, std::strerror(errno));
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !onlyOwnerWrites(st)) {
        ::close(fd);
        return ioError(dir, "not a directory of this user's that only its owner may write");
    }
    return BaseCache(dir, fd, failures);
}

BaseCache::BaseCache(BaseCache&& other) noexcept
    : path_(std::move(other.path_)), dir_(std::exchange(other.dir_, -1)),
      failures_(other.failures_) {}

BaseCache::~BaseCache() {
    if (dir_ >= 0)
        ::close(dir_);
}

std::shared_ptr<const ir::TypeGraph> BaseCache::find(const std::string& key) const {
    const int fd = ::openat(dir_, nameOf(key).c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return nullptr;
    struct stat st {};
    const bool usable =
        ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && onlyOwnerWrites(st) && st.st_size > 0;
    void* map =
        usable ? ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0)
               : MAP_FAILED;
    ::close(fd);
    if (map == MAP_FAILED)
        return nullptr;
    const auto size = static_cast<size_t>(st.st_size);
    // A run reads scattered parts of the image (a small module: 5 of its 8 MB): pages read
    // ahead of a fault would be mapped, and counted in its peak RSS, for nothing.
    ::madvise(map, size, MADV_RANDOM);
    std::shared_ptr<const void> owner(
        map, [size](const void* p) { ::munmap(const_cast<void*>(p), size); });
    return ir::readBaseImage({static_cast<const std::byte*>(map), size}, key, std::move(owner));
}

Expected<BaseCache::Stored>
BaseCache::store(const std::string& key, const std::shared_ptr<const ir::TypeGraph>& base) const {
    // The lock is the directory's own (flock on its descriptor): no file to leave behind, and it
    // goes with the process however that ends.
    const bool locked = ::flock(dir_, LOCK_EX | LOCK_NB) == 0;
    if (!locked && errno == EWOULDBLOCK)
        return Stored{}; // another process is writing an image: this run's base is read already
    // Not locked for another reason (a network file system that locks no directory): written
    // all the same, as renaming into place keeps readers safe.
    Expected<Stored> stored = Stored{};
    if (auto prepared = find(key))
        stored = Stored{false, std::move(prepared)};
    else if (auto written = write(key, base); written)
        stored = Stored{true, nullptr};
    else
        stored = std::move(written).error();
    if (locked)
        ::flock(dir_, LOCK_UN);
    return stored;
}

Expected<void> BaseCache::write(const std::string& key,
                                const std::shared_ptr<const ir::TypeGraph>& base) const {
    const std::string name = nameOf(key);
    static std::atomic<unsigned> serial{0};
    const std::string temporary =
        "." + name + "." + std::to_string(::getpid()) + "." + std::to_string(serial++);
    const int fd =
        ::openat(dir_, temporary.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return ioError(path_ + "/" + temporary, std::strerror(errno));
    // A page per write: the page cache then holds the image in single pages, of which a run
    // maps only those around what it reads (MADV_RANDOM, find()). Written in larger pieces, it
    // is held in large folios, and a fault maps a folio whole: every run had the whole image in
    // its RSS.
    const auto page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    const bool done = ir::writeBaseImage(
        base, key, [fd](std::span<const std::byte> block) { return writeAll(fd, block); }, page);
    const std::string why = std::strerror(errno);
    const bool closed = ::close(fd) == 0;
    if (!done || !closed || ::renameat(dir_, temporary.c_str(), dir_, name.c_str()) != 0) {
        const std::string reason = done && closed ? std::strerror(errno) : why;
        ::unlinkat(dir_, temporary.c_str(), 0);
        return ioError(path_ + "/" + name, "cannot write the base's image: " + reason);
    }
    dropOldest();
    return {};
}

// Removes all but the kKeptImages most recent images: a kernel tree rebuilt again and again
// would otherwise leave one per vmlinux it ever linked.
void BaseCache::dropOldest() const {
    const int fd = ::dup(dir_);
    DIR* dir = fd >= 0 ? ::fdopendir(fd) : nullptr;
    if (!dir) {
        if (fd >= 0)
            ::close(fd);
        return;
    }
    ::rewinddir(dir);
    std::vector<std::pair<struct timespec, std::string>> images;
    while (const dirent* entry = ::readdir(dir)) {
        const std::string_view name = entry->d_name;
        struct stat st {};
        if (!name.starts_with(kPrefix) || !name.ends_with(kSuffix) ||
            ::fstatat(dir_, entry->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
            continue;
        images.emplace_back(st.st_mtim, std::string(name));
    }
    ::closedir(dir);
    if (images.size() <= kKeptImages)
        return;
    std::sort(images.begin(), images.end(), [](const auto& a, const auto& b) {
        return a.first.tv_sec != b.first.tv_sec ? a.first.tv_sec > b.first.tv_sec
                                                : a.first.tv_nsec > b.first.tv_nsec;
    });
    for (size_t i = kKeptImages; i < images.size(); ++i)
        ::unlinkat(dir_, images[i].second.c_str(), 0);
}

} // namespace btforge::host
