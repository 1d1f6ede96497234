#include "Abbreviations.h"
#include "LibdwAttributes.h"
#include "LibdwUnitReader.h"

#include "btforge/dwarf/DieAttributes.h"
#include "btforge/dwarf/DieKeys.h"
#include "btforge/dwarf/DieTreeBuilder.h"
#include "btforge/dwarf/DieVisit.h"
#include "btforge/support/Hex.h"

#include <algorithm>
#include <cstring>
#include <dwarf.h>
#include <optional>
#include <string>

namespace btforge::dwarf {
namespace {

// Gives the strings AttributeDecoder found (names, string constants) their length. Returns the
// key of a DIE with one that has no NUL before the end of its section.
std::optional<DieOffset> measureNames(UnitDies& unit) {
    auto measure = [](std::string_view& s) {
        if (!s.data())
            return true;
        const size_t length = strnlen(s.data(), s.size());
        if (length == s.size())
            return false; // no NUL within the limit
        s = s.substr(0, length);
        return true;
    };
    for (Die& die : unit.dies) {
        if (!measure(die.name) ||
            (die.rare != kNoIndex && !measure(unit.rare[die.rare].stringValue)))
            return die.offset;
    }
    return std::nullopt;
}

// Reads a unit's DIEs in one pass over its bytes: the DIEs classify() keeps are decoded into the
// unit, the others skipped, whole subtrees at a time where DW_AT_sibling says where they end.
class UnitWalk {
public:
    struct Failure {
        uint64_t offset; // of the DIE, in its section
        std::string what;
    };

    UnitWalk(UnitDies& out, const AbbreviationTable& table, const UnitForms& forms,
             const uint8_t* section, uint64_t headerOffset, uint64_t dieOffset, uint64_t end,
             Dwarf_CU* cu, AttributeDecoder::Context decoding)
        : out_(out), table_(table), forms_(forms), section_(section),
          header_(section + headerOffset), end_(section + end),
          in_({section + dieOffset, end - dieOffset}, forms.bigEndian), cu_(cu),
          decoding_(decoding), tree_(out, end - headerOffset) {}

    std::optional<Failure> run() {
        const uint8_t* start = in_.position();
        const Abbreviation* a = next();
        if (!a)
            return failure_ ? failure_ : Failure{offsetOf(start), "the unit has no DIE"};
        if (!keep(*a, start, kNoIndex))
            return failure_;
        struct Frame {
            uint32_t tag;       // what children are classified by
            uint32_t keptOwner; // nearest kept ancestor (or itself)
        };
        std::vector<Frame> stack;
        if (a->hasChildren)
            stack.push_back({a->tag, 0});
        // A unit may end without the null entries closing its last DIEs' children.
        while (!stack.empty() && !in_.atEnd()) {
            start = in_.position();
            a = next();
            if (failure_)
                return failure_;
            if (!a) {
                stack.pop_back();
                continue;
            }
            const Frame frame = stack.back();
            Visit visit =
                classifyDie(static_cast<uint16_t>(a->tag), static_cast<uint16_t>(frame.tag));
            if (visit == Visit::Skip) {
                if (!skipDie(*a, start))
                    return failure_;
                continue;
            }
            uint32_t owner = frame.keptOwner;
            if (visit == Visit::Keep) {
                if (!keep(*a, start, owner))
                    return failure_;
                owner = static_cast<uint32_t>(out_.dies.size() - 1);
            } else if (!attributes(*a, start, nullptr)) {
                return failure_;
            }
            if (a->hasChildren)
                stack.push_back({a->tag, owner});
        }
        return std::nullopt;
    }

private:
    uint64_t offsetOf(const uint8_t* p) const { return static_cast<uint64_t>(p - section_); }

    bool fail(const uint8_t* die, std::string what) {
        failure_ = Failure{offsetOf(die), std::move(what)};
        return false;
    }

    // The abbreviation of the DIE at the cursor; null for the null entry ending a list of
    // siblings, or on failure.
    const Abbreviation* next() {
        const uint8_t* start = in_.position();
        uint64_t code = in_.uleb();
        if (!in_.ok()) {
            fail(start, "the DIE runs past the end of the unit");
            return nullptr;
        }
        if (code == 0)
            return nullptr;
        const Abbreviation* a = table_.find(code);
        if (!a)
            fail(start,
                 "abbreviation code " + std::to_string(code) + " is not in the unit's table");
        return a;
    }

