// `btforge diff A B`: load two graphs the way convert does, compare them by meaning, report.
#pragma once

#include "Conversion.h"
#include "compare/GraphDiff.h"

#include <iosfwd>

namespace btforge::host {

struct DiffRequest {
    GraphSource a;
    GraphSource b;
    bool json = false;
    compare::DiffOptions options;
};

// Exit statuses of `btforge diff`, as diff(1) has them: any error is 2, bad input included.
inline constexpr int kDiffEqual = 0;
inline constexpr int kDiffDifferent = 1;
inline constexpr int kDiffFailed = 2;

// Prints the report to `out`; true when the graphs are equal.
Expected<bool> runDiff(const PluginRegistry& registry, const DiffRequest& request,
                       plugin::Session& session, std::ostream& out);

} // namespace btforge::host
