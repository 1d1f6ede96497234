#include "StandardOutput.h"

#include "support/DescriptorBuffer.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <unistd.h>

namespace btforge::host {
namespace {

// Never destroyed: std::cout is flushed at exit, after static objects are gone.
DescriptorBuffer* standardOutput = nullptr;

} // namespace

void keepStandardOutputErrors() {
    if (!standardOutput) {
        standardOutput = new DescriptorBuffer(STDOUT_FILENO, false);
        std::cout.rdbuf(standardOutput);
    }
}

Expected<void> flushStandardOutput() {
    std::cout.flush();
    errno = 0;
    const bool stdioFailed = std::fflush(stdout) != 0;
    int error = standardOutput ? standardOutput->error() : 0;
    if (!error && stdioFailed)
        error = errno;
    if (!error && std::cout && !std::ferror(stdout))
        return {};
    return Error::io(std::string("standard output: write failed") +
                     (error ? std::string(": ") + std::strerror(error) : ""));
}

} // namespace btforge::host