    // Reads the attributes of the DIE at `start` (abbreviation `a`), decoding the wanted ones
    // when `decoder` is given. `sibling`, when given, gets where DW_AT_sibling points (or null).
    bool attributes(const Abbreviation& a, const uint8_t* start, AttributeDecoder* decoder,
                    const uint8_t** sibling = nullptr) {
        if (!sibling && a.skipSize >= 0) {
            // Every value has a fixed size: the wanted ones are read where they lie.
            const uint8_t* values = in_.position();
            in_.skip(static_cast<uint64_t>(a.skipSize));
            if (!in_.ok())
                return fail(start, "its attributes run past the end of the unit");
            for (const AttributeSpec& spec :
                 decoder ? table_.wanted(a) : std::span<const AttributeSpec>())
                decoder->decode(
                    {{spec.name, spec.form, const_cast<unsigned char*>(values + spec.offset), cu_},
                     spec.implicitConst});
            return true;
        }
        std::span<const AttributeSpec> specs = table_.specs(a);
        for (size_t i = 0; i < specs.size(); ++i) {
            const AttributeSpec& spec = specs[i];
            uint32_t form = spec.form;
            if (form == DW_FORM_indirect) {
                uint64_t actual = in_.uleb();
                if (actual == DW_FORM_indirect || actual == DW_FORM_implicit_const ||
                    actual > UINT32_MAX)
                    return fail(start,
                                "attribute " + hex(spec.name) + " has an invalid indirect form");
                form = static_cast<uint32_t>(actual);
            }
            const uint8_t* value = in_.position();
            if (form == spec.form && spec.size != kSizeVaries && spec.size != kUnknownForm)
                in_.skip(spec.size);
            else if (!skipFormValue(in_, form, forms_.layout))
                return fail(start,
                            "attribute " + hex(spec.name) + " has an unknown form " + hex(form));
            if (!in_.ok())
                return fail(start, "its attributes run past the end of the unit");
            if (sibling && static_cast<int32_t>(i) == a.sibling)
                *sibling = siblingTarget(form, value);
            if (decoder && spec.wanted)
                decoder->decode({{spec.name, form, const_cast<unsigned char*>(value), cu_},
                                 spec.implicitConst});
        }
        return true;
    }

    // Where a DW_AT_sibling value points, if it is a reference into this unit past `value`.
    const uint8_t* siblingTarget(uint32_t form, const uint8_t* value) const {
        Cursor at({value, static_cast<size_t>(end_ - value)}, forms_.bigEndian);
        const uint8_t* target = nullptr;
        switch (form) {
        case DW_FORM_ref1:
        case DW_FORM_ref2:
        case DW_FORM_ref4:
        case DW_FORM_ref8: {
            uint64_t offset = at.fixed(fixedFormSize(form, forms_.layout));
            if (offset < static_cast<uint64_t>(end_ - header_))
                target = header_ + offset;
            break;
        }
        case DW_FORM_ref_udata: {
            uint64_t offset = at.uleb();
            if (offset < static_cast<uint64_t>(end_ - header_))
                target = header_ + offset;
            break;
        }
        default:
            break;
        }
        return target && target > value ? target : nullptr;
    }

    // Moves past the DIE at `start` and everything below it.
    bool skipDie(const Abbreviation& first, const uint8_t* start) {
        const Abbreviation* a = &first;
        size_t depth = 0; // open DIEs whose children are being skipped
        while (true) {
            const uint8_t* sibling = nullptr;
            if (!attributes(*a, start, nullptr,
                            a->hasChildren && a->sibling >= 0 ? &sibling : nullptr))
                return false;
            if (sibling && sibling >= in_.position())
                in_.seek(sibling);
            else if (a->hasChildren)
                ++depth;
            // Null entries close the lists of children.
            while (true) {
                if (depth == 0)
                    return true;
                if (in_.atEnd())
                    return true; // the unit ends: so do all lists
                start = in_.position();
                a = next();
                if (failure_)
                    return false;
                if (a)
                    break;
                --depth;
            }
        }
    }

