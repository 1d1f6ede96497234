// pahole's arguments as btforge's: feature lists (+LIST, default, strict, unimplemented names),
// the legacy set and switches, --verbose. Expectations from pahole's manual and pahole.c.
#include "PaholeCompat.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace btforge::host {
namespace {

struct Translated {
    std::vector<std::string> args; // btforge's, empty when the translation is text or an error
    std::vector<std::string> warnings;
    std::string text;  // --version, --supported_btf_features
    std::string error; // usage error
};

Translated translate(std::vector<std::string> pahole) {
    Translated t;
    auto result = translatePaholeArguments(pahole, t.warnings);
    if (!result)
        t.error = result.error().message();
    else if (auto* text = std::get_if<std::string>(&*result))
        t.text = *text;
    else
        t.args = std::get<std::vector<std::string>>(*result);
    return t;
}

// The value btforge's --features gets.
std::string featuresOf(const Translated& t) {
    for (size_t i = 0; i + 1 < t.args.size(); ++i) {
        if (t.args[i] == "--features")
            return t.args[i + 1];
    }
    return "(no --features)";
}

std::string features(std::vector<std::string> pahole) {
    pahole.insert(pahole.end(), {"--btf_encode_detached=out.btf", "in.o"});
    return featuresOf(translate(pahole));
}

constexpr const char* kDefault = "encode_force,var,float,decl_tag,type_tag,enum64,optimized_func,"
                                 "consistent_func,decl_tag_kfuncs";

TEST_CASE("pahole-compat: without --btf_features, pahole's legacy set and switches") {
    CHECK(features({}) == "var,decl_tag,type_tag,enum64");
    CHECK(features({"--btf_gen_floats"}) == "var,float,decl_tag,type_tag,enum64");
    CHECK(features({"--skip_encoding_btf_vars", "--skip_encoding_btf_enum64"}) ==
          "decl_tag,type_tag");
    CHECK(features({"--btf_gen_optimized", "--skip_encoding_btf_inconsistent_proto",
                    "--btf_encode_force"}) ==
          "encode_force,var,decl_tag,type_tag,enum64,optimized_func,consistent_func");
}

TEST_CASE("pahole-compat: --btf_features lists") {
    CHECK(features({"--btf_features=default"}) == kDefault);
    CHECK(features({"--btf_features=var,float"}) == "var,float");
    // A leading '+' adds to the default set (pahole 1.27).
    CHECK(features({"--btf_features=+true_signature"}) ==
          std::string(kDefault) + ",true_signature");
    CHECK(features({"--btf_features=+reproducible_build,global_var"}) ==
          std::string(kDefault) + ",global_var,reproducible_build");
    CHECK(features({"--btf_features=default,global_var"}) == std::string(kDefault) + ",global_var");
    // Several lists add up; the legacy set is dropped at the first, switches act where they are.
    CHECK(features({"--btf_features=var", "--btf_features", "float"}) == "var,float");
    CHECK(features({"--btf_gen_floats", "--btf_features=var"}) == "var");
    CHECK(features({"--btf_features=var", "--btf_gen_floats"}) == "var,float");
    // Nothing left: an empty set, not btforge's defaults.
    CHECK(features({"--btf_features=no_such_feature"}) == "none");
}

TEST_CASE("pahole-compat: unknown names warn, or are refused when strict") {
    Translated t = translate(
        {"--btf_features=var,no_such_feature,attributes", "--btf_encode_detached=o", "m.ko"});
    CHECK(featuresOf(t) == "var,attributes");
    REQUIRE(t.warnings.size() == 1);
    CHECK(t.warnings[0].find("unknown BTF feature 'no_such_feature'") != std::string::npos);

    t = translate({"--btf_features_strict=var,no_such_feature", "-J", "m.ko"});
    CHECK(t.args.empty());
    CHECK(t.error.find("'no_such_feature'") != std::string::npos);
    t = translate({"--btf_features_strict=+decl_tag_kfuncs,true_signature,layout,distilled_base,"
                   "attributes",
                   "-J", "m.ko"});
    CHECK(t.error.empty());
    CHECK(t.warnings.empty());
}

TEST_CASE("pahole-compat: --supported_btf_features lists every feature") {
    const std::string text = translate({"--supported_btf_features"}).text;
    for (const char* name : {"true_signature", "decl_tag_kfuncs", "layout", "distilled_base",
                             "attributes", "reproducible_build"})
        CHECK(text.find(name) != std::string::npos);
}

TEST_CASE("pahole-compat: outputs, base, jobs, languages and --verbose") {
    Translated t = translate(
        {"-J", "-j3", "--btf_base", "vmlinux", "--lang_exclude=rust", "--verbose", "m.ko"});
    CHECK(t.args == std::vector<std::string>{"--jobs", "3", "convert", "m.ko", "--in-place", "-B",
                                             "vmlinux", "--features",
                                             "var,decl_tag,type_tag,enum64", "--lang-exclude",
                                             "rust", "--list-skipped"});
    t = translate({"-V", "--btf_encode_detached", "out.btf", "prog"});
    CHECK(t.args == std::vector<std::string>{"convert", "prog", "-o", "out.btf", "--features",
                                             "var,decl_tag,type_tag,enum64", "--lang-exclude", "",
                                             "--list-skipped"});
    CHECK(translate({"-J", "--no_such_option", "prog"}).error.find("'--no_such_option'") !=
          std::string::npos);
}

TEST_CASE("pahole-compat: without -J, layouts through the layout emitter") {
    // The emitter's capability has the DWARF loaders keep the units' own types, as pahole reads
    // them (not an option here).
    const std::vector<std::string> convert{"convert", "prog",           "-t", "layout", "-o",
                                           "-",       "--lang-exclude", ""};
    CHECK(translate({"prog"}).args == convert);
    CHECK(translate({"--lang_exclude=rust,ada", "prog"}).args[7] == "rust,ada");
    // The running kernel's BTF when no file is given.
    CHECK(translate({"-C", "list_head"}).args ==
          std::vector<std::string>{"convert", "/sys/kernel/btf/vmlinux", "-t", "layout", "-o", "-",
                                   "--lang-exclude", "", "--class", "list_head"});
    // -C as convert's, the last one given, as pahole takes it.
    auto classes = [](std::vector<std::string> pahole) {
        pahole.emplace_back("prog");
        std::vector<std::string> args = translate(pahole).args;
        auto c = std::find(args.begin(), args.end(), "--class");
        return c != args.end() && c + 1 != args.end() ? *(c + 1) : std::string("(none)");
    };
    CHECK(classes({"-Ca,b"}) == "a,b");
    CHECK(classes({"--class_name=a", "--class_name", "b"}) == "b");
    // Each option as the emitter's, in every spelling argp takes; grouped switches too.
    auto settings = [](std::vector<std::string> pahole) {
        pahole.emplace_back("prog");
        std::vector<std::string> args = translate(pahole).args, out;
        for (size_t i = 0; i + 1 < args.size(); ++i) {
            if (args[i] == "--plugin-opt")
                out.push_back(args[++i]);
        }
        return out;
    };
    using List = std::vector<std::string>;
    CHECK(settings({"-Es", "-M"}) ==
          List{"layout.expand=true", "layout.sizes=true", "layout.data-members=true"});
    CHECK(settings({"--expand_types", "--sizes", "--hex", "--structs", "--skip_missing"}) ==
          List{"layout.expand=true", "layout.sizes=true", "layout.hex=true", "layout.structs=true",
               "layout.skip-missing=true"});
    CHECK(settings({"-H", "2", "--holes=3", "-H4"}) ==
          List{"layout.holes=2", "layout.holes=3", "layout.holes=4"});
    CHECK(settings({"-c", "32", "--cacheline_size=128"}) ==
          List{"layout.cacheline=32", "layout.cacheline=128"});
    // -F: one format is the loader; two read the first when the input has it.
    auto from = [](std::vector<std::string> pahole) {
        pahole.emplace_back("prog");
        std::vector<std::string> args = translate(pahole).args;
        auto f = std::find(args.begin(), args.end(), "-f");
        if (f != args.end() && f + 1 != args.end())
            return "-f " + *(f + 1);
        return std::string(std::find(args.begin(), args.end(), "--carried") != args.end()
                               ? "--carried"
                               : "(default)");
    };
    CHECK(from({"-F", "dwarf"}) == "-f dwarf");
    CHECK(from({"--format_path=btf"}) == "-f btf");
    CHECK(from({"-Fbtf,dwarf"}) == "--carried");
    CHECK(from({"-F", "dwarf,btf"}) == "(default)");
    CHECK(translate({"-F", "ctf", "prog"}).error.find("'ctf'") != std::string::npos);
    // A module's split BTF over its base.
    const std::vector<std::string> split = translate({"--btf_base=vmlinux", "m.ko"}).args;
    const std::vector<std::string> overBase{"-B", "vmlinux"};
    CHECK(std::search(split.begin(), split.end(), overBase.begin(), overBase.end()) != split.end());
    // What is not implemented is refused by name; encoding options need -J.
    for (const char* option : {"-R", "-S", "-P", "--reorganize", "-a", "--count=3"}) {
        CAPTURE(option);
        CHECK(translate({option, "prog"}).error.find(std::string("'") + option + "'") !=
              std::string::npos);
    }
    CHECK(translate({"--btf_features=default", "prog"}).error.find("needs -J") !=
          std::string::npos);
    CHECK(translate({"a", "b"}).error.find("more than one input") != std::string::npos);
}

// The rest of docs/kernel-build.md's table: each row's spellings.
TEST_CASE("pahole-compat: every row of the mapping table") {
    // -J and --btf_encode: .BTF written into the input; --btf_base=B as --btf_base B.
    CHECK(translate({"--btf_encode", "--btf_base=vmlinux", "m.ko"}).args ==
          std::vector<std::string>{"convert", "m.ko", "--in-place", "-B", "vmlinux", "--features",
                                   "var,decl_tag,type_tag,enum64", "--lang-exclude", ""});
    // -j and --jobs without N: btforge's default, one thread per CPU; with N: --jobs N.
    auto jobs = [](std::vector<std::string> pahole) {
        pahole.insert(pahole.end(), {"-J", "prog"});
        std::vector<std::string> args = translate(pahole).args;
        auto it = std::find(args.begin(), args.end(), "--jobs");
        return it == args.end() || it + 1 == args.end() ? std::string("(default)") : *(it + 1);
    };
    CHECK(jobs({"-j"}) == "(default)");
    CHECK(jobs({"--jobs"}) == "(default)");
    CHECK(jobs({"-j8"}) == "8");
    CHECK(jobs({"--jobs=4"}) == "4");
    CHECK(jobs({"-j8", "-j"}) == "(default)"); // the last one counts
    CHECK(translate({"-jx", "-J", "prog"}).error.find("'-jx'") != std::string::npos);
    CHECK(translate({"--jobs=", "-J", "prog"}).error.find("'--jobs='") != std::string::npos);

    // The legacy switches not covered above, and --btf_gen_all (the default set).
    CHECK(features({"--skip_encoding_btf_decl_tag"}) == "var,type_tag,enum64");
    CHECK(features({"--skip_encoding_btf_type_tag"}) == "var,decl_tag,enum64");
    CHECK(features({"--btf_gen_all"}) == kDefault);
    // A switch after --btf_features acts on the list's set.
    CHECK(features({"--btf_features=default", "--skip_encoding_btf_vars"}) ==
          "encode_force,float,decl_tag,type_tag,enum64,optimized_func,consistent_func,"
          "decl_tag_kfuncs");
    // Nothing to do for --reproducible_build.
    CHECK(features({"--reproducible_build"}) == "var,decl_tag,type_tag,enum64");

    // --version: the pahole version the kernel's scripts read their flags from.
    CHECK(translate({"--version"}).text == "v1.31\n");
    CHECK(translate({"-J", "a.o", "b.o"}).error.find("more than one input") != std::string::npos);
    CHECK(translate({"-J"}).error.find("missing the input") != std::string::npos);
}

} // namespace
} // namespace btforge::host
