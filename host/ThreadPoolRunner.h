// The host's TaskRunner: a Boost.Asio thread_pool sized by -j.
#pragma once

#include "btforge/plugin/Session.h"

#include <boost/asio/thread_pool.hpp>

namespace btforge::host {

class ThreadPoolRunner final : public plugin::TaskRunner {
public:
    explicit ThreadPoolRunner(unsigned threads);
    ~ThreadPoolRunner() override;

    unsigned concurrency() const override { return threads_; }
    void parallelFor(size_t count, const std::function<void(size_t)>& body) override;

private:
    unsigned threads_;
    boost::asio::thread_pool pool_;
};

} // namespace btforge::host