    bool keep(const Abbreviation& a, const uint8_t* start, uint32_t parent) {
        Die& die =
            tree_.add(offsetOf(start) + decoding_.bias, static_cast<uint16_t>(a.tag), parent);
        AttributeDecoder decoder(out_, die, decoding_, forms_);
        if (!attributes(a, start, &decoder))
            return false;
        if (decoder.rules().needsFirstRange()) {
            // libdw reads range lists: the DIE as it knows one (its abbreviation looked up anew).
            Dwarf_Die d{const_cast<uint8_t*>(start), cu_, nullptr, 0};
            Dwarf_Addr base, begin, end;
            if (dwarf_ranges(&d, 0, &base, &begin, &end) > 0)
                decoder.rules().address(DW_AT_low_pc, begin);
        }
        return true;
    }

    UnitDies& out_;
    const AbbreviationTable& table_;
    const UnitForms& forms_;
    const uint8_t* section_;
    const uint8_t* header_; // the unit header: unit-relative references count from it
    const uint8_t* end_;
    Cursor in_;
    Dwarf_CU* cu_;
    AttributeDecoder::Context decoding_;
    DieTreeBuilder tree_;
    std::optional<Failure> failure_;
};

} // namespace

Expected<void> LibdwUnitReader::readUnit(size_t index, UnitDies& out) {
    Expected<void> read = decodeUnit(index, out);
    // Units give back their own pages, but pages still pile up: those a unit shares with its
    // neighbours, those the kernel's fault-around maps back around the next unit's first page,
    // and the string and abbreviation sections. So every so many bytes read, and once every
    // unit is read, the whole mapping goes back; a worker faults in again only what it still
    // reads (vmlinux: 8 MB less at the end of reading).
    const uint64_t size = unitSize(index);
    const uint64_t before = bytesRead_.fetch_add(size);
    if (++unitsRead_ == units_.size() ||
        before / kBytesBetweenSweeps != (before + size) / kBytesBetweenSweeps)
        giveBackMapped(reinterpret_cast<const uint8_t*>(file_),
                       reinterpret_cast<const uint8_t*>(file_) + fileSize_);
    return read;
}

Expected<void> LibdwUnitReader::decodeUnit(size_t index, UnitDies& out) {
    out.clear();
    Unit& unit = units_[index];
    out.unitOffset = unit.offset + unit.bias;
    out.version = unit.version;
    out.addressSize = unit.addressSize;
    out.isPartial = isPartialUnit(index);

    Dwarf_Die root = unit.die;
    LocationSections locations{loclists_, loc_};
    std::vector<LocationOp> scratchOps;
    AttributeDecoder::Context decoding{dwarf_, unit.headerOffset + unit.bias, unit.bias, &locations,
                                       &scratchOps};
    UnitForms forms{{unit.version, unit.addressSize, unit.offsetSize}, bigEndian_, unit.strings};
    thread_local AbbreviationTable abbreviations;
    uint64_t tableEnd = abbreviations.parse(unit.abbreviations, unit.abbreviationsOffset,
                                            forms.layout, AttributeDecoder::isRead);
    // Decoded: the table's pages may go (another unit sharing it reads them back).
    giveBackMapped(unit.abbreviations.data() + std::min(unit.abbreviationsOffset, tableEnd),
                   unit.abbreviations.data() + tableEnd);
    UnitWalk walk(out, abbreviations, forms, unit.section, unit.headerOffset, unit.offset, unit.end,
                  root.cu, decoding);
    if (auto failure = walk.run())
        return Error::badInput(path_ + ": DIE " + hex(failure->offset) + sectionOfBias(unit.bias) +
                               ": " + failure->what);

    if (auto unterminated = measureNames(out))
        return Error::badInput(path_ + ": DIE " + hex(*unterminated - unit.bias) +
                               sectionOfBias(unit.bias) +
                               ": its name or string value runs past the end of .debug_str");
    if (locations.lowest)
        giveBackMapped(locations.lowest, locations.highest);
    out.name = out.dies[0].name;
    return {};
}

} // namespace btforge::dwarf
