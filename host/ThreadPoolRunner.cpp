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

ThreadPoolRunner::ThreadPoolRunner(unsigned threads)
    : threads_(threads ? threads : 1), pool_(threads_) {}

ThreadPoolRunner::~ThreadPoolRunner() {
    pool_.join();
}

void ThreadPoolRunner::parallelFor(size_t count, const std::function<void(size_t)>& body) {
    if (count == 0)
        return;
    // Workers pull the next index from a shared counter, so uneven items (a huge CU next to
    // small ones) balance themselves; callers store results by index, so order never leaks.
    std::atomic<size_t> next{0};
    auto workers = static_cast<std::ptrdiff_t>(std::min<size_t>(count, threads_));
    std::latch done(workers);
    for (std::ptrdiff_t w = 0; w < workers; ++w) {
        boost::asio::post(pool_, [&] {
            for (size_t i = next++; i < count; i = next++)
                runGuarded(body, i);
            done.count_down();
        });
    }
    done.wait();
}

} // namespace btforge::host
