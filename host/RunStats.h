// --stats: the times the phases record, the process's CPU and peak memory, and the counts,
// printed on stderr once the run is over (docs/performance.md reads them).
#pragma once

#include "btforge/plugin/Stats.h"

#include <chrono>
#include <mutex>
#include <ostream>
#include <string>
#include <vector>

namespace btforge::host {

class RunStats final : public plugin::Stats {
public:
    // Times from now: construct it first thing in main().
    RunStats();

    void addTime(std::string_view phase, double wall, double cpu) override;
    void addCount(std::string_view what, uint64_t n) override;
    void hold(std::string_view holder, uint64_t bytes) override;
    // Closes the start-up phase (the time from construction, and the process's CPU so far).
    void startUpDone();
    // Prints the table for `input`.
    void print(std::ostream& out, std::string_view input) const;

private:
    struct Phase {
        std::string name;
        double wall = 0, cpu = 0;
        long peakKbAtEnd = 0; // the process's peak RSS at the end of its last stretch
    };
    struct Count {
        std::string what;
        uint64_t n = 0;
    };
    struct Holder {
        std::string name;
        uint64_t largest = 0;
    };
    Phase& phaseNamed(std::string_view name);

    std::chrono::steady_clock::time_point start_;
    mutable std::mutex mutex_;
    std::vector<Phase> phases_; // in the order first met
    std::vector<Count> counts_;
    std::vector<Holder> holders_; // in the order first met
};

} // namespace btforge::host
