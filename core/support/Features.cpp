#include "btforge/Features.h"

#include <array>
#include <sstream>

namespace btforge {
namespace {

constexpr std::array<std::string_view, static_cast<size_t>(Feature::Count)> kNames = {
    "encode_force",
    "var",
    "float",
    "decl_tag",
    "type_tag",
    "enum64",
    "optimized_func",
    "consistent_func",
    "decl_tag_kfuncs",
    "global_var",
    "true_signature",
    "distilled_base",
    "attributes",
    "layout",
    "reproducible_build"};

} // namespace

std::string_view FeatureSet::name(Feature f) {
    return kNames[static_cast<size_t>(f)];
}

std::optional<Feature> FeatureSet::find(std::string_view word) {
    for (size_t i = 0; i < kNames.size(); ++i) {
        if (kNames[i] == word)
            return static_cast<Feature>(i);
    }
    return std::nullopt;
}

FeatureSet FeatureSet::defaults() {
    FeatureSet set;
    for (Feature f :
         {Feature::EncodeForce, Feature::Var, Feature::Float, Feature::DeclTag, Feature::TypeTag,
          Feature::Enum64, Feature::OptimizedFunc, Feature::ConsistentFunc, Feature::DeclTagKfuncs})
        set.set(f);
    return set;
}

Expected<FeatureSet> FeatureSet::parse(std::span<const std::string> names) {
    if (names.empty())
        return defaults();
    FeatureSet set;
    for (const std::string& list : names) {
        std::istringstream in(list);
        for (std::string word; std::getline(in, word, ',');) {
            if (word.empty())
                continue;
            if (word == "default") {
                set.bits_ |= defaults().bits_;
                continue;
            }
            // Every feature but those that change the output's form or what older kernels
            // accept (the layout section, .BTF.base, kind_flag tags): asked for by name.
            if (word == "all") {
                for (size_t i = 0; i < kNames.size(); ++i) {
                    auto f = static_cast<Feature>(i);
                    if (f != Feature::Layout && f != Feature::DistilledBase &&
                        f != Feature::Attributes)
                        set.set(f);
                }
                continue;
            }
            if (word == "none")
                continue;
            if (auto f = find(word)) {
                set.set(*f);
                continue;
            }
            return Error::usage("unknown feature '" + word + "' (known: default, all, none, " + [] {
                std::string all;
                for (auto n : kNames)
                    all += (all.empty() ? "" : ", ") + std::string(n);
                return all;
            }() + ")");
        }
    }
    return set;
}

bool layoutRequested(std::span<const std::string> names) {
    Expected<FeatureSet> set = FeatureSet::parse(names);
    return set && set->has(Feature::Layout);
}

} // namespace btforge
