#include "btforge/ir/Kind.h"

#include <array>

namespace btforge::ir {

std::string_view kindName(Kind kind) {
    static constexpr std::array<std::string_view, kMaxKind + 1> kNames = {
        "UNKNOWN", "INT",     "PTR",      "ARRAY",    "STRUCT",   "UNION", "ENUM",
        "FWD",     "TYPEDEF", "VOLATILE", "CONST",    "RESTRICT", "FUNC",  "FUNC_PROTO",
        "VAR",     "DATASEC", "FLOAT",    "DECL_TAG", "TYPE_TAG", "ENUM64"};
    auto index = static_cast<unsigned>(kind);
    return index <= kMaxKind ? kNames[index] : "UNKNOWN";
}

} // namespace btforge::ir
