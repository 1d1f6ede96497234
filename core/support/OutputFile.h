// An output file, written as docs/security.md says: a regular file (or a new path) appears only
// when complete, written to a temporary file beside it and renamed over it with the mode and
// owner of the file it replaces; a symbolic link is followed (unless another user's in a sticky
// world-writable directory, as the kernel rules), and the rename happens beside its target; a
// device, FIFO or socket is written directly, as any Unix tool would. Destroyed without
// commit(), it removes its temporary file (as a signal that ends the run does: FileGuard): a
// failed run leaves the target untouched.
#pragma once

#include "btforge/support/Error.h"

#include <memory>
#include <optional>
#include <ostream>
#include <string>

namespace btforge {

class OutputFile {
public:
    // What may be written: any output, or (--in-place) only a regular file, refused otherwise
    // without being opened.
    enum class Target { Any, RegularFile };

    // Refuses a directory, a regular file this user may not write or could not replace with its
    // owner kept (another user's file, unless root), and a descriptor of btforge's own.
    static Expected<OutputFile> create(const std::string& path, Target target = Target::Any);

    // Called first thing in main: /proc/self/fd/N (/dev/fd/N) is an output only for a descriptor
    // open then, never one btforge opened itself. Without it, only 0, 1 and 2.
    static void recordInheritedDescriptors();

    OutputFile(OutputFile&&) noexcept;
    OutputFile& operator=(OutputFile&&) = delete;
    ~OutputFile();

    std::ostream& stream();
    // Flushes; for a regular file also renames into place (synced first when it replaces an
    // input in place) with permissions `mode`
    // (default: those of the file it replaces, or 0666 less the umask).
    Expected<void> commit(std::optional<unsigned> mode = std::nullopt);

    struct State;

private:
    explicit OutputFile(std::unique_ptr<State> state);
    std::unique_ptr<State> state_;
};

} // namespace btforge
