// No output may name an input: `-o INPUT`, `--report-skipped BASE`, a link to the input, the
// same file twice; the alt file a DWARF loader is given (--dwarf-alt) is an input too. Compared by
// device and inode, through links, before anything is written.
#pragma once

#include "Conversion.h"

#include <string>
#include <vector>

namespace btforge::host {

// Whether two paths lead to one file (device and inode through links; for a file yet to be made,
// its directory and name).
bool sameFile(const std::string& a, const std::string& b);

// A usage error naming both paths when an output is an input (other than INPUT itself with
// --in-place) or another output.
Expected<void> refuseOutputsOverInputs(const ConversionRequest& request,
                                       const PluginRegistry& registry);

// A batch's (BatchConversion.h), outputs[i] being inputs[i]'s: a usage error naming both paths
// when two inputs are one file (--in-place would write it twice: `outputs` are then the inputs),
// or when an output is an input or another output. Each path is looked up once.
Expected<void> refuseBatchOverlaps(const std::vector<std::string>& inputs,
                                   const std::vector<std::string>& outputs, bool inPlace);

} // namespace btforge::host
