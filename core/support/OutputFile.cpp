#include "support/OutputFile.h"

#include "support/DescriptorBuffer.h"

#include "btforge/support/FileGuard.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace btforge {
namespace {

Error systemError(const std::string& path, const char* what, int error = errno) {
    return Error::io(path + ": " + what + ": " + std::strerror(error));
}

// The descriptors open when the process started (recordInheritedDescriptors), sorted.
std::vector<int> inheritedDescriptors{0, 1, 2};

// `dir` joined with `name`; "" is the current directory.
std::string joined(const std::string& dir, const std::string& name) {
    return dir.empty() ? name : dir.ends_with('/') ? dir + name : dir + "/" + name;
}

// In a sticky world-writable directory (/tmp), a link is followed only if it belongs to the
// caller or to the directory's owner: the kernel's rule (fs.protected_symlinks) for a shell's
// `>`, which btforge applies itself since it follows links itself. Otherwise another user's link
// in /tmp could make a run as root replace any file.
std::optional<Error> refusedLink(const std::string& requested, const std::string& link,
                                 const std::string& dir, const struct stat& linkStat) {
    struct stat dirStat {};
    if (::stat(dir.empty() ? "." : dir.c_str(), &dirStat) != 0)
        return systemError(requested, "cannot follow the link");
    if (!(dirStat.st_mode & S_ISVTX) || !(dirStat.st_mode & S_IWOTH) ||
        linkStat.st_uid == ::geteuid() || linkStat.st_uid == dirStat.st_uid)
        return std::nullopt;
    return Error::io(requested + ": the symbolic link " + (link == requested ? "" : link + " ") +
                     "belongs to uid " + std::to_string(linkStat.st_uid) +
                     ", in the sticky world-writable directory " + (dir.empty() ? "." : dir) +
                     " of uid " + std::to_string(dirStat.st_uid) +
                     ": not followed (only the caller's and the directory owner's links are "
                     "followed there, as the kernel's fs.protected_symlinks does)");
}

// The path `requested` leads to, every symbolic link on the way (a directory's too, up to 40)
// checked against the directory it is in (refusedLink) and followed, so that the result holds
// no link; it need not exist (a new file, or a dangling link's target). The kernel's links
// inside /proc (/proc/PID/fd/N, where /dev/stdout and /dev/fd/N lead) are not followed: they
// name descriptors, not paths to write beside.
Expected<std::string> followLinks(const std::string& requested) {
    std::vector<std::string> pending; // the names still to walk, the next one last
    auto push = [&pending](const std::string& path) {
        std::vector<std::string> names;
        for (size_t begin = 0; begin < path.size();) {
            size_t end = std::min(path.find('/', begin), path.size());
            if (end > begin && path.compare(begin, end - begin, ".") != 0)
                names.push_back(path.substr(begin, end - begin));
            begin = end + 1;
        }
        pending.insert(pending.end(), names.rbegin(), names.rend());
    };
    std::string done = requested.starts_with('/') ? "/" : ""; // walked, and holds no link
    push(requested);
    for (int links = 0; !pending.empty();) {
        std::string name = std::move(pending.back());
        pending.pop_back();
        if (name == "..") {
            // `done` holds no link, so its parent is `done` less its last name.
            auto slash = done.rfind('/');
            if (done.empty() || done == ".." || done.ends_with("/.."))
                done = joined(done, "..");
            else if (slash == std::string::npos)
                done.clear();
            else
                done.resize(slash == 0 ? 1 : slash);
            continue;
        }
        std::string path = joined(done, name);
        struct stat st {};
        if (::lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode) || done.starts_with("/proc/")) {
            done = std::move(path);
            continue;
        }
        if (auto refused = refusedLink(requested, path, done, st))
            return std::move(*refused);
        if (++links > 40)
            return systemError(requested, "cannot follow the links", ELOOP);
        std::array<char, PATH_MAX> target{};
        ssize_t n = ::readlink(path.c_str(), target.data(), target.size() - 1);
        if (n <= 0)
            return systemError(path, "cannot read the link", n == 0 ? ENOENT : errno);
        std::string next(target.data(), static_cast<size_t>(n));
        if (next.starts_with('/'))
            done.assign(1, '/'); // (assigning "/" trips a false -Wrestrict in GCC 12)
        push(next);
    }
    return done.empty() ? std::string(".") : done;
}

