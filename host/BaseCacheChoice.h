// Which base cache (BaseCache.h) a conversion uses.
//  - Asked for: --base-cache DIR, else $BTFORGE_BASE_CACHE=DIR. A directory that cannot be used
//    is reported with one warning and the run goes on without a cache.
//  - None: --no-base-cache, or BTFORGE_BASE_CACHE=off.
//  - Otherwise the user's own, where build tools keep theirs: $XDG_CACHE_HOME/btforge, else
//    ~/.cache/btforge, made (mode 0700) when missing, $XDG_CACHE_HOME too. Best effort and
//    silent: none where it cannot be (no home, a home that is not the effective user's, such as
//    root's run with a user's HOME, or a file system that is read-only).
#pragma once

#include "BaseCache.h"
#include "Cli.h"

#include "btforge/plugin/Session.h"

#include <memory>

namespace btforge::host {

std::shared_ptr<const BaseCache> chooseBaseCache(const GlobalOptions& options,
                                                 plugin::Diagnostics& diagnostics);

} // namespace btforge::host
