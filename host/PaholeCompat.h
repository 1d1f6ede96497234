// pahole's BTF-encoding interface, as kernel builds call it (scripts/link-vmlinux.sh,
// scripts/Makefile.modfinal, scripts/pahole-version.sh): its arguments become the btforge
// command line that does the same, so `btforge pahole-compat ARGS` and a `pahole` link to btforge
// run the ordinary convert pipeline.
#pragma once

#include "btforge/support/Error.h"

#include <span>
#include <string>
#include <variant>
#include <vector>

namespace btforge::host {

// The pahole release whose options and defaults are implemented; `--version` prints it, and the
// kernel's scripts compare it (v1.31 -> 131) to choose the flags they pass.
inline constexpr const char* kPaholeCompatVersion = "v1.31";

// True when argv asks for pahole's interface: the program is named "pahole" (a link to btforge)
// or the command is "pahole-compat". `args` are then pahole's arguments alone.
bool isPaholeInvocation(int argc, const char* const* argv, std::vector<std::string>& args);

// What pahole's arguments mean: text to print (--version), or btforge's own arguments, e.g.
// `-J --btf_base vmlinux --btf_encode_detached=m.btf m.ko` ->
// `convert m.ko -o m.btf -B vmlinux --features ... --lang-exclude ''`.
// Warnings (pahole ignores unknown --btf_features names) go to `warnings`.
using PaholeTranslation = std::variant<std::string, std::vector<std::string>>;
Expected<PaholeTranslation> translatePaholeArguments(std::span<const std::string> args,
                                                     std::vector<std::string>& warnings);

} // namespace btforge::host
