// A store of prepared bases (ir/BaseImage.h): the processes of a kernel build's module step each
// read the same vmlinux as their base (-B); with a cache, the first writes the base's image and
// the others map it. Which directory a run uses is BaseCacheChoice.h's. docs/security.md lists
// the rules, which this enforces:
//  - the directory is the user's own (owner: the effective user) and writable by nobody else;
//  - an image is read only when it is a regular file (not a link) of the user's, writable by
//    nobody else, and tagged with this base file (device, inode, size, modification and change
//    times) and this build of btforge (the same of its core library and BTF loader, and the
//    loader's options): a base or btforge changed since finds no image;
//  - an image is written under a new hidden name (created exclusively, mode 0600) and renamed
//    into place, so a reader never sees half of one; the newest kKeptImages are kept;
//  - one process at a time writes (a lock on the directory), and not an image another has
//    written since this one looked: a build's first modules, started together, all miss it.
#pragma once

#include "PluginRegistry.h"

#include "btforge/ir/TypeGraph.h"
#include "btforge/support/Error.h"
#include "btforge/support/MappedFile.h"

#include <memory>
#include <optional>
#include <string>

namespace btforge::host {

class BaseCache {
public:
    static constexpr size_t kKeptImages = 4;
    // Whether failing to write an image is worth a warning: yes for a cache the user named, no
    // for the default one.
    enum class Failures { Reported, Silent };

    // The cache in `dir`, or why it cannot be used (an Io error naming the directory).
    static Expected<BaseCache> open(const std::string& dir, Failures failures);
    BaseCache(BaseCache&& other) noexcept;
    BaseCache& operator=(BaseCache&&) = delete;
    BaseCache(const BaseCache&) = delete;
    ~BaseCache();

    // What an image of `file` as `loader` reads it is found by; none for a base that could
    // never be found again (a pipe's, sysfs's).
    static std::optional<std::string> keyOf(const MappedFile& file, const LoadedPlugin& loader);
    // The base prepared under `key`, or null when there is none.
    std::shared_ptr<const ir::TypeGraph> find(const std::string& key) const;
    // What store() did.
    struct Stored {
        bool written = false; // this run wrote the image
        // The image another process wrote since find(): the base to use instead of store()'s.
        std::shared_ptr<const ir::TypeGraph> prepared;
    };
    // Writes `base`'s image under `key`, unless another process is writing one (nothing done) or
    // has written a usable one since find() (returned); or an error saying why it could not.
    Expected<Stored> store(const std::string& key,
                           const std::shared_ptr<const ir::TypeGraph>& base) const;
    bool reportsFailures() const { return failures_ == Failures::Reported; }

private:
    BaseCache(std::string path, int dir, Failures failures)
        : path_(std::move(path)), dir_(dir), failures_(failures) {}
    Expected<void> write(const std::string& key,
                         const std::shared_ptr<const ir::TypeGraph>& base) const;
    void dropOldest() const;

    std::string path_;
    int dir_ = -1;
    Failures failures_ = Failures::Reported;
};

} // namespace btforge::host
