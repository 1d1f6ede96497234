// How a DWARF conversion tells the user what it left out: counted warnings, and the full list
// of skipped functions as JSON (--report-skipped).
#pragma once

#include "dwarf/DwarfConversion.h"

#include "btforge/plugin/Session.h"

namespace btforge::dwarf {

// One warning per kind of DIE the mapper could not express (with an example offset), one for
// C++ references, one for unresolved cross-unit references, one for excluded units.
void warnAbout(const DwarfConversionReport& report, const std::string& path,
               plugin::Diagnostics& diagnostics);

// {"skipped":[{"name":"...","reason":"..."},...],"counts":{"reason":N,...}}.
void writeSkipReport(const DwarfConversionReport& report, std::ostream& out);

// One line per skipped function, as pahole --verbose prints them (upstream's tests grep them):
// "NAME : skipping BTF encoding of function due to REASON".
void writeSkipLines(const DwarfConversionReport& report, std::ostream& out);

} // namespace btforge::dwarf
