// No output may name an input: `-o INPUT`, `--report-skipped BASE`, a link to the input, the
// same file twice. Compared by device and inode, through links, before anything is written.
#pragma once

#include "Conversion.h"

namespace btforge::host {

// A usage error naming both paths when an output is an input (other than INPUT itself with
// --in-place) or another output.
Expected<void> refuseOutputsOverInputs(const ConversionRequest& request,
                                       const plugin::Options& options);

} // namespace btforge::host
