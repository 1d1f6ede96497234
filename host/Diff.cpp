#include "Diff.h"

#include "StandardOutput.h"

#include <cstdio>
#include <iomanip>
#include <ostream>

namespace btforge::host {
namespace {

using compare::Difference;
using compare::DiffReport;
using compare::KindCounts;

// The table has a row for every kind compared, so its shape does not depend on the data.
std::vector<ir::Kind> comparedKinds(const compare::DiffOptions& options) {
    std::vector<ir::Kind> kinds;
    for (ir::Kind kind : compare::matchedKinds()) {
        if (options.kinds.test(static_cast<size_t>(kind)))
            kinds.push_back(kind);
    }
    return kinds;
}

const KindCounts& countsOf(const DiffReport& report, ir::Kind kind) {
    return report.counts[static_cast<size_t>(kind)];
}

void printText(const DiffRequest& request, const DiffReport& report, std::ostream& out) {
    out << "A: " << request.a.input << "\nB: " << request.b.input << "\n\n";
    auto row = [&](std::string_view label, const KindCounts& c) {
        out << std::left << std::setw(10) << label << std::right << std::setw(10) << c.equal
            << std::setw(10) << c.onlyA << std::setw(10) << c.onlyB << std::setw(11) << c.different
            << '\n';
    };
    out << std::left << std::setw(10) << "kind" << std::right << std::setw(10) << "equal"
        << std::setw(10) << "only-a" << std::setw(10) << "only-b" << std::setw(11) << "different"
        << '\n';
    KindCounts total;
    for (ir::Kind kind : comparedKinds(request.options)) {
        const KindCounts& c = countsOf(report, kind);
        row(ir::kindName(kind), c);
        total.equal += c.equal;
        total.onlyA += c.onlyA;
        total.onlyB += c.onlyB;
        total.different += c.different;
    }
    row("total", total);

    if (report.differenceCount)
        out << '\n';
    auto value = [](const std::optional<std::string>& v) { return v ? *v : "(absent)"; };
    for (const Difference& d : report.differences) {
        out << ir::kindName(d.kind) << ' ' << d.type << ": ";
        if (d.what.empty())
            out << (d.a ? "only in A: " + *d.a : "only in B: " + value(d.b)) << '\n';
        else
            out << d.what << ": " << value(d.a) << " -> " << value(d.b) << '\n';
    }
    if (uint64_t unlisted = report.differenceCount - report.differences.size())
        out << "... " << unlisted << " more differences not listed (--max)\n";
}

std::string jsonString(std::string_view text) {
    std::string out = "\"";
    for (unsigned char c : text) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c < 0x20) {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
            out += escaped;
        } else {
            out += static_cast<char>(c);
        }
    }
    return out + '"';
}

std::string jsonValue(const std::optional<std::string>& value) {
    return value ? jsonString(*value) : "null";
}

void printJson(const DiffRequest& request, const DiffReport& report, std::ostream& out) {
    out << "{\n  \"a\": " << jsonString(request.a.input)
        << ",\n  \"b\": " << jsonString(request.b.input)
        << ",\n  \"equal\": " << (report.equal() ? "true" : "false") << ",\n  \"counts\": {";
    const char* separator = "\n";
    for (ir::Kind kind : comparedKinds(request.options)) {
        const KindCounts& c = countsOf(report, kind);
        out << separator << "    " << jsonString(ir::kindName(kind)) << ": {\"equal\": " << c.equal
            << ", \"only_a\": " << c.onlyA << ", \"only_b\": " << c.onlyB
            << ", \"different\": " << c.different << "}";
        separator = ",\n";
    }
    out << "\n  },\n  \"differences\": [";
    separator = "\n";
    for (const Difference& d : report.differences) {
        out << separator << "    {\"kind\": " << jsonString(ir::kindName(d.kind))
            << ", \"type\": " << jsonString(d.type) << ", \"what\": " << jsonString(d.what)
            << ", \"a\": " << jsonValue(d.a) << ", \"b\": " << jsonValue(d.b) << "}";
        separator = ",\n";
    }
    out << (report.differences.empty() ? "]" : "\n  ]")
        << ",\n  \"listed\": " << report.differences.size()
        << ",\n  \"total\": " << report.differenceCount << "\n}\n";
}

} // namespace

Expected<bool> runDiff(const PluginRegistry& registry, const DiffRequest& request,
                       plugin::Session& session, std::ostream& out) {
    auto a = loadGraph(registry, request.a, session);
    if (!a)
        return std::move(a).error();
    auto b = loadGraph(registry, request.b, session);
    if (!b)
        return std::move(b).error();
    DiffReport report = compare::compareGraphs(*a, *b, request.options);
    if (request.json)
        printJson(request, report, out);
    else
        printText(request, report, out);
    if (auto flushed = flushStandardOutput(); !flushed)
        return std::move(flushed).error();
    if (!out.flush())
        return Error::io("standard output: write failed");
    return report.equal();
}

} // namespace btforge::host
