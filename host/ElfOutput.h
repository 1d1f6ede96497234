// What --elf and --in-place write: the input ELF file with .BTF (and .BTF.base over a distilled
// base) added or replaced (ElfOutput.cpp).
#pragma once

#include "Conversion.h"
#include "support/OutputFile.h"

#include <string>
#include <vector>

namespace btforge::host {

// A section --elf / --in-place writes.
struct SectionContents {
    std::string name;
    std::string bytes;
};

// Whether split BTF goes over a distilled base (feature distilled_base, into ELF output only;
// otherwise a warning says why not).
bool distillsBase(const ir::TypeGraph& graph, const ConversionRequest& request,
                  plugin::Session& session);
// The sections: .BTF as `emitter` writes `graph`; with a distilled base, .BTF over it and
// .BTF.base.
Expected<std::vector<SectionContents>>
elfSections(const ir::TypeGraph& graph, bool distill, plugin::Emitter& emitter,
            const plugin::EmitRequest& emit, const std::string& input, plugin::Session& session);
// A copy of `input` with `sections` added or replaced, every other section as it was, with the
// input's permissions, committed to `output`.
Expected<void> writeIntoElf(const MappedFile& input, const std::vector<SectionContents>& sections,
                            OutputFile& output);

} // namespace btforge::host
