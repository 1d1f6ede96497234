#include "dwarf/SkipReport.h"

#include "btforge/support/Hex.h"

#include <map>
#include <sstream>

namespace btforge::dwarf {
namespace {

void writeJsonString(std::ostream& out, std::string_view s) {
    out << '"';
    for (char c : s) {
        if (c == '"' || c == '\\')
            out << '\\' << c;
        else if (static_cast<unsigned char>(c) < 0x20)
            out << "\\u00"
                << "0123456789abcdef"[(c >> 4) & 0xf] << "0123456789abcdef"[c & 0xf];
        else
            out << c;
    }
    out << '"';
}

} // namespace

void warnAbout(const DwarfConversionReport& report, const std::string& path,
               plugin::Diagnostics& diagnostics) {
    for (const UnmappedDies& u : report.unmapped)
        diagnostics.warning(path + ": " + std::to_string(u.count) + " DIE(s) with tag " +
                            hex(u.tag) + " (e.g. " +
                            (u.exampleName.empty() ? "" : "'" + u.exampleName + "' ") + "at " +
                            hex(u.example) + "): " + u.why);
    if (report.referencesAsPointers)
        diagnostics.warning(path + ": " + std::to_string(report.referencesAsPointers) +
                            " C++ reference type(s) encoded as pointers");
    if (report.unresolvedReferences)
        diagnostics.warning(path + ": " + std::to_string(report.unresolvedReferences) +
                            " reference(s) into units that could not be read, encoded as void");
    if (report.declarationsCutShort)
        diagnostics.warning(path +
                            ": deduplication gave up pairing declarations with the "
                            "definitions they stand for (too many variants of one struct: units of "
                            "another language, e.g. Rust, describe C types otherwise); the BTF "
                            "keeps more types than needed");
    if (report.registerCheck.starts_with("not made"))
        diagnostics.warning(path + ": parameter register check " + report.registerCheck +
                            "; no function is skipped for an unexpected register");
}

void writeSkipReport(const DwarfConversionReport& report, std::ostream& out) {
    std::map<std::string, size_t> counts;
    out << "{\"skipped\":[";
    for (size_t i = 0; i < report.skippedFunctions.size(); ++i) {
        const SkippedFunction& s = report.skippedFunctions[i];
        out << (i ? ",\n" : "\n") << "{\"name\":";
        writeJsonString(out, s.name);
        if (s.address)
            out << ",\"address\":\"" << hex(*s.address) << '"';
        out << ",\"reason\":";
        writeJsonString(out, s.reason);
        if (!s.detail.empty()) {
            out << ",\"detail\":";
            writeJsonString(out, s.detail);
        }
        out << '}';
        ++counts[s.reason];
    }
    out << "\n],\"register_check\":";
    writeJsonString(out, report.registerCheck);
    out << ",\"counts\":{";
    bool first = true;
    for (const auto& [reason, count] : counts) {
        out << (first ? "" : ",");
        writeJsonString(out, reason);
        out << ':' << count;
        first = false;
    }
    out << "}}\n";
}

void writeSkipLines(const DwarfConversionReport& report, std::ostream& out) {
    for (const SkippedFunction& s : report.skippedFunctions) {
        // pahole's own words, its misspelling included, so that scripts matching them match.
        const std::string_view reason = s.reason == "inconsistent prototype"
                                            ? std::string_view("inconsistet prototype")
                                            : std::string_view(s.reason);
        out << s.name << " : skipping BTF encoding of function due to " << reason << '\n';
    }
}

} // namespace btforge::dwarf
