// The host's task runner: results by index whatever the scheduling, and a body that throws ends
// the run with one line and no temporary output left, never through std::terminate.
#include "ThreadPoolRunner.h"

#include "btforge/support/FileGuard.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <fcntl.h>
#include <sched.h>
#include <stdexcept>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

using btforge::host::ThreadPoolRunner;

TEST_CASE("ThreadPoolRunner: every index once") {
    ThreadPoolRunner runner(3);
    std::vector<std::atomic<int>> seen(1000);
    runner.parallelFor(seen.size(), [&](size_t i) { seen[i]++; });
    for (const auto& s : seen)
        CHECK(s.load() == 1);
}

TEST_CASE("ThreadPoolRunner: the caller is one of the -j threads") {
    const std::thread::id caller = std::this_thread::get_id();
    // One item, or -j1: never handed to another thread.
    for (unsigned threads : {1u, 3u}) {
        ThreadPoolRunner runner(threads);
        std::thread::id ranOn;
        runner.parallelFor(1, [&](size_t) { ranOn = std::this_thread::get_id(); });
        CHECK(ranOn == caller);
    }
    ThreadPoolRunner one(1);
    std::vector<std::thread::id> ids(50);
    one.parallelFor(ids.size(), [&](size_t i) { ids[i] = std::this_thread::get_id(); });
    CHECK(std::all_of(ids.begin(), ids.end(), [&](std::thread::id id) { return id == caller; }));
    // -j3: at most three threads at once, the caller among them; items that wait for each other
    // until three are running would hang with fewer.
    ThreadPoolRunner three(3);
    std::atomic<int> running{0}, most{0}, arrived{0};
    std::atomic<bool> callerWorked{false};
    three.parallelFor(3, [&](size_t) {
        const int now = ++running;
        for (int seen = most; now > seen && !most.compare_exchange_weak(seen, now);) {
        }
        if (std::this_thread::get_id() == caller)
            callerWorked = true;
        ++arrived;
        while (arrived < 3)
            std::this_thread::yield();
        --running;
    });
    CHECK(most == 3);
    CHECK(callerWorked);
}

TEST_CASE("ThreadPoolRunner: an exception escaping a body ends the run cleanly") {
    char dir[] = "/tmp/btforge-unit-XXXXXX";
    REQUIRE(::mkdtemp(dir));
    const std::string temporary = std::string(dir) + "/.out.tmp.1";
    const std::string errors = std::string(dir) + "/stderr";
    ::close(::open(temporary.c_str(), O_CREAT | O_WRONLY, 0600));

    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        const int err = ::open(errors.c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0600);
        ::dup2(err, STDERR_FILENO);
        btforge::watchTemporary(temporary);
        ThreadPoolRunner runner(2);
        runner.parallelFor(8, [](size_t i) {
            if (i == 5)
                throw std::invalid_argument("a broken invariant");
        });
        ::_exit(0); // not reached
    }
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 1);
    CHECK(::access(temporary.c_str(), F_OK) != 0);
    std::string text(256, '\0');
    const int fd = ::open(errors.c_str(), O_RDONLY);
    text.resize(static_cast<size_t>(std::max<ssize_t>(0, ::read(fd, text.data(), text.size()))));
    ::close(fd);
    CHECK(text == "btforge: error: a broken invariant\n");
    ::unlink(errors.c_str());
    ::unlink(temporary.c_str());
    ::rmdir(dir);
}

TEST_CASE("ThreadPoolRunner: -j never gives more threads than the CPUs the process may use") {
    cpu_set_t allowed;
    REQUIRE(sched_getaffinity(0, sizeof allowed, &allowed) == 0);
    const auto cpus = static_cast<unsigned>(CPU_COUNT(&allowed));
    CHECK(ThreadPoolRunner::threadsFor(0) == cpus);
    CHECK(ThreadPoolRunner::threadsFor(1024) == cpus);
    CHECK(ThreadPoolRunner::threadsFor(1) == 1);
    // A smaller mask, as taskset or a cgroup's cpuset gives: one CPU, so one thread.
    cpu_set_t one;
    CPU_ZERO(&one);
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
        if (CPU_ISSET(cpu, &allowed)) {
            CPU_SET(cpu, &one);
            break;
        }
    }
    REQUIRE(sched_setaffinity(0, sizeof one, &one) == 0);
    const unsigned narrowed = ThreadPoolRunner::threadsFor(16);
    REQUIRE(sched_setaffinity(0, sizeof allowed, &allowed) == 0);
    CHECK(narrowed == 1);
}
