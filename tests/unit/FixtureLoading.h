// Runs the build tree's DWARF loader plugins on a fixture, as the host runs them on a file: the
// plugin loaded from the plugin directory, the input opened once, a one-thread session.
#pragma once

#include "DwarfFixture.h"

#include "btforge/ir/TypeGraph.h"
#include "btforge/plugin/Plugin.h"
#include "btforge/plugin/Session.h"
#include "btforge/support/Error.h"
#include "btforge/support/MappedFile.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace btforge::test {

// The fixture's ELF image as an opened input (an anonymous file: nothing to clean up).
std::shared_ptr<MappedFile> fixtureFile(const Fixture& fixture);

// The DWARF loaders this build has: "dwarf", and "llvm-dwarf" when LLVM was found.
std::vector<std::string> dwarfLoaders();

struct Loaded {
    Expected<ir::TypeGraph> graph;
    std::vector<std::string> warnings;
    std::string skipped; // --list-skipped's lines: the functions left out, and why
};

// `own`: the loader's own options (--plugin-opt); the others have their declared defaults, as
// the host gives them.
Loaded loadFixture(const std::string& loader, const Fixture& fixture,
                   const plugin::Options& options = {}, const plugin::OptionValues& own = {});

// The one type of this kind and name (fails the test when there is not exactly one).
ir::TypeId findType(const ir::TypeGraph& graph, ir::Kind kind, std::string_view name);
// Whether the graph has a type of this kind and name.
bool hasType(const ir::TypeGraph& graph, ir::Kind kind, std::string_view name);

} // namespace btforge::test
