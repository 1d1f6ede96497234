// What BTF requires of types beyond each field's own range, for every loader that builds a graph
// from untrusted input (the BTF reader, the json loader): emitters and libbpf rely on it.
#pragma once

#include "btforge/Export.h"
#include "btforge/ir/TypeGraph.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace btforge::btf {

// The first rule an own type breaks: where, and what (a message naming the type, as
// "type [5] FUNC 'f': refers to type [1] INT 'int', not a FUNC_PROTO").
struct TypeFault {
    enum class Field : uint8_t {
        Record,         // the type as a whole (a reference loop starts here)
        Target,         // the type it refers to (a FUNC's prototype)
        ComponentIndex, // a DECL_TAG's component_idx
    };
    ir::TypeId id;
    Field field;
    std::string what;
};

// Checks, in this order: every FUNC refers to a FUNC_PROTO; every DECL_TAG's component_idx names
// a member or parameter of its target; no chain of pointers, typedefs, modifiers and array
// elements loops without reaching a type with a size; no struct or union contains itself by
// value. Messages show own type i as shownIds[i - firstId()] when given (the ids of the input, a
// loader that renumbered them), as its id otherwise.
BTFORGE_API std::optional<TypeFault> findTypeFault(const ir::TypeGraph& graph,
                                                   std::span<const ir::TypeId> shownIds = {});

} // namespace btforge::btf
