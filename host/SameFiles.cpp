#include "SameFiles.h"

#include "btforge/dwarf/LoaderOptions.h"

#include <map>
#include <sys/stat.h>
#include <tuple>
#include <vector>

namespace btforge::host {
namespace {

struct NamedFile {
    const char* role;
    std::string path;
};

// Where a path leads: the file's device and inode, or for a file yet to be made (an output),
// its directory's and its name.
struct Identity {
    dev_t device = 0;
    ino_t inode = 0;
    std::string name; // empty when the file exists
    bool known = false;

    bool operator==(const Identity& other) const {
        return known && other.known && device == other.device && inode == other.inode &&
               name == other.name;
    }
    auto key() const { return std::tie(device, inode, name); }
};

Identity identify(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0)
        return {st.st_dev, st.st_ino, "", true};
    auto slash = path.rfind('/');
    std::string dir = slash == std::string::npos ? "." : path.substr(0, slash + 1);
    std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
    if (name.empty() || ::stat(dir.c_str(), &st) != 0)
        return {};
    return {st.st_dev, st.st_ino, name, true};
}

} // namespace

bool sameFile(const std::string& a, const std::string& b) {
    return identify(a) == identify(b);
}

Expected<void> refuseOutputsOverInputs(const ConversionRequest& request,
                                       const PluginRegistry& registry) {
    std::vector<NamedFile> inputs{{"INPUT", request.source.input}};
    if (request.source.base)
        inputs.push_back({"the base (-B)", *request.source.base});
    // Whichever loader reads INPUT: the option is set before the input is opened and probed.
    for (std::string& alt : registry.loaderValues(dwarf::kDwarfAltOption))
        inputs.push_back({"the alt file (--dwarf-alt)", std::move(alt)});
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

Expected<void> refuseBatchOverlaps(const std::vector<std::string>& inputs,
                                   const std::vector<std::string>& outputs, bool inPlace) {
    using Key = std::tuple<dev_t, ino_t, std::string>;
    std::map<Key, const std::string*> inputFiles;
    for (const std::string& input : inputs) {
        const Identity id = identify(input);
        if (!id.known)
            continue; // its conversion says why it cannot be read
        if (auto [it, added] = inputFiles.emplace(id.key(), &input); !added && inPlace)
            return Error::usage(input + ": the same file as INPUT " + *it->second +
                                "; --in-place would write it twice");
    }
    if (inPlace)
        return {};
    std::map<Key, size_t> outputFiles; // the input each output is written for
    for (size_t i = 0; i < outputs.size(); ++i) {
        const Identity id = identify(outputs[i]);
        if (!id.known)
            continue; // its directory is missing: writing it fails, and says so
        if (auto in = inputFiles.find(id.key()); in != inputFiles.end())
            return Error::usage(outputs[i] + ": the output of INPUT " + inputs[i] +
                                " is the same file as INPUT " + *in->second +
                                "; btforge never writes over an input");
        if (auto [it, added] = outputFiles.emplace(id.key(), i); !added)
            return Error::usage(outputs[i] + ": INPUTs " + inputs[it->second] + " and " +
                                inputs[i] + " would both write it");
    }
    return {};
}

} // namespace btforge::host
