#include "PaholeCompat.h"

#include "btforge/Features.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <sstream>

namespace btforge::host {
namespace {

constexpr const char* kUsage =
    R"(usage: pahole [OPTIONS] [FILE]       (btforge pahole-compat: pahole's layouts and BTF encoding)
       pahole -J [OPTIONS] FILE

Without -J, the layouts of FILE's structs and unions (default FILE: /sys/kernel/btf/vmlinux), read
from its DWARF when it has some, else its .BTF (-t layout, docs/layout.md):
  -C, --class_name=NAMES            only these structs, unions, enums, typedefs (comma-separated)
  -E, --expand_types                member types written out in full
  --hex                             offsets and sizes in hexadecimal
  -s, --sizes                       name, size and number of holes, one line per type
  -H, --holes=N                     only types with at least N holes
  --structs                         no unions
  -M, --show_only_data_members      members only, not types declared inside a struct
  -c, --cacheline_size=SIZE         cacheline size (default 64)
  -F, --format_path=LIST            dwarf, btf, or both in the order to try
  --skip_missing                    a -C name not found is a warning, not an error
  --btf_base=BASE                   FILE's BTF is split BTF over BASE (a module over vmlinux)
  --lang_exclude=LANGS              skip DWARF compile units of these languages

With -J, BTF:
  -J, --btf_encode                  write .BTF into FILE (btforge convert --in-place)
  --btf_encode_detached=OUT         write raw BTF to OUT instead
  --btf_base=BASE                   split BTF over BASE (vmlinux for a module)
  -j[N], --jobs[=N]                 N threads (default: one per CPU)
  --btf_features=LIST               these features (pahole's names; 'default' for its default
                                    set, '+LIST' for the default set and LIST; unknown names: a
                                    warning)
  --btf_features_strict=LIST        the same, unknown names refused
  --supported_btf_features          the feature names btforge implements
  -V, --verbose                     one line per function left out, on standard output
  --lang_exclude=LANGS              skip compile units of these languages
  --btf_gen_floats, --btf_gen_optimized, --btf_gen_all, --btf_encode_force,
  --skip_encoding_btf_{vars,decl_tag,type_tag,enum64,inconsistent_proto}, --reproducible_build
                                    pahole's switches, without --btf_features
  --version                         the pahole version implemented
Without --btf_features, pahole's legacy set: var, decl_tag, type_tag, enum64. See
docs/kernel-build.md. Any other pahole option is refused by name.
)";

Error compatError(const std::string& message) {
    return Error::usage("pahole-compat: " + message);
}

// pahole's switches from before --btf_features, by what they do to the feature set. As in
// pahole, each acts on the set as it is where it appears, --btf_features included.
struct LegacySwitch {
    std::string_view option;
    Feature feature;
    bool on;
};
constexpr LegacySwitch kLegacySwitches[] = {
    {"--btf_gen_floats", Feature::Float, true},
    {"--btf_gen_optimized", Feature::OptimizedFunc, true},
    {"--skip_encoding_btf_inconsistent_proto", Feature::ConsistentFunc, true},
    {"--btf_encode_force", Feature::EncodeForce, true},
    {"--skip_encoding_btf_vars", Feature::Var, false},
    {"--skip_encoding_btf_decl_tag", Feature::DeclTag, false},
    {"--skip_encoding_btf_type_tag", Feature::TypeTag, false},
    {"--skip_encoding_btf_enum64", Feature::Enum64, false},
};

// The names of the features in `set`, in FeatureSet's order; `none` for the empty set.
std::string featureList(const FeatureSet& set) {
    std::string list;
    for (size_t i = 0; i < static_cast<size_t>(Feature::Count); ++i) {
        auto f = static_cast<Feature>(i);
        if (!set.has(f))
            continue;
        if (!list.empty())
            list += ',';
        list += FeatureSet::name(f);
    }
    return list.empty() ? "none" : list;
}

std::string supportedFeatures() {
    FeatureSet all;
    for (size_t i = 0; i < static_cast<size_t>(Feature::Count); ++i)
        all.set(static_cast<Feature>(i));
    return featureList(all);
}

void addDefaults(FeatureSet& set) {
    const FeatureSet defaults = FeatureSet::defaults();
    for (size_t i = 0; i < static_cast<size_t>(Feature::Count); ++i) {
        if (defaults.has(static_cast<Feature>(i)))
            set.set(static_cast<Feature>(i));
    }
}

// Adds one --btf_features list to `set` as pahole does: `default` (alone or as a word) adds the
// default set, and so does a leading `+`; a name pahole does not know is a warning (refused under
// --btf_features_strict).
Expected<void> addFeatures(std::string_view list, bool strict, FeatureSet& set,
                           std::vector<std::string>& warnings) {
    const std::string option = strict ? "--btf_features_strict" : "--btf_features";
    if (list.starts_with('+')) {
        addDefaults(set);
        list.remove_prefix(1);
    }
    std::istringstream in{std::string(list)};
    for (std::string word; std::getline(in, word, ',');) {
        if (word.empty())
            continue;
        if (word == "default") {
            addDefaults(set);
            continue;
        }
        if (auto feature = FeatureSet::find(word)) {
            set.set(*feature);
            continue;
        }
        const std::string problem = "unknown BTF feature '" + word + "'";
        if (strict)
            return compatError(option + ": " + problem + " (supported: " + supportedFeatures() +
                               ")");
        warnings.push_back("pahole-compat: " + option + ": ignoring " + problem);
    }
    return {};
}

// --name=VALUE, --name VALUE, -XVALUE or -X VALUE: the value of option `name` (or `letter`) at
// args[i], advancing i past a separate value; nullopt when args[i] is another option.
std::optional<std::string> optionValue(std::span<const std::string> args, size_t& i,
                                       std::string_view name, char letter = 0) {
    const std::string& arg = args[i];
    if (arg.starts_with(name) && arg.size() > name.size() && arg[name.size()] == '=')
        return arg.substr(name.size() + 1);
    const bool shortForm = letter && arg.size() >= 2 && arg[0] == '-' && arg[1] == letter;
    if (shortForm && arg.size() > 2)
        return arg.substr(2);
    if ((arg == name || (shortForm && arg.size() == 2)) && i + 1 < args.size())
        return args[++i];
    return std::nullopt;
}

bool encodes(std::span<const std::string> args) {
    return std::any_of(args.begin(), args.end(), [](const std::string& arg) {
        return arg == "-J" || arg == "--btf_encode" || arg.starts_with("--btf_encode_detached");
    });
}

// pahole's layout options, as the convert command that prints them with the layout emitter.
Expected<PaholeTranslation> translateLayoutArguments(std::span<const std::string> args) {
    std::optional<std::string> input, jobs, loader, base, classes;
    std::string languages; // pahole reads every language's units unless told otherwise
    bool carried = false;
    std::vector<std::string> emitter; // --plugin-opt layout.KEY=VALUE
    auto set = [&](const char* key, const std::string& value) {
        emitter.push_back(std::string("layout.") + key + "=" + value);
    };
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        // Short switches may come grouped, as argp takes them: -Es.
        if (arg.size() > 2 && arg[0] == '-' && arg[1] != '-' &&
            arg.find_first_not_of("EsM", 1) == std::string::npos) {
            for (char c : arg.substr(1))
                set(c == 'E' ? "expand" : c == 's' ? "sizes" : "data-members", "true");
            continue;
        }
        if (auto names = optionValue(args, i, "--class_name", 'C')) {
            classes = *names; // the last, as pahole
        } else if (arg == "-E" || arg == "--expand_types") {
            set("expand", "true");
        } else if (arg == "--hex") {
            set("hex", "true");
        } else if (arg == "-s" || arg == "--sizes") {
            set("sizes", "true");
        } else if (auto holes = optionValue(args, i, "--holes", 'H')) {
            set("holes", *holes);
        } else if (arg == "--structs") {
            set("structs", "true");
        } else if (arg == "-M" || arg == "--show_only_data_members") {
            set("data-members", "true");
        } else if (auto size = optionValue(args, i, "--cacheline_size", 'c')) {
            set("cacheline", *size);
        } else if (arg == "--skip_missing") {
            set("skip-missing", "true");
        } else if (auto path = optionValue(args, i, "--btf_base")) {
            base = *path; // split BTF (a module's) read over it
        } else if (auto excluded = optionValue(args, i, "--lang_exclude")) {
            languages = *excluded;
        } else if (auto formats = optionValue(args, i, "--format_path", 'F')) {
            std::vector<std::string> names;
            std::istringstream in(*formats);
            for (std::string name; std::getline(in, name, ',');) {
                if (name != "dwarf" && name != "btf")
                    return compatError("-F: format '" + name + "' is not supported (dwarf, btf)");
                names.push_back(name);
            }
            if (names.empty())
                return compatError("-F: no format given (dwarf, btf)");
            // One format is read or an error; with two, the first when the input has it.
            loader.reset();
            carried = names.size() > 1 && names[0] == "btf";
            if (names.size() == 1)
                loader = names[0];
        } else if (arg == "-j" || arg == "--jobs") {
            jobs.reset();
        } else if (arg.starts_with("-j") || arg.starts_with("--jobs=")) {
            std::string n = arg.substr(arg[1] == 'j' ? 2 : 7);
            if (n.empty() || n.find_first_not_of("0123456789") != std::string::npos)
                return compatError("bad thread count in '" + arg + "'");
            jobs = n;
        } else if (arg == "-V" || arg == "--verbose" || arg.starts_with("--btf_") ||
                   arg.starts_with("--skip_encoding_btf") || arg == "--reproducible_build") {
            return compatError("'" + arg +
                               "' is a BTF encoding option: it needs -J or --btf_encode_detached");
        } else if (arg.starts_with("-") && arg != "-") {
            return compatError(
                "unsupported option '" + arg +
                "' (btforge implements pahole's layout options -C, -E, --hex, -s, -H, --structs, "
                "-M, -c, -F, --skip_missing, --btf_base, --lang_exclude, and with -J its BTF "
                "encoding options: see --help)");
        } else if (input) {
            return compatError("more than one input ('" + *input + "', '" + arg + "')");
        } else {
            input = arg;
        }
    }
    std::vector<std::string> out;
    for (const std::string& setting : emitter)
        out.insert(out.end(), {"--plugin-opt", setting});
    if (jobs)
        out.insert(out.end(), {"--jobs", *jobs});
    // pahole reads the running kernel's BTF when given no file.
    out.insert(out.end(), {"convert", input.value_or("/sys/kernel/btf/vmlinux"), "-t", "layout",
                           "-o", "-", "--lang-exclude", languages});
    if (loader)
        out.insert(out.end(), {"-f", *loader});
    if (base)
        out.insert(out.end(), {"-B", *base});
    if (carried)
        out.emplace_back("--carried");
    // convert's -C: the emitter's names, which the DWARF loaders read units until they find.
    if (classes)
        out.insert(out.end(), {"--class", *classes});
    return PaholeTranslation(std::move(out));
}

} // namespace

