// What --elf and --in-place write: the input ELF file with .BTF (and .BTF.base over a distilled
// base) added or replaced.
#include "ElfOutput.h"

#include "elf/ElfSectionWriter.h"

#include "btforge/Features.h"
#include "btforge/btf/DistilledBase.h"

#include <cerrno>
#include <cstring>
#include <sstream>
#include <sys/stat.h>

namespace btforge::host {

// --elf / --in-place: a copy of the input ELF file with `sections` added or replaced, every other
// section as it was, with the input's permissions.
Expected<void> writeIntoElf(const MappedFile& input, const std::vector<SectionContents>& sections,
                            OutputFile& output) {
    struct stat st {};
    if (::fstat(input.descriptor(), &st) != 0)
        return Error::io(input.path() + ": cannot stat: " + std::strerror(errno));
    // One section at a time, each over the copy the previous one made.
    std::string image;
    std::span<const std::byte> current = input.bytes();
    for (size_t i = 0; i < sections.size(); ++i) {
        const bool last = i + 1 == sections.size();
        std::ostringstream step;
        if (auto written = elf::writeWithSection(current, input.path(), sections[i].name,
                                                 std::as_bytes(std::span(sections[i].bytes)),
                                                 last ? output.stream() : step);
            !written)
            return written;
        if (!last) {
            image = std::move(step).str();
            current = std::as_bytes(std::span(image));
        }
    }
    // A stream's bytes are in a memfd, whose permissions say nothing: the umask's default then.
    return output.commit(S_ISREG(st.st_mode) && st.st_nlink > 0
                             ? std::optional<unsigned>(st.st_mode & 07777)
                             : std::nullopt);
}

namespace {

bool distilledBaseRequested(const plugin::Session& session) {
    auto features = FeatureSet::parse(session.options.features);
    return features && features->has(Feature::DistilledBase);
}

} // namespace

// distilled_base as pahole -J does it: split BTF written into an ELF file goes over its distilled
// base, which goes to .BTF.base. Raw output stays split over the whole base, as pahole's
// --btf_encode_detached writes it.
bool distillsBase(const ir::TypeGraph& graph, const ConversionRequest& request,
                  plugin::Session& session) {
    if (!distilledBaseRequested(session))
        return false;
    if (!graph.base()) {
        session.diagnostics.warning("feature 'distilled_base' is for split BTF (a module over "
                                    "its base, -B): ignored");
        return false;
    }
    if (!request.intoElf) {
        session.diagnostics.warning(
            "feature 'distilled_base' writes .BTF.base into ELF output only (--elf, --in-place): "
            "raw BTF is written split over the whole base, as pahole writes it");
        return false;
    }
    return true;
}

// What --elf / --in-place write: .BTF; with a distilled base, .BTF over it and .BTF.base.
Expected<std::vector<SectionContents>>
elfSections(const ir::TypeGraph& graph, bool distill, plugin::Emitter& emitter,
            const plugin::EmitRequest& emit, const std::string& input, plugin::Session& session) {
    auto emitted = [&](const ir::TypeGraph& g) -> Expected<std::string> {
        std::ostringstream out;
        if (auto written = emitter.emit(g, emit, out, session); !written)
            return std::move(written).error();
        return std::move(out).str();
    };
    std::vector<SectionContents> sections;
    if (!distill) {
        auto btf = emitted(graph);
        if (!btf)
            return std::move(btf).error();
        sections.push_back({".BTF", std::move(*btf)});
        return sections;
    }
    auto distilled = btf::distillBase(graph, input);
    if (!distilled)
        return std::move(distilled).error();
    auto btf = emitted(distilled->split);
    if (!btf)
        return std::move(btf).error();
    auto base = emitted(*distilled->base);
    if (!base)
        return std::move(base).error();
    sections.push_back({".BTF", std::move(*btf)});
    sections.push_back({".BTF.base", std::move(*base)});
    return sections;
}

} // namespace btforge::host
