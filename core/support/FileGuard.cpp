#include "btforge/support/FileGuard.h"

#include <array>
#include <atomic>
#include <csignal>
#include <cstring>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

namespace btforge {
namespace {

// Slots are claimed and released by ordinary code and read by the handler: a slot is read only
// while its state says it is complete, and the handler allocates nothing.
enum SlotState : int { Free, Filling, Live };
constexpr size_t kPathMax = 4096;

// All zero until claimed (fd and size are read only once the slot is Live): the 192 KB of
// slots are then constant-initialised into .bss, and a run touches only the pages it claims
// (initialising fd to -1 at start-up wrote, and faulted in, every page: 48 per run).
struct InputSlot {
    std::atomic<int> state{Free};
    int fd = 0;
    uint64_t size = 0;
    char path[kPathMax]{};
};
struct TemporarySlot {
    std::atomic<int> state{Free};
    char path[kPathMax]{};
};

constinit std::array<InputSlot, 32> inputs;
constinit std::array<TemporarySlot, 16> temporaries;
std::atomic<bool> ending{false};
std::atomic<int> creating{0};      // TemporaryCreation scopes open
std::atomic<int> pendingSignal{0}; // an ending signal that arrived during one

template <typename Slots> int claim(Slots& slots, const std::string& path) {
    if (path.size() >= kPathMax)
        return -1;
    for (size_t i = 0; i < slots.size(); ++i) {
        int expected = Free;
        if (slots[i].state.compare_exchange_strong(expected, Filling)) {
            std::memcpy(slots[i].path, path.c_str(), path.size() + 1);
            return static_cast<int>(i);
        }
    }
    return -1;
}

void put(const char* text) {
    for (size_t left = std::strlen(text); left > 0;) {
        ssize_t n = ::write(STDERR_FILENO, text, left);
        if (n <= 0)
            return;
        text += n;
        left -= static_cast<size_t>(n);
    }
}

void putNumber(uint64_t value) {
    char digits[24];
    char* p = digits + sizeof digits;
    *--p = '\0';
    do {
        *--p = static_cast<char>('0' + value % 10);
        value /= 10;
    } while (value);
    put(p);
}

void removeTemporaries() {
    for (TemporarySlot& temporary : temporaries) {
        if (temporary.state.load() == Live)
            ::unlink(temporary.path);
    }
}

// A signal that ends the process (Ctrl-C, kill, a closed terminal, a reader gone from the pipe):
// the temporary outputs are removed, then the signal ends the process as it would have, so that
// the caller sees it (a shell's 128+N).
void onEndingSignal(int signal) {
    if (creating.load() > 0) {
        pendingSignal.store(signal);
        // Unless the creation ended meanwhile without seeing it: then it is this handler's.
        if (creating.load() > 0 || pendingSignal.exchange(0) == 0)
            return;
    }
    removeTemporaries();
    ::signal(signal, SIG_DFL);
    sigset_t unblocked;
    sigemptyset(&unblocked);
    sigaddset(&unblocked, signal);
    ::pthread_sigmask(SIG_UNBLOCK, &unblocked, nullptr);
    ::raise(signal);
    ::_exit(128 + signal);
}

void onBusError(int, siginfo_t*, void*) {
    for (InputSlot& input : inputs) {
        struct stat st {};
        if (input.state.load() != Live || ::fstat(input.fd, &st) != 0 ||
            static_cast<uint64_t>(st.st_size) >= input.size)
            continue;
        if (ending.exchange(true)) // another thread reports it
            for (;;)
                ::pause();
        put("btforge: error: ");
        put(input.path);
        put(": the file changed during the run (it shrank from ");
        putNumber(input.size);
        put(" to ");
        putNumber(static_cast<uint64_t>(st.st_size));
        put(" bytes while it was read)\n");
        removeTemporaries();
        ::_exit(1);
    }
    // Not an input that shrank: the default action, when the faulting access repeats.
    ::signal(SIGBUS, SIG_DFL);
}

} // namespace

void installFileGuard() {
    static const bool installed = [] {
        struct sigaction action {};
        action.sa_sigaction = onBusError;
        action.sa_flags = SA_SIGINFO;
        sigemptyset(&action.sa_mask);
        bool ok = ::sigaction(SIGBUS, &action, nullptr) == 0;
        constexpr std::array endingSignals{SIGHUP,  SIGINT,  SIGQUIT, SIGTERM,
                                           SIGPIPE, SIGALRM, SIGXCPU, SIGXFSZ};
        struct sigaction handler {};
        handler.sa_handler = onEndingSignal;
        sigemptyset(&handler.sa_mask); // the first signal decides how the process ends
        for (int signal : endingSignals)
            sigaddset(&handler.sa_mask, signal);
        for (int signal : endingSignals) {
            // Only a signal left to its default action: one the caller ignores (nohup, a
            // script's background job) stays ignored, and one a program embedding core handles
            // stays its (libFuzzer's SIGALRM drives its timeouts).
            struct sigaction previous {};
            if (::sigaction(signal, nullptr, &previous) == 0 && !(previous.sa_flags & SA_SIGINFO) &&
                previous.sa_handler == SIG_DFL)
                ok = ::sigaction(signal, &handler, nullptr) == 0 && ok;
        }
        return ok;
    }();
    (void)installed;
}

int watchInput(int fd, uint64_t size, const std::string& path) {
    int token = claim(inputs, path);
    if (token >= 0) {
        inputs[token].fd = fd;
        inputs[token].size = size;
        inputs[token].state.store(Live);
    }
    return token;
}

void unwatchInput(int token) {
    if (token >= 0)
        inputs[token].state.store(Free);
}

int watchTemporary(const std::string& path) {
    int token = claim(temporaries, path);
    if (token >= 0)
        temporaries[token].state.store(Live);
    return token;
}

void unwatchTemporary(int token) {
    if (token >= 0)
        temporaries[token].state.store(Free);
}

TemporaryCreation::TemporaryCreation() {
    creating.fetch_add(1);
}

TemporaryCreation::~TemporaryCreation() {
    if (creating.fetch_sub(1) == 1) {
        if (int signal = pendingSignal.exchange(0))
            ::raise(signal); // the handler ends the run now that the temporary is watched
    }
}

void endRun(const char* message) {
    if (ending.exchange(true)) // another thread is ending the run
        for (;;)
            ::pause();
    put("btforge: error: ");
    put(message);
    put("\n");
    removeTemporaries();
    ::_exit(1);
}

} // namespace btforge
