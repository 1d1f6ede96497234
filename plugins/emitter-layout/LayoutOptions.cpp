#include "LayoutOptions.h"

#include <charconv>
#include <sstream>

namespace btforge::layout {

const plugin::OptionSpec kLayoutOptionSpecs[9] = {
    {"class", "", "comma-separated struct, union, enum or typedef names to show (pahole -C)"},
    {"expand", "false", "true: write member types out in full (pahole -E)"},
    {"hex", "false", "true: offsets and sizes in hexadecimal (pahole --hex)"},
    {"sizes", "false", "true: one line per type, its name, size and holes (pahole -s)"},
    {"holes", "", "N: only types with at least N holes (pahole -H)"},
    {"structs", "false", "true: structs only, no unions (pahole --structs)"},
    {"skip-missing", "false",
     "true: a 'class' name not found is skipped, not an error (pahole --skip_missing)"},
    {"cacheline", "64", "the cacheline size in bytes (pahole -c)"},
    {"data-members", "false",
     "true: only members, not the types a struct's DWARF declares inside it (pahole -M)"},
};

namespace {

std::string_view valueOf(const plugin::OptionValues& values, std::string_view key) {
    auto found = values.find(key);
    return found == values.end() ? std::string_view() : std::string_view(found->second);
}

Expected<bool> flag(const plugin::OptionValues& values, std::string_view key) {
    std::string_view value = valueOf(values, key);
    if (value == "true" || value == "false")
        return value == "true";
    return Error::usage("layout option " + std::string(key) + ": '" + std::string(value) +
                        "' is not true or false");
}

Expected<uint32_t> count(std::string_view key, std::string_view value, uint32_t least) {
    uint32_t n = 0;
    auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), n);
    if (error != std::errc() || end != value.data() + value.size() || n < least)
        return Error::usage("layout option " + std::string(key) + ": '" + std::string(value) +
                            "' is not a number from " + std::to_string(least));
    return n;
}

} // namespace

Expected<LayoutOptions> parseLayoutOptions(const plugin::OptionValues& values) {
    LayoutOptions options;
    std::istringstream names{std::string(valueOf(values, "class"))};
    for (std::string name; std::getline(names, name, ',');) {
        if (!name.empty())
            options.classes.push_back(name);
    }
    for (auto [key, field] : {std::pair{"expand", &options.expand},
                              {"hex", &options.hex},
                              {"sizes", &options.sizes},
                              {"structs", &options.structsOnly},
                              {"skip-missing", &options.skipMissing},
                              {"data-members", &options.dataMembers}}) {
        auto value = flag(values, key);
        if (!value)
            return std::move(value).error();
        *field = *value;
    }
    if (std::string_view holes = valueOf(values, "holes"); !holes.empty()) {
        auto n = count("holes", holes, 0);
        if (!n)
            return std::move(n).error();
        options.minHoles = *n;
    }
    auto cacheline = count("cacheline", valueOf(values, "cacheline"), 1);
    if (!cacheline)
        return std::move(cacheline).error();
    options.cacheline = *cacheline;
    return options;
}

} // namespace btforge::layout
