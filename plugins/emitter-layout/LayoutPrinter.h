// Writes types as pahole prints them: a struct with each member's offset and size, the holes,
// bit holes and padding between them, cacheline boundaries and the sums at its end; a union,
// an enum, a typedef; members' anonymous types written in place, and with -E every member
// type written out in full.
#pragma once

#include "ClassLayout.h"
#include "LayoutOptions.h"
#include "TypeNames.h"

#include "btforge/ir/TypeGraph.h"

#include <string>
#include <string_view>

namespace btforge::layout {

class LayoutPrinter {
public:
    // `declared`: the graph comes from declarations (DWARF), not BTF (LayoutAnalyzer); its
    // nested arrays are the dimensions of one array, which pahole writes outermost first.
    LayoutPrinter(const ir::TypeGraph& graph, const LayoutOptions& options, bool declared);

    // A top-level STRUCT, UNION, ENUM or TYPEDEF as `pahole -C NAME` prints it, without the
    // ";\n" that follows.
    void printDefinition(ir::TypeId id, std::string& out);
    LayoutAnalyzer& analyzer() { return analyzer_; }

private:
    // Where a type is being written (pahole's conf_fprintf).
    struct Context {
        int indent = 0;                // tabs before the lines inside the type
        int typeSpacing = 26;          // columns for a member's type
        int nameSpacing = 23;          // columns for its name, before the offset comment
        uint32_t baseOffset = 0;       // absolute offset of the member being written
        uint32_t* cacheline = nullptr; // the last cacheline a boundary was shown for
        bool stats = false;            // sums after the members (top level)
        bool unionMember = false;
        bool firstMember = false, lastMember = false;
        bool expandTypes = false;
        bool relativeOffsets = false; // inside a type reached through a pointer
    };

    void printStruct(ir::TypeId id, Context context, std::string_view suffix, std::string& out);
    void printUnion(ir::TypeId id, Context context, std::string_view suffix, std::string& out);
    void printEnum(ir::TypeId id, const Context& context, std::string_view suffix,
                   std::string& out);
    void printTypedef(ir::TypeId id, const Context& context, std::string& out);
    // A type the DWARF declares inside a struct, where it is declared (pahole shows it so).
    void printNestedType(ir::TypeId member, const Context& context, std::string_view suffix,
                         std::string& out);
    // One member: declaration, bitfield width, alignment, then the offset and size comment.
    void printMember(const MemberLayout& member, const Context& context, std::string& out);
    // pahole's type__fprintf: `type` declaring `name`, anonymous types written in place.
    void printDeclaration(ir::TypeId type, std::string_view name, Context context,
                          std::string& out);
    void printArray(ir::TypeId array, std::string_view name, const Context& context,
                    std::string& out);
    // "struct NAME {" (anonymous: "struct {").
    void printOpening(std::string_view keyword, ir::TypeId id, std::string& out);
    void printCachelineBoundary(uint32_t offset, const Context& context, std::string& out);
    void appendNumber(std::string& out, uint64_t value, int width) const;

    const ir::TypeGraph& graph_;
    const LayoutOptions& options_;
    TypeNames names_;
    LayoutAnalyzer analyzer_;
    bool declared_;
};

} // namespace btforge::layout