// N for /proc/PID/fd/N or /proc/PID/task/TID/fd/N, PID this process's, else -1.
int ownDescriptor(std::string_view path) {
    auto skip = [&path](std::string_view prefix) {
        bool found = path.starts_with(prefix);
        if (found)
            path.remove_prefix(prefix.size());
        return found;
    };
    auto number = [&path]() {
        size_t digits = 0;
        while (digits < path.size() && path[digits] >= '0' && path[digits] <= '9')
            ++digits;
        long value =
            digits == 0 || digits > 9 ? -1 : std::stol(std::string(path.substr(0, digits)));
        path.remove_prefix(digits);
        return value;
    };
    if (!skip("/proc/" + std::to_string(::getpid()) + "/") ||
        (skip("task/") && (number() < 0 || !skip("/"))) || !skip("fd/"))
        return -1;
    long fd = number();
    return path.empty() && fd >= 0 ? static_cast<int>(fd) : -1;
}

// What a file that is not regular is, for messages.
std::string kindOf(const std::string& path, const struct stat& st) {
    if (path.starts_with("/proc/"))
        return path;
    if (S_ISDIR(st.st_mode))
        return "a directory";
    if (S_ISFIFO(st.st_mode))
        return "a FIFO";
    if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
        return "a device";
    if (S_ISSOCK(st.st_mode))
        return "a socket";
    return "not a regular file";
}

// The temporary file's name: in the target's directory (one filesystem for the rename), hidden,
// and within NAME_MAX whatever the target's name.
std::string temporaryPattern(const std::string& target) {
    auto slash = target.rfind('/');
    std::string dir = slash == std::string::npos ? "" : target.substr(0, slash + 1);
    std::string name = slash == std::string::npos ? target : target.substr(slash + 1);
    return dir + "." + name.substr(0, 200) + ".tmp.XXXXXX";
}

} // namespace

struct OutputFile::State {
    std::string name;                    // as given, for messages
    std::string path;                    // the target, links followed
    std::string temporary;               // empty: written directly
    std::optional<struct stat> replaced; // the regular file the rename replaces
    DescriptorBuffer buffer;
    std::ostream stream{&buffer};
    int watch = -1;
    bool committed = false;
    // Synced before the rename: an input replaced in place, which a crash must not leave empty.
    // A new output is not, as compilers and linkers leave theirs: a build writes one per module,
    // and waiting on the disk for each was most of a small module's write.
    bool durable = false;

    State(std::string n, std::string p, std::string t, std::optional<struct stat> r, int fd)
        : name(std::move(n)), path(std::move(p)), temporary(std::move(t)), replaced(r), buffer(fd) {
    }
    ~State() {
        buffer.close();
        if (!temporary.empty() && !committed)
            ::unlink(temporary.c_str());
        unwatchTemporary(watch);
    }
};

void OutputFile::recordInheritedDescriptors() {
    std::vector<int> open;
    if (DIR* dir = ::opendir("/proc/self/fd")) {
        while (const dirent* entry = ::readdir(dir)) {
            char* end = nullptr;
            long fd = std::strtol(entry->d_name, &end, 10);
            if (end != entry->d_name && *end == '\0' && fd != ::dirfd(dir) && fd <= INT_MAX)
                open.push_back(static_cast<int>(fd));
        }
        ::closedir(dir);
    } else { // no /proc: then no /proc/self/fd/N to name either
        for (int fd = 0; fd <= 2; ++fd) {
            if (::fcntl(fd, F_GETFD) >= 0)
                open.push_back(fd);
        }
    }
    std::sort(open.begin(), open.end());
    inheritedDescriptors = std::move(open);
}

