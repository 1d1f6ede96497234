#include "BaseCacheChoice.h"

#include <cerrno>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <sys/stat.h>
#include <unistd.h>

namespace btforge::host {
namespace {

constexpr std::string_view kOff = "off";

bool ownDirectory(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == ::geteuid();
}

// Makes `path` (mode 0700) unless it exists; whether it is there now.
bool made(const std::string& path) {
    return ::mkdir(path.c_str(), 0700) == 0 || errno == EEXIST;
}

// Makes the missing directories of an absolute `path` (each mode 0700), as the XDG base
// directory specification asks of a $XDG_CACHE_HOME that does not exist yet.
bool madeWithParents(const std::string& path) {
    for (size_t slash = path.find('/', 1); slash != std::string::npos;
         slash = path.find('/', slash + 1)) {
        if (!made(path.substr(0, slash)))
            return false;
    }
    return made(path);
}

// The user's cache directory, made when missing, or none. Only in a directory of the
// effective user's: root run with another user's HOME must not leave that user files of root's.
std::optional<std::string> userCacheDirectory() {
    std::string home; // the directory holding btforge's
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg == '/') {
        home = xdg;
        if (!madeWithParents(home) || !ownDirectory(home))
            return std::nullopt;
    } else if (const char* user = std::getenv("HOME"); user && *user == '/') {
        if (!ownDirectory(user))
            return std::nullopt;
        home = std::string(user) + "/.cache";
        if (!made(home))
            return std::nullopt;
    } else {
        return std::nullopt;
    }
    std::string dir = home + "/btforge";
    if (!made(dir))
        return std::nullopt;
    return dir;
}

} // namespace

std::shared_ptr<const BaseCache> chooseBaseCache(const GlobalOptions& options,
                                                 plugin::Diagnostics& diagnostics) {
    if (options.noBaseCache)
        return nullptr;
    std::optional<std::string> asked = options.baseCache;
    if (const char* env = std::getenv("BTFORGE_BASE_CACHE"); !asked && env && *env) {
        if (env == kOff)
            return nullptr;
        asked = env;
    }
    if (asked) {
        auto cache = BaseCache::open(*asked, BaseCache::Failures::Reported);
        if (!cache) { // a cache that cannot be used slows the run, it does not stop it
            diagnostics.warning(cache.error().message());
            return nullptr;
        }
        return std::make_shared<const BaseCache>(std::move(*cache));
    }
    const std::optional<std::string> dir = userCacheDirectory();
    if (!dir)
        return nullptr;
    auto cache = BaseCache::open(*dir, BaseCache::Failures::Silent);
    return cache ? std::make_shared<const BaseCache>(std::move(*cache)) : nullptr;
}

} // namespace btforge::host
