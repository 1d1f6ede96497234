// What the host lends a plugin for one run: a task runner, progress, warnings and options.
#pragma once

#include "btforge/plugin/Stats.h"
#include "btforge/support/MappedFile.h"

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace btforge::plugin {

// Runs independent pieces of work; the host backs it with its Boost.Asio thread pool.
class TaskRunner {
public:
    virtual ~TaskRunner() = default;
    virtual unsigned concurrency() const = 0;
    // Calls body(i) for every i in [0, count), in any order and on any worker, and returns when
    // all calls have returned. body must not throw.
    virtual void parallelFor(size_t count, const std::function<void(size_t)>& body) = 0;
};

// Progress of long work; a no-op unless stderr is a terminal and --quiet is off.
class Progress {
public:
    virtual ~Progress() = default;
    virtual void begin(std::string_view what, uint64_t total) = 0;
    virtual void advance(uint64_t done) = 0; // thread-safe, adds `done`
    virtual void end() = 0;
};

// Non-fatal findings, reported once per run and never interleaved.
class Diagnostics {
public:
    virtual ~Diagnostics() = default;
    virtual void warning(std::string_view message) = 0;
};

// The settings of the conversion as a whole. What only one plugin reads is an option of its own
// (OptionSpec, Plugin.h), as the DWARF loaders' are (btforge/dwarf/LoaderOptions.h).
struct Options {
    unsigned jobs = 1;
    // pahole feature names (--features); empty means the default set.
    std::vector<std::string> features;
    // --stream-limit: the most bytes an input that is no regular file (a pipe) may hold.
    uint64_t streamLimit = kDefaultStreamLimit;
};

struct Session {
    TaskRunner& tasks;
    Progress& progress;
    Diagnostics& diagnostics;
    const Options& options;
    // --stats: where phases record their time and counts. Null: not asked for.
    Stats* stats = nullptr;
    // Reports a plugin writes besides its graph, by the name it documents (the DWARF loaders'
    // skipped functions, LoaderOptions.h): the stream the host asked one into, and keeps until
    // the whole run succeeded.
    std::map<std::string, std::ostream*, std::less<>> reports;

    // The stream of report `name`, or null when it was not asked for.
    std::ostream* report(std::string_view name) const {
        auto it = reports.find(name);
        return it == reports.end() ? nullptr : it->second;
    }
};

} // namespace btforge::plugin
