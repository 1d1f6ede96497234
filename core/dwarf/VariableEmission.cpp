#include "VariableEmission.h"

#include <algorithm>
#include <tuple>

namespace btforge::dwarf {

using ir::TypeId;

void emitVariables(ir::TypeGraph& graph, const UnitObservations& obs,
                   const elf::ElfSymbolTable& elf, const UnitReader& reader,
                   const FeatureSet& features, DwarfConversionReport& report) {
    struct Placed {
        uint32_t section;
        uint64_t offset;
        uint64_t size;
        const VariableObservation* var;
    };
    std::vector<Placed> placed;
    for (const VariableObservation& v : obs.variables) {
        if (!v.hasAddress || elf::isCompilerGeneratedObject(v.name) || v.type == ir::kVoidType)
            continue;
        auto where = reader.locate(v.address);
        const elf::ElfSection* section = where ? elf.section(where->section) : nullptr;
        if (!section)
            continue;
        bool percpu = section->name == ".data..percpu";
        if (!(percpu ? features.has(Feature::Var) : features.has(Feature::GlobalVar)))
            continue;
        // Offset 0 is also where section-start markers sit: only a symbol of that very name
        // there proves the variable is real.
        if (where->offset == 0) {
            auto objects = elf.objectsIn(where->section);
            if (std::none_of(objects.begin(), objects.end(),
                             [&](const elf::ElfObject& o) { return o.name == v.name; }))
                continue;
        }
        auto size = ir::sizeOf(graph, v.type);
        if (!size || *size == 0 || *size > UINT32_MAX || where->offset > UINT32_MAX)
            continue;
        placed.push_back({where->section, where->offset, *size, &v});
    }
    std::sort(placed.begin(), placed.end(), [](const Placed& a, const Placed& b) {
        return std::tie(a.section, a.offset, a.var->unit, a.var->die) <
               std::tie(b.section, b.offset, b.var->unit, b.var->die);
    });

    std::vector<ir::VarSecInfo> entries;
    for (size_t begin = 0; begin < placed.size();) {
        size_t end = begin;
        entries.clear();
        for (; end < placed.size() && placed[end].section == placed[begin].section; ++end) {
            const Placed& p = placed[end];
            TypeId var = graph.add(ir::VarType{graph.intern(p.var->name), p.var->type,
                                               p.var->external ? ir::VarLinkage::GlobalAllocated
                                                               : ir::VarLinkage::Static});
            entries.push_back(
                {var, static_cast<uint32_t>(p.offset), static_cast<uint32_t>(p.size)});
            ++report.variables;
        }
        // The section's size would include what BTF does not describe: end at the last variable.
        const ir::VarSecInfo& last = entries.back();
        const elf::ElfSection* section = elf.section(placed[begin].section);
        graph.add(ir::DatasecType{graph.intern(section->name), last.offset + last.size, entries});
        begin = end;
    }
}

} // namespace btforge::dwarf
