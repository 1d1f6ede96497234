// The file a .gnu_debugaltlink names (dwz -m moves what several files share into it), found
// where docs/security.md says and checked before its DWARF is read: a regular file, not in
// /proc or /sys, an ELF file whose build-id is the one the link names. libdw's own search,
// which opens whatever path the input names, is never used: the alt file is set before libdw
// would look for one.
#pragma once

#include "btforge/support/Error.h"

#include <elfutils/libdw.h>

#include <memory>
#include <string>

namespace btforge::dwarf {

class AltFile {
public:
    // The alt file of `main`, the DWARF of `inputPath`: `explicitPath` when given (--dwarf-alt),
    // else the link's name as written if absolute, relative to the input's directory if not;
    // for an input under ROOT/usr/lib/debug/, the absolute name and the build-id path below
    // under ROOT; then /usr/lib/debug/.build-id/NN/REST.debug. Null when the input has no link.
    static Expected<std::unique_ptr<AltFile>> attach(Dwarf* main, const std::string& inputPath,
                                                     const std::string& explicitPath);
    ~AltFile();
    AltFile(const AltFile&) = delete;
    AltFile& operator=(const AltFile&) = delete;

private:
    AltFile() = default;

    int fd_ = -1;
    int watch_ = -1;
    Elf* elf_ = nullptr;
    Dwarf* dwarf_ = nullptr;
};

} // namespace btforge::dwarf
