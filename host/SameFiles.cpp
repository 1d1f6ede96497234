#include "SameFiles.h"

#include <sys/stat.h>
#include <vector>

namespace btforge::host {
namespace {

struct NamedFile {
    const char* role;
    std::string path;
};

bool sameFile(const std::string& a, const std::string& b) {
    struct stat sa {
    }, sb{};
    return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

} // namespace

Expected<void> refuseOutputsOverInputs(const ConversionRequest& request,
                                       const plugin::Options& options) {
    std::vector<NamedFile> inputs{{"INPUT", request.source.input}};
    if (request.source.base)
        inputs.push_back({"the base (-B)", *request.source.base});
    if (!options.dwarfAlt.empty())
        inputs.push_back({"the alt file (--dwarf-alt)", options.dwarfAlt});
    std::vector<NamedFile> outputs;
    if (request.output != "-" && !request.inPlace)
        outputs.push_back({"the output (-o)", request.output});
    if (!request.reportSkipped.empty())
        outputs.push_back({"the report (--report-skipped)", request.reportSkipped});

    for (size_t i = 0; i < outputs.size(); ++i) {
        const NamedFile& out = outputs[i];
        for (const NamedFile& in : inputs) {
            if (sameFile(out.path, in.path))
                return Error::usage(out.path + ": " + out.role + " is the same file as " + in.role +
                                    " " + in.path +
                                    "; btforge never writes over an input (--in-place "
                                    "replaces INPUT's .BTF)");
        }
        for (size_t j = 0; j < i; ++j) {
            if (sameFile(out.path, outputs[j].path))
                return Error::usage(out.path + ": " + out.role + " is the same file as " +
                                    outputs[j].role + " " + outputs[j].path);
        }
    }
    // --in-place writes INPUT: no other input may be it.
    for (size_t i = 1; request.inPlace && i < inputs.size(); ++i) {
        if (sameFile(request.source.input, inputs[i].path))
            return Error::usage(request.source.input + ": --in-place would write over " +
                                inputs[i].role + " " + inputs[i].path);
    }
    return {};
}

} // namespace btforge::host