bool isPaholeInvocation(int argc, const char* const* argv, std::vector<std::string>& args) {
    if (argc < 1)
        return false;
    int first;
    if (std::filesystem::path(argv[0]).filename() == "pahole")
        first = 1;
    else if (argc > 1 && std::string_view(argv[1]) == "pahole-compat")
        first = 2;
    else
        return false;
    args.assign(argv + first, argv + argc);
    return true;
}

Expected<PaholeTranslation> translatePaholeArguments(std::span<const std::string> args,
                                                     std::vector<std::string>& warnings) {
    if (std::find(args.begin(), args.end(), "--version") == args.end() &&
        std::find(args.begin(), args.end(), "--help") == args.end() &&
        std::find(args.begin(), args.end(), "-h") == args.end() &&
        std::find(args.begin(), args.end(), "--supported_btf_features") == args.end() &&
        !encodes(args))
        return translateLayoutArguments(args);
    bool verbose = false;
    bool featuresGiven = false; // the first --btf_features starts from the empty set
    std::optional<std::string> detached, base, jobs, languages, input;
    FeatureSet features; // pahole's legacy set until --btf_features
    for (Feature f : {Feature::Var, Feature::DeclTag, Feature::TypeTag, Feature::Enum64})
        features.set(f);

    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        // --name=VALUE or --name VALUE, for options that take one.
        auto value = [&](std::string_view name) -> std::optional<std::string> {
            if (arg.starts_with(name) && arg.size() > name.size() && arg[name.size()] == '=')
                return arg.substr(name.size() + 1);
            if (arg == name && i + 1 < args.size())
                return args[++i];
            return std::nullopt;
        };
        if (arg == "--version")
            return PaholeTranslation(std::string(kPaholeCompatVersion) + "\n");
        if (arg == "--help" || arg == "-h")
            return PaholeTranslation(std::string(kUsage));
        if (arg == "--supported_btf_features")
            return PaholeTranslation(supportedFeatures() + "\n");
        auto list = value("--btf_features");
        const bool strict = !list && (list = value("--btf_features_strict")).has_value();
        if (arg == "-J" || arg == "--btf_encode") {
            // What makes this an encoding (encodes()); where it goes, the options below say.
        } else if (arg == "-V" || arg == "--verbose") {
            verbose = true;
        } else if (auto file = value("--btf_encode_detached")) {
            detached = *file;
        } else if (auto path = value("--btf_base")) {
            base = *path;
        } else if (auto excluded = value("--lang_exclude")) {
            languages = *excluded;
        } else if (list) {
            if (!featuresGiven)
                features = FeatureSet();
            featuresGiven = true;
            if (auto added = addFeatures(*list, strict, features, warnings); !added)
                return std::move(added).error();
        } else if (arg == "-j" || arg == "--jobs") {
            jobs.reset(); // every CPU, btforge's default
        } else if (arg.starts_with("-j") || arg.starts_with("--jobs=")) {
            std::string n = arg.substr(arg[1] == 'j' ? 2 : 7);
            if (n.empty() || n.find_first_not_of("0123456789") != std::string::npos)
                return compatError("bad thread count in '" + arg + "'");
            jobs = n;
        } else if (arg == "--btf_gen_all") {
            addDefaults(features);
        } else if (arg == "--reproducible_build") {
            // btforge output never depends on scheduling
        } else if (auto known =
                       std::find_if(std::begin(kLegacySwitches), std::end(kLegacySwitches),
                                    [&](const LegacySwitch& s) { return s.option == arg; });
                   known != std::end(kLegacySwitches)) {
            features.set(known->feature, known->on);
        } else if (arg.starts_with("-") && arg != "-") {
            return compatError("unsupported option '" + arg +
                               "' (btforge implements pahole's BTF encoding options: -J, -j, -V, "
                               "--btf_encode_detached, --btf_base, --btf_features[_strict], "
                               "--supported_btf_features, --lang_exclude, --btf_gen_*, "
                               "--skip_encoding_btf_*, --version)");
        } else if (input) {
            return compatError("more than one input ('" + *input + "', '" + arg + "')");
        } else {
            input = arg;
        }
    }
    if (!input)
        return compatError("missing the input ELF file");

    std::vector<std::string> out;
    if (jobs)
        out.insert(out.end(), {"--jobs", *jobs});
    out.insert(out.end(), {"convert", *input});
    // -J alone writes .BTF into the input ELF; --btf_encode_detached writes raw BTF instead.
    if (detached)
        out.insert(out.end(), {"-o", *detached});
    else
        out.emplace_back("--in-place");
    if (base)
        out.insert(out.end(), {"-B", *base});
    out.insert(out.end(), {"--features", featureList(features)});
    out.insert(out.end(), {"--lang-exclude", languages.value_or("")}); // pahole reads every CU
    if (verbose)
        out.emplace_back("--list-skipped");
    return PaholeTranslation(std::move(out));
}

} // namespace btforge::host
