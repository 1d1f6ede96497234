// What the DWARF of one unit says about functions and variables, kept compactly per worker until
// all units are read (a record in BTF's terms, not the DWARF). Type ids are the unit's
// own until remapTypes() puts them into the merged graph's terms.
#pragma once

#include "support/TextArena.h"

#include "btforge/dwarf/UnitDies.h"
#include "btforge/ir/Kind.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace btforge::dwarf {

// Why a parameter makes its function's DWARF prototype untrustworthy as an attach point.
enum ParamFact : uint8_t {
    kParamOptimizedOut = 1u << 0, // the concrete instance has no location for it, or dropped it
    kParamUnexpectedRegister = 1u << 1, // at entry it is not where the calling convention puts it
    kParamNotArriving = 1u << 2, // at entry it is in no register: not part of the code's signature
    // An aggregate passed in memory or a floating-point value, with a later parameter arriving
    // in a register: BPF's model of the function looks for that one a register further on.
    kParamShiftsLaterOnes = 1u << 3,
    kParamFloatingPoint = 1u << 4, // for the skip report's detail
};

enum FunctionFact : uint16_t {
    kFunctionExternal = 1u << 0,
    kFunctionOptimizedParams = 1u << 1,
    kFunctionUnexpectedRegister = 1u << 2,
    kFunctionReorderedParams = 1u << 3,
    kFunctionNoCall = 1u << 4, // DW_CC_nocall: the compiler changed the calling convention
    kFunctionVarargs = 1u << 5,
    // The parameters not kParamNotArriving are in declared order, none an aggregate, each in
    // the register the calling convention gives it among them: the signature the code has.
    kFunctionTrueSignatureKnown = 1u << 6,
};

struct ParamObservation {
    std::string_view name;
    ir::TypeId type = ir::kVoidType;
    uint8_t facts = 0;
};

// A btf_decl_tag annotation; componentIndex -1 is the function or variable itself.
struct TagObservation {
    std::string_view value;
    int32_t componentIndex = -1;
};

struct FunctionObservation {
    std::string_view name;
    DieOffset die = kNoDie;
    uint32_t unit = 0; // the unit's position in the input
    uint64_t lowPc = 0;
    bool hasLowPc = false;
    uint16_t facts = 0;
    ir::TypeId returnType = ir::kVoidType;
    uint32_t paramFirst = 0; // into UnitObservations::params
    uint32_t paramCount = 0; // varargs not counted (kFunctionVarargs)
    uint32_t tagFirst = 0;   // into UnitObservations::tags
    uint32_t tagCount = 0;
};

struct VariableObservation {
    std::string_view name;
    DieOffset die = kNoDie;
    uint32_t unit = 0;
    ir::TypeId type = ir::kVoidType;
    uint64_t address = 0;
    bool hasAddress = false; // a plain DW_OP_addr location
    bool external = false;
    uint32_t tagFirst = 0;
    uint32_t tagCount = 0;
};

struct UnitObservations {
    // Names are copied here: views into the DWARF would keep the input's pages resident when
    // the decisions read them at the end.
    TextArena text;
    std::vector<FunctionObservation> functions;
    std::vector<ParamObservation> params;
    std::vector<TagObservation> tags;
    std::vector<VariableObservation> variables;

    std::span<const ParamObservation> paramsOf(const FunctionObservation& f) const {
        return {params.data() + f.paramFirst, f.paramCount};
    }
    template <typename T> std::span<const TagObservation> tagsOf(const T& owner) const {
        return {tags.data() + owner.tagFirst, owner.tagCount};
    }
    // Rewrites every type id with finalOf(id) (void stays void).
    template <typename FinalOf> void remapTypes(FinalOf&& finalOf) {
        auto remap = [&](ir::TypeId& id) {
            if (id != ir::kVoidType)
                id = finalOf(id);
        };
        for (FunctionObservation& f : functions)
            remap(f.returnType);
        for (ParamObservation& p : params)
            remap(p.type);
        for (VariableObservation& v : variables)
            remap(v.type);
    }
    void append(UnitObservations&& other);
    // Gives back the lists' spare room: every unit's observations wait for the end phase, where
    // memory peaks (vmlinux: a third of what they held was room to grow).
    void shrinkToFit();
};

} // namespace btforge::dwarf
