// The optional parts of an encoding, by pahole's --btf_features names, so build scripts can
// pass the same words to btforge. Off, decl_tag, decl_tag_kfuncs, type_tag, enum64 and float
// also rewrite what any input has, BTF included (btforge/amend/FeatureDowngrade.h).
#pragma once

#include "btforge/Export.h"
#include "btforge/support/Error.h"

#include <bitset>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace btforge {

enum class Feature : uint8_t {
    EncodeForce,       // keep going past DWARF the encoder cannot represent
    Var,               // per-CPU variables in DATASEC .data..percpu
    Float,             // FLOAT kind (otherwise unsigned INT of the float's size, as pahole)
    DeclTag,           // DECL_TAG from btf_decl_tag annotations
    TypeTag,           // TYPE_TAG from btf_type_tag annotations
    Enum64,            // ENUM64 kind (otherwise ENUM with the values' low 32 bits)
    OptimizedFunc,     // functions the compiler specialised (.isra, .constprop) under their name
    ConsistentFunc,    // skip functions whose instances disagree
    DeclTagKfuncs,     // DECL_TAG 'bpf_kfunc' on kfuncs
    GlobalVar,         // every global variable, one DATASEC per section (BTF input: from the
                       // ELF symbol table, docs/amending.md)
    TrueSignature,     // re-signatured code as it is: its symbol, its arriving parameters
                       // (docs/functions.md)
    DistilledBase,     // split BTF written into an ELF file over a distilled base, in .BTF.base
                       // (btf/DistilledBase.h)
    Attributes,        // TYPE_TAG 'address_space(1)' (kind_flag 1) on arena kfuncs' pointers
    Layout,            // the 2026 BTF format: kind-layout section, 24-bit vlen (BtfWriter.h)
    ReproducibleBuild, // a no-op: btforge output never depends on scheduling
    Count
};

class BTFORGE_API FeatureSet {
public:
    // pahole's default set: encode_force var float decl_tag type_tag enum64 optimized_func
    // consistent_func decl_tag_kfuncs.
    static FeatureSet defaults();
    // Comma-separated words or a list; "default" and "all" (every one) name sets,
    // "none" adds nothing (an empty set, where no names at all mean the defaults). Unknown names
    // are an error. "all" leaves out layout and distilled_base, which change the output's form,
    // and attributes, whose kind_flag tags older kernels refuse.
    static Expected<FeatureSet> parse(std::span<const std::string> names);
    // The feature named `word` (pahole's names only, no sets); nullopt if there is none.
    static std::optional<Feature> find(std::string_view word);
    bool has(Feature f) const { return bits_.test(static_cast<size_t>(f)); }
    void set(Feature f, bool on = true) { bits_.set(static_cast<size_t>(f), on); }
    static std::string_view name(Feature f);

private:
    std::bitset<static_cast<size_t>(Feature::Count)> bits_;
};

// Whether --features asks for the layout feature (the BTF emitters' one question; the host has
// already refused malformed lists).
BTFORGE_API bool layoutRequested(std::span<const std::string> names);

} // namespace btforge
