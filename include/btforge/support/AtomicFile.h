// An output file that appears only when complete: written to a temporary file next to the
// target, then renamed over it. Destroyed without commit(), it removes the temporary file, so a
// failed run never leaves a partial or stale output behind.
#pragma once

#include "btforge/support/Error.h"

#include <fstream>
#include <optional>
#include <string>

namespace btforge {

class AtomicFile {
public:
    static Expected<AtomicFile> create(const std::string& path);

    AtomicFile(AtomicFile&& other) noexcept;
    AtomicFile& operator=(AtomicFile&&) = delete;
    AtomicFile(const AtomicFile&) = delete;
    ~AtomicFile();

    std::ostream& stream() { return stream_; }
    // Flushes, syncs and renames into place with permissions `mode`; by default those of a file
    // it replaces, or 0666 less the umask.
    Expected<void> commit(std::optional<unsigned> mode = std::nullopt);

private:
    AtomicFile(std::string path, std::string tempPath)
        : path_(std::move(path)), tempPath_(std::move(tempPath)) {}

    std::string path_;
    std::string tempPath_;
    std::ofstream stream_;
    bool committed_ = false;
};

} // namespace btforge
