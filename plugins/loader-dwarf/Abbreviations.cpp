#include "Abbreviations.h"

#include "btforge/dwarf/Forms.h"

#include <algorithm>
#include <dwarf.h>

namespace btforge::dwarf {
namespace {

// Codes up to this are looked up by index; compilers number abbreviations from 1 up.
constexpr uint64_t kDenseCodes = 1u << 16;

uint8_t valueSize(const FormInfo& info, const FormContext& context) {
    switch (info.layout) {
    case FormLayout::None:
        return 0;
    case FormLayout::Fixed:
        return info.size;
    case FormLayout::AddressSize:
        return context.addressSize;
    case FormLayout::OffsetSize:
        return context.offsetSize;
    case FormLayout::RefAddr:
        return context.version < 3 ? context.addressSize : context.offsetSize;
    case FormLayout::Unsupported:
        return kUnknownForm;
    default:
        return kSizeVaries;
    }
}

} // namespace

uint8_t fixedFormSize(uint32_t form, const FormContext& context) {
    const auto info = formInfo(form);
    return info ? valueSize(*info, context) : kUnknownForm;
}

bool skipFormValue(Cursor& in, uint32_t form, const FormContext& context) {
    const auto info = formInfo(form);
    const uint8_t size = info ? valueSize(*info, context) : kUnknownForm;
    if (size == kUnknownForm)
        return false;
    if (size != kSizeVaries) {
        in.skip(size);
        return true;
    }
    switch (info->layout) {
    case FormLayout::String:
        in.skipString();
        return true;
    case FormLayout::Block1:
        in.skip(in.fixed(1));
        return true;
    case FormLayout::Block2:
        in.skip(in.fixed(2));
        return true;
    case FormLayout::Block4:
        in.skip(in.fixed(4));
        return true;
    case FormLayout::BlockUleb:
        in.skip(in.uleb());
        return true;
    case FormLayout::Indirect: {
        // The form comes first in the DIE; it may not be indirect or implicit again.
        uint64_t actual = in.uleb();
        if (actual == DW_FORM_indirect || actual == DW_FORM_implicit_const || actual > UINT32_MAX)
            return false;
        return skipFormValue(in, static_cast<uint32_t>(actual), context);
    }
    default: // LEB128
        in.uleb();
        return true;
    }
}

uint64_t AbbreviationTable::parse(std::span<const uint8_t> section, uint64_t offset,
                                  const FormContext& context, bool (*wanted)(uint32_t)) {
    abbreviations_.clear();
    specs_.clear();
    wanted_.clear();
    dense_.clear();
    Cursor in(section.subspan(std::min<uint64_t>(offset, section.size())));
    while (true) {
        Abbreviation a;
        a.code = in.uleb();
        if (a.code == 0 || !in.ok())
            break;
        uint64_t tag = in.uleb();
        a.tag = static_cast<uint32_t>(std::min<uint64_t>(tag, UINT32_MAX));
        a.hasChildren = in.byte() != 0;
        a.firstSpec = static_cast<uint32_t>(specs_.size());
        a.firstWanted = static_cast<uint32_t>(wanted_.size());
        int64_t skipSize = 0;
        while (in.ok()) {
            uint64_t name = in.uleb();
            uint64_t form = in.uleb();
            if (name == 0 && form == 0)
                break;
            AttributeSpec spec{};
            spec.name = static_cast<uint32_t>(std::min<uint64_t>(name, UINT32_MAX));
            spec.form = static_cast<uint32_t>(std::min<uint64_t>(form, UINT32_MAX));
            if (spec.form == DW_FORM_implicit_const)
                spec.implicitConst = in.sleb();
            spec.size = fixedFormSize(spec.form, context);
            spec.wanted = wanted(spec.name);
            if (spec.name == DW_AT_sibling && a.sibling < 0)
                a.sibling = static_cast<int32_t>(specs_.size() - a.firstSpec);
            spec.offset = skipSize >= 0 ? static_cast<uint32_t>(skipSize) : 0;
            if (spec.size == kSizeVaries || spec.size == kUnknownForm)
                skipSize = -1;
            else if (skipSize >= 0)
                skipSize += spec.size;
            specs_.push_back(spec);
            if (spec.wanted)
                wanted_.push_back(spec);
        }
        if (!in.ok()) { // cut short: the codes read so far stay usable, as libdw's lazy lookup has
                        // them
            specs_.resize(a.firstSpec);
            wanted_.resize(a.firstWanted);
            break;
        }
        a.specCount = static_cast<uint32_t>(specs_.size()) - a.firstSpec;
        a.wantedCount = static_cast<uint32_t>(wanted_.size()) - a.firstWanted;
        a.skipSize = skipSize;
        if (a.code < kDenseCodes) {
            if (dense_.size() <= a.code)
                dense_.resize(a.code + 1, kNone);
            // The first of a repeated code wins, as in a lookup from the start of the table.
            if (dense_[a.code] == kNone)
                dense_[a.code] = static_cast<uint32_t>(abbreviations_.size());
        }
        abbreviations_.push_back(a);
    }
    return section.size() - in.remaining();
}

const Abbreviation* AbbreviationTable::findSparse(uint64_t code) const {
    for (const Abbreviation& a : abbreviations_) {
        if (a.code == code)
            return &a;
    }
    return nullptr;
}

} // namespace btforge::dwarf
