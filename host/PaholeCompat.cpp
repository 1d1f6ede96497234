#include "PaholeCompat.h"

#include "btforge/Features.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <sstream>

namespace btforge::host {
namespace {

constexpr const char* kUsage =
    R"(usage: pahole -J [OPTIONS] FILE     (btforge pahole-compat: pahole's BTF encoding, by btforge)

  -J, --btf_encode                  write .BTF into FILE (btforge convert --in-place)
  --btf_encode_detached=OUT         write raw BTF to OUT instead
  --btf_base=BASE                   split BTF over BASE (vmlinux for a module)
  -j[N], --jobs[=N]                 N threads (default: one per CPU)
  --btf_features=LIST               these features (pahole's names; 'default' for its default
                                    set, '+LIST' for the default set and LIST; unknown names
                                    and ones btforge does not implement: a warning)
  --btf_features_strict=LIST        the same, unknown and unimplemented names refused
  --supported_btf_features          the feature names btforge implements
  -V, --verbose                     one line per function left out, on standard output
  --lang_exclude=LANGS              skip compile units of these languages
  --btf_gen_floats, --btf_gen_optimized, --btf_gen_all, --btf_encode_force,
  --skip_encoding_btf_{vars,decl_tag,type_tag,enum64,inconsistent_proto}, --reproducible_build
                                    pahole's switches, without --btf_features
  --version                         the pahole version implemented
Without --btf_features, pahole's legacy set: var, decl_tag, type_tag, enum64. See
docs/kernel-build.md.
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
        if (set.has(f))
            list += (list.empty() ? "" : ",") + std::string(FeatureSet::name(f));
    }
    return list.empty() ? "none" : list;
}

std::string supportedFeatures() {
    FeatureSet all;
    for (size_t i = 0; i < static_cast<size_t>(Feature::Count); ++i) {
        if (FeatureSet::implemented(static_cast<Feature>(i)))
            all.set(static_cast<Feature>(i));
    }
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
// default set, and so does a leading `+`; a name pahole does not know, or one btforge does not
// implement, is a warning (refused under --btf_features_strict), never accepted and ignored.
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
        auto feature = FeatureSet::find(word);
        std::string problem;
        if (!feature)
            problem = "unknown BTF feature '" + word + "'";
        else if (!FeatureSet::implemented(*feature))
            problem = "BTF feature '" + word + "' is not implemented by btforge";
        if (problem.empty()) {
            set.set(*feature);
        } else if (strict) {
            return compatError(option + ": " + problem + " (supported: " + supportedFeatures() +
                               ")");
        } else {
            warnings.push_back("pahole-compat: " + option + ": ignoring " + problem);
        }
    }
    return {};
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
    bool encode = false;
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
            encode = true;
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
    if (!encode && !detached)
        return compatError("only BTF encoding is implemented: use -J or --btf_encode_detached");
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
