// What libbtforge-core and plugins make visible to other modules. Everything else is built with
// -fvisibility=hidden: BTFORGE_API marks the core's interface (the SDK and what the btforge host
// uses), BTFORGE_PLUGIN_EXPORT the one symbol a plugin exports (its descriptor).
#pragma once

#if defined(__GNUC__) || defined(__clang__)
#define BTFORGE_API __attribute__((visibility("default")))
#else
#define BTFORGE_API
#endif

#define BTFORGE_PLUGIN_EXPORT extern "C" BTFORGE_API
