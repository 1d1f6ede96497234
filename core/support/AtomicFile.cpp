#include "btforge/support/AtomicFile.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace btforge {
namespace {

Error systemError(const std::string& path, const char* what) {
    return Error::io(path + ": " + what + ": " + std::strerror(errno));
}

} // namespace

Expected<AtomicFile> AtomicFile::create(const std::string& path) {
    // The temporary file sits next to the target so the final rename stays on one filesystem.
    std::string pattern = path + ".tmp.XXXXXX";
    int fd = ::mkstemp(pattern.data());
    if (fd < 0)
        return systemError(path, "cannot create output");
    ::close(fd);
    AtomicFile file(path, pattern);
    file.stream_.open(pattern, std::ios::binary | std::ios::trunc);
    if (!file.stream_)
        return systemError(pattern, "cannot open output");
    return file;
}

AtomicFile::AtomicFile(AtomicFile&& other) noexcept
    : path_(std::move(other.path_)), tempPath_(std::move(other.tempPath_)),
      stream_(std::move(other.stream_)), committed_(other.committed_) {
    other.committed_ = true; // the moved-from object owns no temporary file any more
}

AtomicFile::~AtomicFile() {
    if (!committed_) {
        stream_.close();
        ::unlink(tempPath_.c_str());
    }
}

Expected<void> AtomicFile::commit(std::optional<unsigned> requestedMode) {
    stream_.flush();
    bool written = static_cast<bool>(stream_);
    stream_.close();
    if (!written || stream_.fail())
        return systemError(path_, "cannot write output");
    int fd = ::open(tempPath_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ::fsync(fd);
        ::close(fd);
    }
    struct stat st {};
    mode_t mode = 0644;
    if (requestedMode)
        mode = *requestedMode;
    else if (::stat(path_.c_str(), &st) == 0)
        mode = st.st_mode & 07777;
    else {
        mode_t mask = ::umask(0);
        ::umask(mask);
        mode = 0666 & ~mask;
    }
    ::chmod(tempPath_.c_str(), mode);
    if (::rename(tempPath_.c_str(), path_.c_str()) != 0)
        return systemError(path_, "cannot rename output into place");
    committed_ = true;
    return {};
}

} // namespace btforge
