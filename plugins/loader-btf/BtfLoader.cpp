// Loader "btf": raw BTF files, the .BTF section of ELF files (over the file's .BTF.base when it has
// one, relocated onto the base when one is given), /sys/kernel/btf/*, split BTF.
#include "btforge/btf/BtfReader.h"
#include "btforge/btf/DistilledBase.h"
#include "btforge/elf/ElfSections.h"
#include "btforge/plugin/Plugin.h"
#include "btforge/support/MappedFile.h"

namespace btforge {
namespace {

class BtfLoader final : public plugin::Loader {
public:
    unsigned probe(const plugin::InputProbe& input) const override {
        if (btf::looksLikeBtf(input.bytes))
            return 100;
        // Any ELF may carry .BTF; loaders that read its DWARF bid higher when it has some.
        return elf::looksLikeElf(input.bytes) ? 10 : 0;
    }

    Expected<ir::TypeGraph> load(const plugin::LoadRequest& request,
                                 plugin::Session& session) override {
        const MappedFile* file = request.file.get();
        // The address-carrying FUNC extension is read too: the standard btf emitter refuses it
        // by name, every other emitter shows the addresses.
        btf::ReadOptions options{request.path, request.base, true,
                                 [&](const std::string& m) { session.diagnostics.warning(m); },
                                 request.file};
        if (!elf::looksLikeElf(file->bytes()))
            return btf::readBtf(file->bytes(), options);

        // Views into the input, which outlives the reading: a vmlinux's .BTF is not copied for
        // every module over it.
        auto section = elf::sectionView(file->bytes(), request.path, ".BTF");
        if (!section)
            return std::move(section).error();
        if (!*section)
            return Error::badInput(request.path + ": ELF file has no .BTF section");
        options.sourceName = request.path + ": .BTF";
        auto distilled = elf::sectionView(file->bytes(), request.path, ".BTF.base");
        if (!distilled)
            return std::move(distilled).error();
        if (!*distilled)
            return btf::readBtf(**section, options);
        // A module's .BTF is split over its distilled base; over another base (-B) it is
        // relocated onto that one, as libbpf and the kernel do.
        auto base = btf::readBtf(**distilled, {request.path + ": .BTF.base", nullptr,
                                               options.funcAddresses, options.warning});
        if (!base)
            return std::move(base).error();
        auto target = std::move(options.base);
        options.base = std::make_shared<const ir::TypeGraph>(std::move(*base));
        auto split = btf::readBtf(**section, options);
        if (!split || !target)
            return split;
        return btf::relocateSplit(*split, std::move(target), request.path);
    }
};

} // namespace
} // namespace btforge

BTFORGE_LOADER_PLUGIN("btf", "BTF: raw files, the .BTF section of ELF files, split BTF over a base",
                      btforge::BtfLoader, .capabilities = btforge::plugin::Capability::ReadsBtf);
