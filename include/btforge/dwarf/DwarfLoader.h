// A loader of the DWARF of ELF files, whatever library reads it: it opens the input's symbol
// table, converts with core (convertDwarf) and reports what was left out. A DWARF loader plugin
// only says how confidently it bids and opens its UnitReader; its options are kLoaderOptions
// (LoaderOptions.h).
#pragma once

#include "btforge/Export.h"
#include "btforge/dwarf/UnitReader.h"
#include "btforge/plugin/Plugin.h"

#include <memory>
#include <string>

namespace btforge::dwarf {

class BTFORGE_API DwarfLoader : public plugin::Loader {
public:
    // Bids `confidence` for ELF files with DWARF, 0 for anything else.
    unsigned probe(const plugin::InputProbe& input) const override;
    Expected<ir::TypeGraph> load(const plugin::LoadRequest& request,
                                 plugin::Session& session) override;

protected:
    explicit DwarfLoader(unsigned confidence) : confidence_(confidence) {}
    // Reads `file` (opened by the host) and no other path but `altFile` (option dwarf-alt,
    // LoaderOptions.h; empty: not given) or the file a checked .gnu_debugaltlink leads to
    // (docs/security.md).
    virtual Expected<std::unique_ptr<UnitReader>>
    openReader(const std::shared_ptr<MappedFile>& file, const std::string& altFile) = 0;

private:
    unsigned confidence_;
};

} // namespace btforge::dwarf
