#include "TerminalProgress.h"

#include <cstdio>
#include <unistd.h>

namespace btforge::host {

TerminalProgress::TerminalProgress(bool enabled) : enabled_(enabled && ::isatty(STDERR_FILENO)) {}

void TerminalProgress::begin(std::string_view what, uint64_t total) {
    if (!enabled_)
        return;
    std::lock_guard lock(drawing_);
    what_ = what;
    total_ = total;
    done_ = 0;
    lastDraw_ = {};
}

void TerminalProgress::advance(uint64_t done) {
    if (!enabled_)
        return;
    uint64_t now = done_ += done;
    // Redraw at most ten times a second, and never make a worker wait for the terminal.
    std::unique_lock lock(drawing_, std::try_to_lock);
    if (lock.owns_lock())
        draw(now);
}

void TerminalProgress::draw(uint64_t done) {
    auto now = std::chrono::steady_clock::now();
    if (now - lastDraw_ < std::chrono::milliseconds(100))
        return;
    lastDraw_ = now;
    if (total_)
        std::fprintf(stderr, "\r%s %3u%% (%llu/%llu)", what_.c_str(),
                     static_cast<unsigned>(done * 100 / total_),
                     static_cast<unsigned long long>(done),
                     static_cast<unsigned long long>(total_));
    else
        std::fprintf(stderr, "\r%s %llu", what_.c_str(), static_cast<unsigned long long>(done));
    std::fflush(stderr);
}

void TerminalProgress::end() {
    if (!enabled_)
        return;
    std::lock_guard lock(drawing_);
    std::fputs("\r\033[K", stderr); // erase the progress line
    std::fflush(stderr);
}

void StderrDiagnostics::warning(std::string_view message) {
    if (quiet_)
        return;
    std::lock_guard lock(writing_);
    std::fprintf(stderr, "btforge: warning: %.*s\n", static_cast<int>(message.size()),
                 message.data());
}

} // namespace btforge::host