Expected<OutputFile> OutputFile::create(const std::string& requested, Target target) {
    auto followed = followLinks(requested);
    if (!followed)
        return std::move(followed).error();
    const std::string& path = *followed;
    // A descriptor of btforge's own (a piped input's copy in memory) is no output.
    const int own = ownDescriptor(path);
    if (own >= 0 &&
        !std::binary_search(inheritedDescriptors.begin(), inheritedDescriptors.end(), own))
        return Error::usage(requested + ": descriptor " + std::to_string(own) +
                            " was not open when btforge started: only a descriptor it was given "
                            "can be an output");
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        if (errno != ENOENT || target == Target::RegularFile)
            return systemError(requested,
                               target == Target::RegularFile ? "cannot open" : "cannot write");
    } else if (target == Target::RegularFile &&
               (!S_ISREG(st.st_mode) || path.starts_with("/proc/"))) {
        return Error::usage(requested + ": not a regular file (" + kindOf(path, st) +
                            "): only a regular file is replaced in place");
    } else if (S_ISDIR(st.st_mode)) {
        return Error::usage(requested + ": is a directory");
    } else if (!S_ISREG(st.st_mode) || path.starts_with("/proc/")) {
        // A device, FIFO or socket, or a descriptor through /proc: written as it is (this
        // process's own descriptor when it names one, so that `-o /dev/stdout >> log` appends).
        int fd = own >= 0 ? ::fcntl(own, F_DUPFD_CLOEXEC, 3)
                          : ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
            return systemError(requested, "cannot write");
        return OutputFile(std::make_unique<State>(requested, path, "", std::nullopt, fd));
    } else {
        // The caller must be allowed to write the file it replaces (root may, as for cp), and
        // the replacement keeps its owner: only root can give a file to another user.
        if (::access(path.c_str(), W_OK) != 0)
            return systemError(requested, "cannot write");
        if (st.st_uid != ::geteuid() && ::geteuid() != 0)
            return Error::io(requested + ": belongs to another user; btforge replaces a file "
                                         "by renaming a new one over it, which would change its "
                                         "owner");
    }
    std::string temporary = temporaryPattern(path);
    installFileGuard();         // before the file exists: a signal from then on removes it
    TemporaryCreation creation; // a signal before the file is watched waits until it is
    int fd = ::mkstemp(temporary.data());
    if (fd < 0)
        return systemError(requested, "cannot create output");
    ::fcntl(fd, F_SETFD, FD_CLOEXEC);
    std::optional<struct stat> replaced;
    if (S_ISREG(st.st_mode) && st.st_nlink > 0)
        replaced = st;
    auto state = std::make_unique<State>(requested, path, temporary, replaced, fd);
    state->durable = target == Target::RegularFile;
    state->watch = watchTemporary(temporary);
    return OutputFile(std::move(state));
}

OutputFile::OutputFile(std::unique_ptr<State> state) : state_(std::move(state)) {}
OutputFile::OutputFile(OutputFile&&) noexcept = default;
OutputFile::~OutputFile() = default;

std::ostream& OutputFile::stream() {
    return state_->stream;
}

Expected<void> OutputFile::commit(std::optional<unsigned> requestedMode) {
    State& s = *state_;
    s.stream.flush();
    // The reason of the write that failed, not whatever errno holds by now.
    auto writeError = [&s] {
        return systemError(s.name, "cannot write output",
                           s.buffer.error() ? s.buffer.error() : EIO);
    };
    if (s.temporary.empty()) {
        if (!s.buffer.close() || !s.stream)
            return writeError();
        s.committed = true;
        return {};
    }
    int fd = s.buffer.fd();
    if (!s.stream || s.buffer.failed())
        return writeError();
    if (s.durable && ::fsync(fd) != 0)
        return systemError(s.name, "cannot write output");
    mode_t mode;
    if (requestedMode)
        mode = *requestedMode;
    else if (s.replaced)
        mode = s.replaced->st_mode & 07777;
    else {
        mode_t mask = ::umask(0);
        ::umask(mask);
        mode = 0666 & ~mask;
    }
    // The owner first: changing it clears set-id bits that the mode then restores. A group the
    // caller is not in cannot be kept; the owner was checked when the file was opened.
    if (s.replaced && (s.replaced->st_uid != ::geteuid() || s.replaced->st_gid != ::getegid()) &&
        ::fchown(fd, s.replaced->st_uid, s.replaced->st_gid) != 0 &&
        s.replaced->st_uid != ::geteuid())
        return systemError(s.name, "cannot keep the owner of the file it replaces");
    if (::fchmod(fd, mode) != 0)
        return systemError(s.name, "cannot set the output's permissions");
    if (!s.buffer.close())
        return writeError();
    if (::rename(s.temporary.c_str(), s.path.c_str()) != 0)
        return systemError(s.name, "cannot rename output into place");
    s.committed = true;
    return {};
}

} // namespace btforge
