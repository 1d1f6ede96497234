// Where a run's time and work go (--stats): each phase is timed by the thread that runs it, and
// the host prints the totals once the run is over.
#pragma once

#include <chrono>
#include <cstdint>
#include <ctime>
#include <string_view>

namespace btforge::plugin {

// The phases the host prints, in its order. kUnits is the stretch of the DWARF loaders in which
// workers read, map and merge units at once: its wall time is shared out among those three by
// the time each took.
namespace phase {
inline constexpr std::string_view kStartUp = "start-up and plugins";
inline constexpr std::string_view kBase = "base";
inline constexpr std::string_view kLoad = "load";            // the loader's whole run
inline constexpr std::string_view kBaseIndex = "base index"; // what merging over a base needs
inline constexpr std::string_view kUnits = "units";
inline constexpr std::string_view kRead = "read";
inline constexpr std::string_view kMap = "map";
inline constexpr std::string_view kMerge = "merge";
inline constexpr std::string_view kDedup = "dedup";
inline constexpr std::string_view kFunctions = "functions";
inline constexpr std::string_view kVariables = "variables";
inline constexpr std::string_view kWrite = "write";
} // namespace phase

// What holds memory, as hold() names it.
namespace holder {
inline constexpr std::string_view kBaseTypes = "base types";
inline constexpr std::string_view kUnitDies = "a unit's DIEs";
inline constexpr std::string_view kMerger = "merger (world, index, merged types)";
inline constexpr std::string_view kResult = "resulting types";
} // namespace holder

class Stats {
public:
    virtual ~Stats() = default;
    // A stretch of `phase` the calling thread ran: its wall and CPU seconds. Thread-safe.
    virtual void addTime(std::string_view phase, double wall, double cpu) = 0;
    // Adds `n` to the count `what` (units, DIEs, types). Thread-safe.
    virtual void addCount(std::string_view what, uint64_t n) = 0;
    // The bytes `holder` (a structure of the run: the base's types, a unit's DIEs) holds now;
    // the host prints the largest each reached, to say what the peak memory is made of.
    // Thread-safe.
    virtual void hold(std::string_view holder, uint64_t bytes) = 0;
};

// Times `phase` of `stats` (none: null) from construction to destruction. A phase the calling
// thread runs alone, perhaps with helpers on the task runner, counts the whole process's CPU; one
// that workers run side by side (Scope::Thread), only the calling thread's.
class PhaseTimer {
public:
    enum class Scope : bool { Process, Thread };

    PhaseTimer(Stats* stats, std::string_view phase, Scope scope = Scope::Process)
        : stats_(stats), phase_(phase), scope_(scope) {
        if (stats_) {
            wallStart_ = std::chrono::steady_clock::now();
            cpuStart_ = cpu();
        }
    }
    ~PhaseTimer() {
        if (stats_)
            stats_->addTime(
                phase_,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart_)
                    .count(),
                cpu() - cpuStart_);
    }
    PhaseTimer(const PhaseTimer&) = delete;
    PhaseTimer& operator=(const PhaseTimer&) = delete;

private:
    double cpu() const {
        timespec t{};
        clock_gettime(scope_ == Scope::Thread ? CLOCK_THREAD_CPUTIME_ID : CLOCK_PROCESS_CPUTIME_ID,
                      &t);
        return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
    }

    Stats* stats_;
    std::string_view phase_;
    Scope scope_;
    std::chrono::steady_clock::time_point wallStart_{};
    double cpuStart_ = 0;
};

} // namespace btforge::plugin
