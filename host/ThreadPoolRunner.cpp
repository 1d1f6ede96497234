#include "ThreadPoolRunner.h"

#include "btforge/support/FileGuard.h"

#include <boost/asio/post.hpp>

#include <algorithm>
#include <atomic>
#include <exception>
#include <latch>
#include <new>
#include <sched.h>
#include <thread>

namespace btforge::host {
namespace {

// Bodies must not throw (Session.h): errors travel as Expected. What still escapes one (out of
// memory) ends the run with one line and no temporary output left, not through std::terminate.
void runGuarded(const std::function<void(size_t)>& body, size_t i) noexcept {
    try {
        body(i);
    } catch (const std::bad_alloc&) {
        endRun("out of memory");
    } catch (const std::exception& e) {
        endRun(e.what());
    } catch (...) {
        endRun("a worker failed");
    }
}

} // namespace

unsigned ThreadPoolRunner::threadsFor(unsigned requested) {
    unsigned cpus = std::max(1u, std::thread::hardware_concurrency());
    cpu_set_t allowed;
    if (::sched_getaffinity(0, sizeof allowed, &allowed) == 0)
        cpus = std::max(1, CPU_COUNT(&allowed));
    return requested ? std::min(requested, cpus) : cpus;
}

// -j N starts N threads besides the main one, as pahole does (its test suite counts them); the
// calling thread works with N - 1 of them (parallelFor), so one stays idle.
ThreadPoolRunner::ThreadPoolRunner(unsigned threads)
    : threads_(threads ? threads : 1), pool_(threads_) {}

ThreadPoolRunner::~ThreadPoolRunner() {
    pool_.join();
}

void ThreadPoolRunner::parallelFor(size_t count, const std::function<void(size_t)>& body) {
    // Workers pull the next index from a shared counter, so uneven items (a huge CU next to
    // small ones) balance themselves; callers store results by index, so order never leaks.
    std::atomic<size_t> next{0};
    auto work = [&] {
        for (size_t i = next++; i < count; i = next++)
            runGuarded(body, i);
    };
    // The caller works too rather than wait, so -j N items run at once: a single item (a small
    // module's) never leaves its thread, and the work starts without waking a worker first. Each
    // wake-up is a handoff between CPUs, and a kernel build runs btforge once per module.
    const auto helpers = static_cast<std::ptrdiff_t>(std::min<size_t>(count, threads_)) - 1;
    if (helpers <= 0)
        return work();
    std::latch done(helpers);
    for (std::ptrdiff_t w = 0; w < helpers; ++w) {
        boost::asio::post(pool_, [&] {
            work();
            done.count_down();
        });
    }
    work();
    done.wait();
}

} // namespace btforge::host
