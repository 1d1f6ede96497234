// Standard output's write errors, with their reason ("No space left on device"): std::cout
// writes through a buffer that keeps the first failed write's errno, which neither std::ostream
// nor stdio tells once the write is past.
#pragma once

#include "btforge/support/Error.h"

namespace btforge::host {

// Called at the start of main, before anything is written to std::cout.
void keepStandardOutputErrors();

// Flushes std::cout and stdio's stdout: a write that failed, then or before, is
// "standard output: write failed: REASON".
Expected<void> flushStandardOutput();

} // namespace btforge::host
