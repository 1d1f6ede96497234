// A plugin built against a future ABI: the host must refuse it by name and keep working.
#include "btforge/plugin/Plugin.h"

BTFORGE_PLUGIN_EXPORT const btforge::plugin::PluginDescriptor btforge_plugin_descriptor{
    btforge::plugin::kAbiVersion + 1,
    btforge::plugin::PluginKind::Emitter,
    "from-the-future",
    "an emitter built for another plugin ABI",
    nullptr,
    nullptr};
