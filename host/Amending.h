// The amendments a conversion applies to whatever its loader made (Amending.cpp).
#pragma once

#include "Conversion.h"

namespace btforge::host {

// Features that are off and --keep/--drop, and global_var's variables for a loader that makes
// none itself, applied to `graph`, which `loader` read from `input`.
Expected<ir::TypeGraph> amendGraph(ir::TypeGraph graph, const ConversionRequest& request,
                                   const std::shared_ptr<MappedFile>& input,
                                   const plugin::PluginDescriptor& loader,
                                   plugin::Session& session);

} // namespace btforge::host
