// Declarations and definitions of one struct, union or enum across a base and a unit over it (a
// module over vmlinux). libbpf's dedup takes a declaration and a definition of one name as the
// same C type; without the same rule here every type reaching such a declaration would differ
// from its base twin and be repeated in the module's BTF. Names are looked up in the merger's
// BaseIndex, built once for the base.
#pragma once

#include "dedup/BaseIndex.h"
#include "dedup/GraphMerger.h"

#include "btforge/ir/TypeGraph.h"

#include <string_view>
#include <vector>

namespace btforge::dedup {

// What units resolve early, narrowed each time the merger finds an early resolution wrong for
// the input (GraphMerger::Result says which). A round leaves out all that rounds before it left
// out, and more, so rounds end.
struct EarlyResolution {
    bool enums = true; // resolveEnumDeclarations (over a lazy base)
    // resolveDeclarations. Once an own type redefines a name the base defines, none: the
    // module's copies of base structs that reach its definition differ from one another only
    // where a unit declared a struct the others defined, which finish() compares as libbpf does
    // only if it sees the declaration (cxgb4.ko's copies of task_struct, which reach its own
    // struct sched_class).
    bool structs = true;
    // Whether `result` asks for another round; narrows this for it.
    bool narrow(const GraphMerger::Result& result);
};

class BaseDeclarations {
public:
    // `structs`: whether resolveDeclarations resolves anything (EarlyResolution::structs).
    BaseDeclarations(const ir::TypeGraph& base, const BaseIndex& index, bool structs = true);

    // A unit often only declares a struct the base defines (`struct pid_namespace;`): the
    // declaration means the base's struct when the base has one struct of that name and the
    // input none (libbpf: the name has one definition). Such FWDs of `unit` not yet pre-mapped
    // become placeholders for it. The others are left to the merger, which pairs them by
    // context as libbpf does.
    void resolveDeclarations(const ir::TypeGraph& unit, std::vector<ir::TypeId>& preMapped,
                             std::vector<ir::TypeId>& placeholders) const;

    // The same for an enum declared without enumerators (`enum dev_dma_attr;`) when the base
    // has one definition of its name and size and no declaration of them: what finish() decides
    // too, as long as no own type defines that enum otherwise (GraphMerger::Result says when
    // one did). Only over a lazy base, whose finish() checks that.
    void resolveEnumDeclarations(const ir::TypeGraph& unit, std::vector<ir::TypeId>& preMapped,
                                 std::vector<ir::TypeId>& placeholders) const;

    // The other way round, the base may only declare a struct the unit defines (vmlinux has
    // `struct kvm_lapic;`, kvm.ko defines it): the base's types that refer to it (through
    // pointers, qualifiers, typedefs) have the declaration, the unit's the definition. The
    // unit's references are pointed at a new FWD, a placeholder for the base's declaration; the
    // definition itself stays, for what needs it whole.
    void referToDeclarations(ir::TypeGraph& unit, std::vector<ir::TypeId>& preMapped,
                             std::vector<ir::TypeId>& placeholders) const;

private:
    // The base's one STRUCT or UNION (`family`) of the name, void when it has none or several.
    ir::TypeId onlyDefinition(ir::Kind family, std::string_view name) const;
    // The base's one ENUM or ENUM64 of the name and size with enumerators, void when it has none
    // or several, or also declares one of them.
    ir::TypeId onlyEnumDefinition(std::string_view name, uint32_t size) const;

    const ir::TypeGraph& base_;
    const BaseIndex& index_;
    bool structs_;
};

} // namespace btforge::dedup
