#include "StructSums.h"

namespace btforge::layout {
namespace {

// Appends `part` to a list of parts separated by ", ".
void addPart(std::string& list, const std::string& part) {
    if (!list.empty())
        list += ", ";
    list += part;
}

} // namespace

std::string counted(uint64_t n, std::string_view unit) {
    std::string text = std::to_string(n) + ' ' + std::string(unit);
    if (n != 1)
        text += 's';
    return text;
}

void StructSums::addMember(const MemberLayout& member, uint32_t holeBefore) {
    if (member.member.bitfieldSize)
        bits_ += member.member.bitfieldSize;
    else
        bytes_ += member.byteSize;
    if (member.alignment) {
        ++forced_;
        if (holeBefore) {
            ++forcedHoles_;
            sumForcedHoles_ += holeBefore;
        }
    }
}

std::string StructSums::addMemberStruct(const ClassLayout& type) {
    std::string parts;
    if (type.flexibleArray) {
        addPart(parts, "a flexible array");
        ++flexibleAtEnd_;
    }
    if (type.embeddedFlexibleArray) {
        addPart(parts, "embedded flexible array(s)");
        ++flexibleInMiddle_;
    }
    if (type.padding) {
        addPart(parts, counted(type.padding, "byte") + " of padding");
        ++paddings_;
        sumPaddings_ += type.padding;
    }
    if (type.bitPadding) {
        addPart(parts, counted(type.bitPadding, "bit") + " of padding");
        ++typesWithBitPadding_;
        typeBitPadding_ += type.bitPadding;
    }
    if (type.holes) {
        addPart(parts, counted(type.holes, "hole"));
        ++typesWithHoles_;
        typeHoles_ += type.holes;
    }
    if (type.bitHoles) {
        addPart(parts, counted(type.bitHoles, "bit hole"));
        ++typesWithBitHoles_;
        typeBitHoles_ += type.bitHoles;
    }
    return parts;
}

std::vector<std::string> StructSums::lines(const ClassLayout& layout, uint64_t start,
                                           uint32_t cacheline) const {
    using std::to_string;
    std::vector<std::string> out;
    const uint64_t end = start + layout.size;
    const uint64_t cachelines = (end + cacheline - 1) / cacheline - start / cacheline;
    out.push_back("size: " + to_string(layout.size) + ", cachelines: " + to_string(cachelines) +
                  ", members: " + to_string(layout.members.size()));
    if (holes_)
        out.push_back("sum members: " + to_string(bytes_) + ", holes: " + to_string(layout.holes) +
                      ", sum holes: " + to_string(holes_));
    else if (bitHoles_ && bytes_)
        out.push_back("sum members: " + to_string(bytes_));
    if (bitHoles_)
        out.push_back("sum bitfield members: " + to_string(bits_) +
                      " bits, bit holes: " + to_string(layout.bitHoles) +
                      ", sum bit holes: " + to_string(bitHoles_) + " bits");
    else if (holes_ && bits_)
        out.push_back("sum bitfield members: " + to_string(bits_) + " bits (" +
                      to_string(bits_ / 8) + " bytes)");
    if (layout.padding)
        out.push_back("padding: " + to_string(layout.padding));
    std::string types;
    if (typesWithHoles_)
        addPart(types,
                "holes: " + to_string(typesWithHoles_) + ", total: " + to_string(typeHoles_));
    if (typesWithBitHoles_)
        addPart(types, "bit holes: " + to_string(typesWithBitHoles_) +
                           ", total: " + to_string(typeBitHoles_));
    if (typesWithBitPadding_)
        addPart(types, "bit paddings: " + to_string(typesWithBitPadding_) +
                           ", total: " + counted(typeBitPadding_, "bit"));
    if (!types.empty())
        out.push_back("member types with " + types);
    if (paddings_)
        out.push_back("paddings: " + to_string(paddings_) +
                      ", sum paddings: " + to_string(sumPaddings_));
    if (layout.bitPadding)
        out.push_back("bit_padding: " + to_string(layout.bitPadding) + " bits");
    if (forced_) {
        std::string text = "forced alignments: " + to_string(forced_);
        if (forcedHoles_)
            text += ", forced holes: " + to_string(forcedHoles_) +
                    ", sum forced holes: " + to_string(sumForcedHoles_);
        out.push_back(text);
    }
    if (flexibleAtEnd_ || flexibleInMiddle_) {
        std::string where;
        if (flexibleAtEnd_)
            addPart(where, "end: " + to_string(flexibleAtEnd_));
        if (flexibleInMiddle_)
            addPart(where, "middle: " + to_string(flexibleInMiddle_));
        out.push_back("flexible array members: " + where);
    }
    if (uint64_t lastLine = end % cacheline)
        out.push_back("last cacheline: " + to_string(lastLine) + " bytes");
    return out;
}

} // namespace btforge::layout
