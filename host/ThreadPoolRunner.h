// The host's TaskRunner: a Boost.Asio thread_pool sized by -j.
#pragma once

#include "btforge/plugin/Session.h"

#include <boost/asio/thread_pool.hpp>

namespace btforge::host {

class ThreadPoolRunner final : public plugin::TaskRunner {
public:
    explicit ThreadPoolRunner(unsigned threads);
    // The threads for -j N (0: no limit): no more than the CPUs this process may run on. Each
    // worker holds a unit in flight, so threads beyond the CPUs only add memory (vmlinux -j16
    // on 2 CPUs: 298 MB instead of 191 MB) and never speed the work up.
    static unsigned threadsFor(unsigned requested);
    ~ThreadPoolRunner() override;

    unsigned concurrency() const override { return threads_; }
    void parallelFor(size_t count, const std::function<void(size_t)>& body) override;

private:
    unsigned threads_;
    boost::asio::thread_pool pool_;
};

} // namespace btforge::host
