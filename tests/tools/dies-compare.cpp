// btforge-dies-compare FILE: reads every unit of FILE with both DWARF readers (libdw's and
// LLVM's) and compares the UnitDies they fill, field by field: the strongest check that they
// read alike, as it also sees what the BTF does not show (an entry-value register that no rule
// needed, say). Prints the first difference and exits 1; exit 0 with a count when equal.
#include "../../plugins/loader-dwarf/LibdwUnitReader.h"
#include "../../plugins/loader-llvm-dwarf/LlvmUnitReader.h"

#include <cstdio>
#include <string>

namespace {

using namespace btforge::dwarf;

std::string hex(uint64_t v) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
    return buf;
}

// Addresses compare by where they lie: each reader places the sections of a relocatable object
// at addresses of its own.
struct Readers {
    const UnitReader& a;
    const UnitReader& b;
    std::string address(uint64_t x, uint64_t y) const {
        auto wa = a.locate(x), wb = b.locate(y);
        if (wa == wb)
            return {};
        auto show = [](const std::optional<SectionOffset>& w) {
            return w ? "section " + std::to_string(w->section) + "+" + hex(w->offset)
                     : std::string("nowhere");
        };
        return show(wa) + " vs " + show(wb);
    }
};

// The first field in which `a` (libdw) and `b` (LLVM) differ, or "".
std::string difference(const Readers& readers, const UnitDies& ua, const UnitDies& ub, const Die& a,
                       const Die& b) {
    auto field = [](const char* name, uint64_t x, uint64_t y) {
        return x == y ? std::string() : std::string(name) + " " + hex(x) + " vs " + hex(y);
    };
    const RareAttributes& ra = ua.rareOf(a);
    const RareAttributes& rb = ub.rareOf(b);
    for (auto [name, x, y] :
         {std::tuple{"offset", a.offset, b.offset},
          {"parent", a.parent, b.parent},
          {"nextSibling", a.nextSibling, b.nextSibling},
          {"firstChild", a.firstChild, b.firstChild},
          {"tag", a.tag, b.tag},
          {"encoding", a.encoding, b.encoding},
          {"callingConvention", a.callingConvention, b.callingConvention},
          {"flags", a.flags, b.flags},
          {"alignment", a.alignment, b.alignment},
          {"type", a.type, b.type},
          {"abstractOrigin", a.abstractOrigin, b.abstractOrigin},
          {"specification", a.specification, b.specification},
          {"byteSize", a.byteSize, b.byteSize},
          {"bitSize", ra.bitSize, rb.bitSize},
          {"dataMemberLocation", a.dataMemberLocation, b.dataMemberLocation},
          {"dataBitOffset", ra.dataBitOffset, rb.dataBitOffset},
          {"bitOffset", ra.bitOffset, rb.bitOffset},
          {"constValue", a.constValue, b.constValue},
          {"bound", a.bound, b.bound},
          {"locationCount", ra.locationCount, rb.locationCount},
          {"entryValueRegister", ra.entryValueRegister, rb.entryValueRegister}}) {
        if (std::string d = field(name, x, y); !d.empty())
            return d;
    }
    if (std::string where = readers.address(ra.lowPc, rb.lowPc); !where.empty())
        return "lowPc " + where;
    if (a.name != b.name)
        return "name '" + std::string(a.name) + "' vs '" + std::string(b.name) + "'";
    if (ra.stringValue != rb.stringValue)
        return "string value";
    auto la = ua.location(a), lb = ub.location(b);
    for (size_t i = 0; i < la.size(); ++i) {
        bool address = la[i].atom == 0x03; // DW_OP_addr
        if (la[i].atom != lb[i].atom || la[i].number2 != lb[i].number2 ||
            (address ? !readers.address(la[i].number, lb[i].number).empty()
                     : la[i].number != lb[i].number))
            return "location op " + std::to_string(i) + ": " + hex(la[i].atom) + " " +
                   hex(la[i].number) + " " + hex(la[i].number2) + " vs " + hex(lb[i].atom) + " " +
                   hex(lb[i].number) + " " + hex(lb[i].number2);
    }
    return {};
}

} // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: btforge-dies-compare FILE\n");
        return 2;
    }
    auto file = btforge::MappedFile::open(argv[1]);
    if (!file) {
        std::fprintf(stderr, "%s\n", file.error().message().c_str());
        return 2;
    }
    auto shared = std::make_shared<btforge::MappedFile>(std::move(*file));
    auto libdw = LibdwUnitReader::open(shared, "");
    auto llvm = LlvmUnitReader::open(shared);
    if (!libdw || !llvm) {
        std::fprintf(stderr, "cannot open %s: %s\n", argv[1],
                     (!libdw ? libdw.error() : llvm.error()).message().c_str());
        return 2;
    }
    if ((*libdw)->unitCount() != (*llvm)->unitCount()) {
        std::printf("unit count %zu vs %zu\n", (*libdw)->unitCount(), (*llvm)->unitCount());
        return 1;
    }
    size_t dies = 0;
    UnitDies a, b;
    const Readers readers{**libdw, **llvm};
    for (size_t i = 0; i < (*libdw)->unitCount(); ++i) {
        auto ra = (*libdw)->readUnit(i, a);
        auto rb = (*llvm)->readUnit(i, b);
        if (!ra || !rb) {
            std::fprintf(stderr, "unit %zu: %s\n", i,
                         (!ra ? ra.error() : rb.error()).message().c_str());
            return 2;
        }
        std::string unit = "unit " + std::to_string(i) + " (" + hex(a.unitOffset) + "): ";
        if (a.unitOffset != b.unitOffset || a.version != b.version || a.language != b.language ||
            a.addressSize != b.addressSize || a.isPartial != b.isPartial || a.name != b.name ||
            a.producer != b.producer || a.dies.size() != b.dies.size()) {
            std::printf("%sheader or DIE count (%zu vs %zu) differs\n", unit.c_str(), a.dies.size(),
                        b.dies.size());
            return 1;
        }
        for (size_t d = 0; d < a.dies.size(); ++d) {
            if (std::string why = difference(readers, a, b, a.dies[d], b.dies[d]); !why.empty()) {
                std::printf("%sDIE %s (tag %s): %s\n", unit.c_str(), hex(a.dies[d].offset).c_str(),
                            hex(a.dies[d].tag).c_str(), why.c_str());
                return 1;
            }
        }
        dies += a.dies.size();
    }
    std::printf("%zu units, %zu DIEs: equal\n", (*libdw)->unitCount(), dies);
    return 0;
}
