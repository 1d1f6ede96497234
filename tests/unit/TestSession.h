// What a plugin is given to run in a unit test: tasks run in order, no progress shown, warnings
// collected.
#pragma once

#include "SerialRunner.h"

#include "btforge/plugin/Session.h"

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace btforge::test {

using Serial = host::SerialRunner;

class Silent final : public plugin::Progress {
public:
    void begin(std::string_view, uint64_t) override {}
    void advance(uint64_t) override {}
    void end() override {}
};

class Collected final : public plugin::Diagnostics {
public:
    explicit Collected(std::vector<std::string>& out) : out_(out) {}
    void warning(std::string_view message) override { out_.emplace_back(message); }

private:
    std::vector<std::string>& out_;
};

} // namespace btforge::test
