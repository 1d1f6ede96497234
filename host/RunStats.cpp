#include "RunStats.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <sys/resource.h>

namespace btforge::host {
namespace {

namespace phase = plugin::phase;

double processCpu() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

long peakRssKb() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss;
}

std::string row(std::string_view name, double wall, double cpu) {
    char line[96];
    std::snprintf(line, sizeof line, "  %-22.*s %10.1f %10.1f\n", static_cast<int>(name.size()),
                  name.data(), wall * 1e3, cpu * 1e3);
    return line;
}

std::string grouped(uint64_t n) {
    std::string digits = std::to_string(n), out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i && (digits.size() - i) % 3 == 0)
            out += ',';
        out += digits[i];
    }
    return out;
}

std::string megabytes(long kb) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f MB", static_cast<double>(kb) / 1024.0);
    return text;
}

} // namespace

RunStats::RunStats() : start_(std::chrono::steady_clock::now()) {}

RunStats::Phase& RunStats::phaseNamed(std::string_view name) {
    auto it = std::find_if(phases_.begin(), phases_.end(),
                           [&](const Phase& p) { return p.name == name; });
    if (it != phases_.end())
        return *it;
    return phases_.emplace_back(Phase{std::string(name)});
}

void RunStats::hold(std::string_view holder, uint64_t bytes) {
    std::lock_guard lock(mutex_);
    auto it = std::find_if(holders_.begin(), holders_.end(),
                           [&](const Holder& h) { return h.name == holder; });
    if (it == holders_.end())
        holders_.push_back({std::string(holder), bytes});
    else
        it->largest = std::max(it->largest, bytes);
}

void RunStats::addTime(std::string_view name, double wall, double cpu) {
    const long peak = peakRssKb();
    std::lock_guard lock(mutex_);
    Phase& p = phaseNamed(name);
    p.wall += wall;
    p.cpu += cpu;
    p.peakKbAtEnd = std::max(p.peakKbAtEnd, peak);
}

void RunStats::addCount(std::string_view what, uint64_t n) {
    std::lock_guard lock(mutex_);
    auto it = std::find_if(counts_.begin(), counts_.end(),
                           [&](const Count& c) { return c.what == what; });
    if (it == counts_.end())
        counts_.push_back({std::string(what), n});
    else
        it->n += n;
}

void RunStats::startUpDone() {
    addTime(phase::kStartUp,
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(),
            processCpu());
}

void RunStats::print(std::ostream& out, std::string_view input) const {
    const double totalWall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const double totalCpu = processCpu();
    const long peak = peakRssKb();
    std::lock_guard lock(mutex_);
    auto find = [&](std::string_view name) -> const Phase* {
        for (const Phase& p : phases_) {
            if (p.name == name)
                return &p;
        }
        return nullptr;
    };
    auto wallOf = [&](std::string_view name) { return find(name) ? find(name)->wall : 0.0; };
    auto cpuOf = [&](std::string_view name) { return find(name) ? find(name)->cpu : 0.0; };

    std::string text = "btforge: stats for " + std::string(input) + "\n";
    text += "  phase                     wall ms     cpu ms\n";
    double wallSum = 0, cpuSum = 0;
    auto add = [&](std::string_view name, double wall, double cpu) {
        text += row(name, wall, cpu);
        wallSum += wall;
        cpuSum += cpu;
    };
    add(phase::kStartUp, wallOf(phase::kStartUp), cpuOf(phase::kStartUp));
    add(phase::kBase, wallOf(phase::kBase), cpuOf(phase::kBase));
    add(phase::kBaseIndex, wallOf(phase::kBaseIndex), cpuOf(phase::kBaseIndex));
    // Workers read, map and merge units at once: the stretch's wall time is shared out by the
    // time each phase took on all threads (exact with -j1).
    const std::array<std::string_view, 3> unitPhases{phase::kRead, phase::kMap, phase::kMerge};
    double threadWall = 0;
    for (auto name : unitPhases)
        threadWall += wallOf(name);
    const double units = wallOf(phase::kUnits);
    double inLoad = wallOf(phase::kBaseIndex);
    for (auto name : unitPhases) {
        const double share = threadWall > 0 ? units * wallOf(name) / threadWall : 0;
        add(name, share, cpuOf(name));
        inLoad += share;
    }
    for (auto name : {phase::kDedup, phase::kFunctions, phase::kVariables}) {
        add(name, wallOf(name), cpuOf(name));
        inLoad += wallOf(name);
    }
    // The rest of the loader's run: opening the input, its symbols; a BTF input's whole reading.
    const double loadCpu = cpuOf(phase::kLoad);
    double innerCpu = 0;
    for (auto name : {phase::kBaseIndex, phase::kRead, phase::kMap, phase::kMerge, phase::kDedup,
                      phase::kFunctions, phase::kVariables})
        innerCpu += cpuOf(name);
    add("load, other", std::max(0.0, wallOf(phase::kLoad) - inLoad),
        std::max(0.0, loadCpu - std::min(loadCpu, innerCpu)));
    add(phase::kWrite, wallOf(phase::kWrite), cpuOf(phase::kWrite));
    text += row("other", std::max(0.0, totalWall - wallSum), std::max(0.0, totalCpu - cpuSum));
    text += row("total", totalWall, totalCpu);

    // Reading and mapping units is what more cores speed up; the rest runs on one.
    const double parallel = cpuOf(phase::kRead) + cpuOf(phase::kMap);
    const double serial = std::max(0.0, totalCpu - parallel);
    char line[256];
    std::snprintf(line, sizeof line,
                  "  serial fraction %.2f (CPU outside reading and mapping units); projected wall "
                  "(Amdahl, not measured): 8 cores %.0f ms, 16 cores %.0f ms, 64 cores %.0f ms\n",
                  totalCpu > 0 ? serial / totalCpu : 1.0, (serial + parallel / 8) * 1e3,
                  (serial + parallel / 16) * 1e3, (serial + parallel / 64) * 1e3);
    text += line;

    // Where the peak was reached: the first phase (in run order) that ended at it.
    std::string reached = "start-up";
    long best = -1;
    for (const Phase& p : phases_) {
        if (p.name == phase::kUnits || p.name == phase::kLoad)
            continue; // stretches made of other phases
        if (p.peakKbAtEnd > best) {
            best = p.peakKbAtEnd;
            reached = p.name;
        }
    }
    text += "  peak RSS " + megabytes(peak) + ", reached by the end of: " + reached + "\n";
    // The rest is the program and its libraries, the input's mapped pages, scratch space of the
    // phases and what the allocator keeps.
    text += "  held (each at its largest):";
    if (holders_.empty())
        text += " nothing measured";
    for (size_t i = 0; i < holders_.size(); ++i)
        text += (i ? ", " : " ") + holders_[i].name + " " +
                megabytes(static_cast<long>(holders_[i].largest / 1024));
    text += "\n";

    text += "  counts:";
    for (size_t i = 0; i < counts_.size(); ++i)
        text += (i ? ", " : " ") + counts_[i].what + " " + grouped(counts_[i].n);
    text += "\n";
    out << text << std::flush;
}

} // namespace btforge::host
