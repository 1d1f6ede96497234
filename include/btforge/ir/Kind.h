// The kinds of type the IR knows: BTF's kinds 1-19 with BTF's numbering, so a kind converts to
// and from the wire format without a table.
#pragma once

#include "btforge/Export.h"

#include <cstdint>
#include <string_view>

namespace btforge::ir {

using TypeId =
    uint32_t;           // 0 is void; ids count from 1 in graph order (split graphs continue a base)
using StrId = uint32_t; // offset of an interned string; 0 is the empty name

inline constexpr TypeId kVoidType = 0;
inline constexpr StrId kNoName = 0;

enum class Kind : uint8_t {
    Void = 0,
    Int = 1,
    Ptr = 2,
    Array = 3,
    Struct = 4,
    Union = 5,
    Enum = 6,
    Fwd = 7,
    Typedef = 8,
    Volatile = 9,
    Const = 10,
    Restrict = 11,
    Func = 12,
    FuncProto = 13,
    Var = 14,
    Datasec = 15,
    Float = 16,
    DeclTag = 17,
    TypeTag = 18,
    Enum64 = 19,
};

inline constexpr unsigned kMaxKind = 19;

// The spelling BTF tools use ("INT", "FUNC_PROTO", ...); "UNKNOWN" outside 1-19.
BTFORGE_API std::string_view kindName(Kind kind);

// Kinds whose record is just "name + one referenced type".
constexpr bool isReferenceKind(Kind kind) {
    switch (kind) {
    case Kind::Ptr:
    case Kind::Typedef:
    case Kind::Volatile:
    case Kind::Const:
    case Kind::Restrict:
    case Kind::TypeTag:
        return true;
    default:
        return false;
    }
}

// INT encoding bits (BTF_INT_SIGNED / CHAR / BOOL).
namespace int_encoding {
inline constexpr uint8_t kSigned = 1;
inline constexpr uint8_t kChar = 2;
inline constexpr uint8_t kBool = 4;
} // namespace int_encoding

enum class FuncLinkage : uint8_t { Static = 0, Global = 1, Extern = 2 };
enum class VarLinkage : uint8_t { Static = 0, GlobalAllocated = 1, GlobalExtern = 2 };

} // namespace btforge::ir
