// What must hold when the process has to end at once, from a signal handler: an input file
// mapped in memory that shrinks under the mapping raises SIGBUS on the next read of a page past
// its new end. The handler installed here names the input that changed (one line, exit 1) and
// removes the temporary outputs, instead of a crash that leaves them behind. A signal that ends
// the process (SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT, SIGALRM, SIGXCPU, SIGXFSZ) removes them
// too, then ends it as the signal would have.
#pragma once

#include "btforge/Export.h"

#include <cstdint>
#include <string>

namespace btforge {

// Installs the handlers (once; later calls do nothing). A signal ignored when it is installed
// (nohup) stays ignored.
BTFORGE_API void installFileGuard();

// `fd` is an input read through a mapping of `size` bytes; `path` names it in the message.
// Returns a token for unwatchInput. Up to a few dozen inputs at once; more are not watched.
BTFORGE_API int watchInput(int fd, uint64_t size, const std::string& path);
BTFORGE_API void unwatchInput(int token);

// `path` is a temporary output to remove if the process must end at once.
BTFORGE_API int watchTemporary(const std::string& path);
BTFORGE_API void unwatchTemporary(int token);

// Between a temporary output's creation and watchTemporary, an ending signal (on any thread)
// would leave the file behind: while a TemporaryCreation lives, such a signal waits, and it is
// taken when the last one ends.
class BTFORGE_API TemporaryCreation {
public:
    TemporaryCreation();
    ~TemporaryCreation();
    TemporaryCreation(const TemporaryCreation&) = delete;
    TemporaryCreation& operator=(const TemporaryCreation&) = delete;
};

// Ends the process at once, for what cannot return an error (an exception escaping a worker):
// prints "btforge: error: MESSAGE", removes the temporary outputs and exits 1.
[[noreturn]] BTFORGE_API void endRun(const char* message);

} // namespace btforge
