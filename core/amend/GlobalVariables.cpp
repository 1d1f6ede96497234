#include "amend/GlobalVariables.h"

#include "support/Identifier.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_set>
#include <vector>

namespace btforge::amend {
namespace {

using ir::Kind;
using ir::TypeId;

// The first INT (base included) of one of these names, in order of preference, of `size` bytes
// and unsigned; kVoidType when there is none.
TypeId findUnsignedInt(const ir::TypeGraph& graph, std::initializer_list<std::string_view> names,
                       uint32_t size) {
    for (std::string_view wanted : names) {
        for (TypeId id = 1; id < graph.endId(); ++id) {
            if (graph.kind(id) != Kind::Int || graph.name(id) != wanted)
                continue;
            auto t = graph.getAs<ir::IntType>(id);
            if (t.size == size && t.bits == size * 8 && t.bitOffset == 0 &&
                !(t.encoding & ir::int_encoding::kSigned))
                return id;
        }
    }
    return ir::kVoidType;
}

struct Candidate {
    uint32_t section;
    uint32_t offset;
    uint32_t size;
    std::string_view name;
    bool global;
};

struct Range {
    uint64_t begin, end;
};

// An own DATASEC as it is before the graph grows.
struct ExistingDatasec {
    TypeId id = ir::kVoidType;
    uint32_t size = 0;
    std::vector<ir::VarSecInfo> entries;
};

} // namespace

uint32_t addGlobalVariables(ir::TypeGraph& graph, const elf::ElfSymbolTable& symbols) {
    // Everything read from the graph is copied before it grows.
    std::unordered_set<std::string> varNames;
    std::map<std::string, ExistingDatasec, std::less<>> datasecs;
    for (TypeId id = graph.firstId(); id < graph.endId(); ++id) {
        if (graph.kind(id) == Kind::Var) {
            varNames.emplace(graph.name(id));
        } else if (graph.kind(id) == Kind::Datasec && !datasecs.contains(graph.name(id))) {
            auto d = graph.getAs<ir::DatasecType>(id);
            datasecs.emplace(graph.name(id),
                             ExistingDatasec{id, d.size, {d.entries.begin(), d.entries.end()}});
        }
    }

    std::vector<Candidate> candidates;
    for (const elf::ElfSection& section : symbols.sections()) {
        if (!section.allocated)
            continue;
        for (const elf::ElfObject& o : symbols.objectsIn(section.index)) {
            // VAR names pass the kernel's identifier check (GCC's static locals, `count.0`,
            // do not).
            if (o.size == 0 || elf::isCompilerGeneratedObject(o.name) ||
                !support::isIdentifier(o.name) || varNames.contains(std::string(o.name)))
                continue;
            if (!symbols.isRelocatable() && o.address < section.address)
                continue;
            const uint64_t offset = symbols.offsetInSection(o.address, section.index);
            if (offset > UINT32_MAX || o.size > UINT32_MAX - offset)
                continue;
            candidates.push_back({section.index, static_cast<uint32_t>(offset),
                                  static_cast<uint32_t>(o.size), o.name, o.global});
        }
    }
    std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
        return std::tie(a.section, a.offset, a.name) < std::tie(b.section, b.offset, b.name);
    });

    TypeId byteType = findUnsignedInt(graph, {"unsigned char"}, 1);
    TypeId indexType = findUnsignedInt(graph, {"unsigned int", "__ARRAY_SIZE_TYPE__"}, 4);
    if (!candidates.empty() && byteType == ir::kVoidType)
        byteType = graph.add(ir::IntType{graph.intern("unsigned char"), 1, 0, 0, 8});
    if (!candidates.empty() && indexType == ir::kVoidType)
        indexType = graph.add(ir::IntType{graph.intern("unsigned int"), 4, 0, 0, 32});
    std::map<uint32_t, TypeId> arrays; // by size

    uint32_t added = 0;
    std::vector<ir::VarSecInfo> entries;
    for (size_t begin = 0; begin < candidates.size();) {
        const elf::ElfSection& section = *symbols.section(candidates[begin].section);
        auto existing = datasecs.find(section.name);
        entries.clear();
        std::vector<Range> taken; // existing entries, by offset
        if (existing != datasecs.end()) {
            entries = existing->second.entries;
            for (const ir::VarSecInfo& e : entries)
                taken.push_back({e.offset, uint64_t{e.offset} + e.size});
            std::sort(taken.begin(), taken.end(),
                      [](const Range& a, const Range& b) { return a.begin < b.begin; });
        }
        uint64_t placedEnd = 0; // end of the candidates placed so far (they come by offset)
        size_t end = begin;
        for (; end < candidates.size() && candidates[end].section == section.index; ++end) {
            const Candidate& c = candidates[end];
            const Range r{c.offset, uint64_t{c.offset} + c.size};
            // Existing entries do not overlap each other: the last one starting before this
            // range ends is the only one that can meet it.
            auto next = std::lower_bound(taken.begin(), taken.end(), r.end,
                                         [](const Range& t, uint64_t e) { return t.begin < e; });
            bool overlaps =
                r.begin < placedEnd || (next != taken.begin() && std::prev(next)->end > r.begin);
            if (overlaps)
                continue;
            placedEnd = r.end;
            auto [array, isNew] = arrays.try_emplace(c.size, ir::kVoidType);
            if (isNew)
                array->second = graph.add(ir::ArrayType{ir::kNoName, byteType, indexType, c.size});
            TypeId var = graph.add(
                ir::VarType{graph.intern(c.name), array->second,
                            c.global ? ir::VarLinkage::GlobalAllocated : ir::VarLinkage::Static});
            entries.push_back({var, c.offset, c.size});
            ++added;
        }
        begin = end;
        if (entries.empty())
            continue;
        std::stable_sort(
            entries.begin(), entries.end(),
            [](const ir::VarSecInfo& a, const ir::VarSecInfo& b) { return a.offset < b.offset; });
        const ir::VarSecInfo& last = entries.back();
        uint32_t size = last.offset + last.size;
        if (existing == datasecs.end()) {
            graph.add(ir::DatasecType{graph.intern(section.name), size, entries});
        } else {
            ExistingDatasec& d = existing->second;
            if (entries.size() != d.entries.size())
                graph.replace(d.id,
                              ir::DatasecType{graph.nameId(d.id), std::max(d.size, size), entries});
        }
    }
    return added;
}

} // namespace btforge::amend
