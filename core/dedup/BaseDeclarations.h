// Declarations and definitions of one struct or union across a base and a unit over it (a
// module over vmlinux). libbpf's dedup takes a declaration and a definition of one name as the
// same C type; without the same rule here every type reaching such a declaration would differ
// from its base twin and be repeated in the module's BTF.
#pragma once

#include "btforge/ir/TypeGraph.h"

#include <string_view>
#include <unordered_map>
#include <vector>

namespace btforge::dedup {

class BaseDeclarations {
public:
    explicit BaseDeclarations(const ir::TypeGraph& base);

    // A unit often only declares a struct the base defines (`struct pid_namespace;`): the
    // declaration means the base's struct when the base has one struct of that name. Such FWDs
    // of `unit` not yet pre-mapped become placeholders for it.
    void resolveDeclarations(const ir::TypeGraph& unit, std::vector<ir::TypeId>& preMapped,
                             std::vector<ir::TypeId>& placeholders) const;

    // The other way round, the base may only declare a struct the unit defines (vmlinux has
    // `struct kvm_lapic;`, kvm.ko defines it): the base's types that refer to it (through
    // pointers, qualifiers, typedefs) have the declaration, the unit's the definition. The
    // unit's references are pointed at a new FWD, a placeholder for the base's declaration; the
    // definition itself stays, for what needs it whole.
    void referToDeclarations(ir::TypeGraph& unit, std::vector<ir::TypeId>& preMapped,
                             std::vector<ir::TypeId>& placeholders) const;

private:
    // Struct or union, and the name: views into the base's strings, which outlive this.
    struct Key {
        bool isUnion;
        std::string_view name;
        bool operator==(const Key&) const = default;
    };
    struct KeyHash {
        size_t operator()(const Key& key) const;
    };

    // Base STRUCTs and UNIONs by key; void where the base has several of one name.
    std::unordered_map<Key, ir::TypeId, KeyHash> definitions_;
    // Base FWDs of names the base defines nowhere, by key.
    std::unordered_map<Key, ir::TypeId, KeyHash> declarations_;
};

} // namespace btforge::dedup
