// Loader "btf": raw BTF files, the .BTF section of ELF files, /sys/kernel/btf/*, split BTF.
#include "btforge/btf/BtfReader.h"
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
                                 [&](const std::string& m) { session.diagnostics.warning(m); }};
        if (!elf::looksLikeElf(file->bytes()))
            return btf::readBtf(file->bytes(), options);

        auto section = elf::readSection(file->bytes(), request.path, ".BTF");
        if (!section)
            return std::move(section).error();
        if (!*section)
            return Error::badInput(request.path + ": ELF file has no .BTF section");
        options.sourceName = request.path + ": .BTF";
        return btf::readBtf(**section, options);
    }
};

} // namespace
} // namespace btforge

BTFORGE_LOADER_PLUGIN("btf", "BTF: raw files, the .BTF section of ELF files, split BTF over a base",
                      btforge::BtfLoader, .capabilities = btforge::plugin::Capability::ReadsBtf);
