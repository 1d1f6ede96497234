// Progress on stderr, only when stderr is a terminal and --quiet is off.
#pragma once

#include "btforge/plugin/Session.h"

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>

namespace btforge::host {

class TerminalProgress final : public plugin::Progress {
public:
    explicit TerminalProgress(bool enabled);

    void begin(std::string_view what, uint64_t total) override;
    void advance(uint64_t done) override;
    void end() override;

private:
    void draw(uint64_t done);

    bool enabled_;
    std::string what_;
    uint64_t total_ = 0;
    std::atomic<uint64_t> done_{0};
    std::mutex drawing_;
    std::chrono::steady_clock::time_point lastDraw_;
};

// Warnings go to stderr as "btforge: warning: ..." unless --quiet.
class StderrDiagnostics final : public plugin::Diagnostics {
public:
    explicit StderrDiagnostics(bool quiet) : quiet_(quiet) {}
    void warning(std::string_view message) override;

private:
    bool quiet_;
    std::mutex writing_;
};

} // namespace btforge::host
