// A TaskRunner that runs every task in turn on the calling thread: a conversion inside a batch,
// on the worker converting it, and the unit tests' plugins.
#pragma once

#include "btforge/plugin/Session.h"

#include <functional>

namespace btforge::host {

class SerialRunner final : public plugin::TaskRunner {
public:
    unsigned concurrency() const override { return 1; }
    void parallelFor(size_t count, const std::function<void(size_t)>& body) override {
        for (size_t i = 0; i < count; ++i)
            body(i);
    }
};

} // namespace btforge::host
