// One file for the Mapper, whose passes (reserving ids, filling types, observing functions and
// variables, BTF's limits) share one state: the unit's DIE index, the ids reserved per DIE, the
// graph being filled and the scratch lists. Split by pass, each file would need that whole state
// in a class header; what stands on its own is in DieIndex.h and UnitDies.cpp.
#include "dwarf/UnitMapper.h"

#include "DieIndex.h"
#include "support/Identifier.h"
#include "support/Prefetch.h"

#include "btforge/btf/BtfFormat.h"
#include "btforge/dwarf/LoaderOptions.h"

#include <algorithm>
#include <dwarf.h>
#include <optional>
#include <string>

namespace btforge::dwarf {
namespace {

using ir::Kind;
using ir::TypeId;

// What a type DIE turns into before its fields are known: the kind of its primary record, or an
// alias (the DIE stands for another type, like DW_TAG_atomic_type), or nothing (void).
enum class Shape : uint8_t { None, Type, Alias, Void };

} // namespace

bool isTypeDie(uint16_t tag) {
    switch (tag) {
    case DW_TAG_base_type:
    case DW_TAG_unspecified_type:
    case DW_TAG_pointer_type:
    case DW_TAG_reference_type:
    case DW_TAG_rvalue_reference_type:
    case DW_TAG_const_type:
    case DW_TAG_volatile_type:
    case DW_TAG_restrict_type:
    case DW_TAG_atomic_type:
    case DW_TAG_immutable_type:
    case DW_TAG_typedef:
    case DW_TAG_structure_type:
    case DW_TAG_class_type:
    case DW_TAG_union_type:
    case DW_TAG_enumeration_type:
    case DW_TAG_array_type:
    case DW_TAG_subroutine_type:
    case DW_TAG_ptr_to_member_type:
        return true;
    default:
        return false;
    }
}

namespace {

// The kernel takes names of types, members, enumerators and parameters only as C identifiers,
// shorter than its KSYM_NAME_LEN (128 before Linux 6.1).
constexpr size_t kMaxNameLength = 127;

bool isIdentifier(std::string_view name) {
    return name.size() <= kMaxNameLength && support::isIdentifier(name);
}

bool isAnnotation(const Die& die) {
    return die.tag == kTagLlvmAnnotation && die.has(kConstValueString);
}

class Mapper {
public:
    Mapper(const UnitDies& unit, uint32_t unitOrder, const MappingRules& rules)
        : unit_(unit), unitOrder_(unitOrder), arrays_(rules.arrays),
          declarationTags_(rules.declarationTags), observe_(rules.observe), target_(rules.target),
          convention_(rules.convention), index_(unit.dies) {
        out_.graph.setByteOrder(target_.byteOrder);
        out_.graph.setPointerSize(target_.pointerSize);
    }

    MappedUnit run() {
        const size_t n = unit_.dies.size();
        dieType_.assign(n, ir::kVoidType);
        shape_.assign(n, Shape::None);
        // Growing the name index by doubling would rehash it several times per unit.
        out_.graph.strings().reserve(static_cast<size_t>(std::count_if(
            unit_.dies.begin(), unit_.dies.end(), [](const Die& d) { return !d.name.empty(); })));
        reserveTypes();
        for (uint32_t i = 0; i < n; ++i) {
            prefetchName(i + kNamesAhead);
            if (shape_[i] == Shape::Type)
                fillType(i);
        }
        for (uint32_t i = 0; i < n; ++i) {
            const Die& die = unit_.dies[i];
            if (die.tag == DW_TAG_subprogram)
                observeFunction(i);
            else if (die.tag == DW_TAG_variable && isFileScope(die))
                observeVariable(i);
        }
        if (unit_.isPartial) {
            for (uint32_t i = 0; i < n; ++i) {
                if (shape_[i] != Shape::None)
                    out_.exportedTypes.emplace_back(unit_.dies[i].offset, resolveIndex(i));
            }
        }
        out_.preMapped.resize(out_.graph.ownCount(), kNotPreMapped);
        return std::move(out_);
    }

private:
    // A name's first byte was read when its unit was, and is out of the nearer caches by the
    // time it is mapped: types and members are mapped in DIE order, so DIEs a few places
    // ahead are next.
    static constexpr uint32_t kNamesAhead = 6;
    void prefetchName(uint32_t index) const {
        if (index < unit_.dies.size())
            prefetch(unit_.dies[index].name.data());
    }

    // --- pass 1: one id per type DIE, so references can point forward ---
    void reserveTypes() {
        for (uint32_t i = 0; i < unit_.dies.size(); ++i) {
            const Die& die = unit_.dies[i];
            if (!isTypeDie(die.tag))
                continue;
            if (die.has(kSignature)) {
                shape_[i] = Shape::Alias; // the type itself is in a type unit
                continue;
            }
            switch (die.tag) {
            case DW_TAG_atomic_type:
            case DW_TAG_immutable_type:
                shape_[i] = Shape::Alias; // BTF has no such qualifier: the type itself
                continue;
            case DW_TAG_unspecified_type:
                shape_[i] = Shape::Void; // C's void, C++'s decltype(nullptr)
                continue;
            case DW_TAG_ptr_to_member_type:
                unmapped(die, "pointer to member has no BTF form; mapped to void");
                shape_[i] = Shape::Void;
                continue;
            case DW_TAG_base_type:
                if (die.encoding == DW_ATE_lo_user) {
                    unmapped(die, "base type encoding has no BTF form; mapped to void");
                    shape_[i] = Shape::Void;
                    continue;
                }
                if (die.byteSize > kMaxIntBytes || baseTypeBits(die) > kMaxIntBits) {
                    unmapped(die, die.encoding == DW_ATE_complex_float
                                      ? "complex type wider than BTF's 128-bit INT; mapped to void"
                                      : "integer wider than BTF's 128 bits; mapped to void");
                    shape_[i] = Shape::Void;
                    continue;
                }
                break;
            case DW_TAG_array_type:
                if (arrayBeyondLimits(i)) {
                    unmapped(die, "array of 2^32 elements or 4 GiB or more, past BTF's limits; "
                                  "mapped to void");
                    shape_[i] = Shape::Void;
                    continue;
                }
                break;
            default:
                break;
            }
            shape_[i] = Shape::Type;
            dieType_[i] = out_.graph.add(ir::FwdType{}); // placeholder, replaced in pass 2
        }
    }

    // --- references ---
    TypeId resolveIndex(uint32_t index) {
        // Aliases chain to their target; a loop of aliases (malformed DWARF) ends as void.
        for (int hops = 0; hops < 64; ++hops) {
            switch (shape_[index]) {
            case Shape::Type:
                return dieType_[index];
            case Shape::Alias: {
                DieOffset next = unit_.dies[index].type;
                if (next == kNoDie)
                    return ir::kVoidType;
                uint32_t nextIndex = index_.find(next);
                if (nextIndex == kNoIndex)
                    return external(next);
                index = nextIndex;
                continue;
            }
            case Shape::Void:
            case Shape::None:
                return ir::kVoidType;
            }
        }
        return ir::kVoidType;
    }

    TypeId resolve(DieOffset offset) {
        if (offset == kNoDie)
            return ir::kVoidType;
        uint32_t index = index_.find(offset);
        return index == kNoIndex ? external(offset) : resolveIndex(index);
    }

    // A DIE in another unit (partial unit, type unit): a placeholder the caller resolves.
    TypeId external(DieOffset offset) {
        for (const auto& [id, target] : out_.externals) {
            if (target == offset)
                return id;
        }
        TypeId id = out_.graph.add(ir::FwdType{});
        out_.externals.emplace_back(id, offset);
        return id;
    }

    const Die* dieAt(DieOffset offset) const {
        uint32_t index = offset == kNoDie ? kNoIndex : index_.find(offset);
        return index == kNoIndex ? nullptr : &unit_.dies[index];
    }

    // Byte size of a type DIE, through typedefs and qualifiers (for DWARF 2-4 bitfields).
    uint64_t byteSizeOf(DieOffset offset) const {
        for (int hops = 0; hops < 64; ++hops) {
            const Die* die = dieAt(offset);
            if (!die)
                return 0;
            if (die->has(kHasByteSize))
                return die->byteSize;
            offset = die->type;
        }
        return 0;
    }

    // The index of a DIE of this unit.
    uint32_t indexOf(const Die& die) const {
        return static_cast<uint32_t>(&die - unit_.dies.data());
    }

    template <typename Fn> void forEachChild(uint32_t index, Fn&& fn) const {
        if (index == kNoIndex)
            return;
        for (uint32_t c = unit_.dies[index].firstChild; c != kNoIndex;
             c = unit_.dies[c].nextSibling)
            fn(c, unit_.dies[c]);
    }

    ir::StrId intern(std::string_view s) { return out_.graph.intern(s); }

    // C++ and Rust names may be anything ("_vptr$Shape", "{closure_env#0}", "Option<u32>"):
    // what is not an identifier character becomes '_', as a name is more use than none.
    ir::StrId identifier(std::string_view name) {
        if (name.empty() || isIdentifier(name))
            return intern(name);
        bool digitFirst = name[0] >= '0' && name[0] <= '9';
        std::string fixed = digitFirst ? "_" : "";
        fixed += name.substr(0, kMaxNameLength - fixed.size());
        for (char& c : fixed) {
            if (!support::isIdentifierChar(c))
                c = '_';
        }
        return intern(fixed);
    }

    // --- pass 2: fill each reserved type ---
    void fillType(uint32_t index) {
        const Die& die = unit_.dies[index];
        TypeId id = dieType_[index];
        // Base type names are C's own ("long unsigned int"), which the kernel takes as they are.
        ir::StrId name = die.tag == DW_TAG_base_type ? intern(die.name) : identifier(die.name);
        switch (die.tag) {
        case DW_TAG_base_type:
            out_.graph.replace(id, baseType(die, name));
            break;
        case DW_TAG_reference_type:
        case DW_TAG_rvalue_reference_type:
            ++out_.referencesAsPointers;
            [[fallthrough]];
        case DW_TAG_pointer_type:
            out_.graph.replace(id, ir::PtrType{ir::kNoName, taggedPointee(index)});
            break;
        case DW_TAG_const_type:
            out_.graph.replace(id, ir::ConstType{ir::kNoName, resolve(die.type)});
            break;
        case DW_TAG_volatile_type:
            out_.graph.replace(id, ir::VolatileType{ir::kNoName, resolve(die.type)});
            break;
        case DW_TAG_restrict_type:
            out_.graph.replace(id, ir::RestrictType{ir::kNoName, resolve(die.type)});
            break;
        case DW_TAG_typedef:
            out_.graph.replace(id, ir::TypedefType{name, resolve(die.type)});
            addDeclTags(index, id);
            break;
        case DW_TAG_structure_type:
        case DW_TAG_class_type:
        case DW_TAG_union_type:
            fillComposite(index, id, name);
            tagLocalType(index, id);
            break;
        case DW_TAG_enumeration_type:
            fillEnum(index, id, name);
            tagLocalType(index, id);
            break;
        case DW_TAG_array_type:
            fillArray(index, id);
            break;
        case DW_TAG_subroutine_type:
            fillPrototype(index, id);
            break;
        default:
            break;
        }
    }

    ir::TypeView baseType(const Die& die, ir::StrId name) {
        auto size = static_cast<uint32_t>(die.byteSize);
        if (die.encoding == DW_ATE_float)
            return ir::FloatType{name, size};
        // A complex type is an INT of its name and size without encoding (BTF has no complex
        // kind), as pahole writes it, and floats without the float feature.
        uint8_t encoding = 0;
        switch (die.encoding) {
        case DW_ATE_signed:
        case DW_ATE_signed_char:
            encoding = ir::int_encoding::kSigned;
            break;
        case DW_ATE_boolean:
            encoding = ir::int_encoding::kBool;
            break;
        default:
            break;
        }
        // clang's DW_ATE_unsigned_24 and the like (operands of DW_OP_convert in locations, no
        // type of C's) have sizes BTF's INT has not: pahole writes them as this 4-byte INT.
        if (size == 0 || (size & (size - 1)) != 0)
            return ir::IntType{intern("__SANITIZED_FAKE_INT__"), 4, encoding, 0, 32};
        return ir::IntType{name, size, encoding, 0, static_cast<uint8_t>(baseTypeBits(die))};
    }

    // clang puts btf_type_tag annotations under the pointer: they tag the pointee, in order.
    TypeId taggedPointee(uint32_t index) {
        TypeId target = resolve(unit_.dies[index].type);
        forEachChild(index, [&](uint32_t, const Die& child) {
            if (isAnnotation(child) && child.name == "btf_type_tag")
                target = out_.graph.add(
                    ir::TypeTagType{intern(unit_.rareOf(child).stringValue), target});
        });
        return target;
    }

    void addDeclTags(uint32_t index, TypeId target, int32_t component = -1) {
        forEachChild(index, [&](uint32_t, const Die& child) {
            if (isAnnotation(child) && child.name == "btf_decl_tag")
                out_.graph.add(
                    ir::DeclTagType{intern(unit_.rareOf(child).stringValue), target, component});
        });
    }

    // DW_AT_alignment of a struct, union or member, as the attribute it was declared with.
    void addAlignmentTag(uint32_t index, TypeId target, int32_t component = -1) {
        if (uint32_t alignment = unit_.dies[index].alignment; declarationTags_ && alignment)
            out_.graph.add(ir::DeclTagType{intern("aligned(" + std::to_string(alignment) + ")"),
                                           target, component, true});
    }

    void fillComposite(uint32_t index, TypeId id, ir::StrId name) {
        const Die& die = unit_.dies[index];
        bool isUnion = die.tag == DW_TAG_union_type;
        if (die.has(kDeclaration) && die.firstChild == kNoIndex) {
            out_.graph.replace(id, ir::FwdType{name, isUnion});
            return;
        }
        if (const char* why = compositeBeyondLimits(index)) {
            unmapped(die, why);
            out_.graph.replace(id, ir::FwdType{name, isUnion});
            return;
        }
        members_.clear();
        memberDies_.clear();
        forEachChild(index, [&](uint32_t c, const Die& child) {
            if (child.tag == DW_TAG_inheritance) {
                unmapped(child, "C++ base classes have no BTF form; members kept, base dropped");
                return;
            }
            // Static data members are declarations of variables, not part of the layout.
            if (child.tag != DW_TAG_member || child.has(kDeclaration) || child.has(kExternal))
                return;
            prefetchName(c + kNamesAhead);
            members_.push_back(member(child));
            memberDies_.push_back(c);
        });
        auto size = static_cast<uint32_t>(die.byteSize);
        if (isUnion)
            out_.graph.replace(id, ir::UnionType{name, size, members_});
        else
            out_.graph.replace(id, ir::StructType{name, size, members_});
        addDeclTags(index, id);
        addAlignmentTag(index, id);
        for (size_t m = 0; m < memberDies_.size(); ++m) {
            addDeclTags(memberDies_[m], id, static_cast<int32_t>(m));
            addAlignmentTag(memberDies_[m], id, static_cast<int32_t>(m));
        }
        if (declarationTags_)
            tagNestedTypes(index, id);
    }

    // A struct, union or enum defined inside a function is tagged kLocalTypeTag (a declaration
    // there means the file-scope type).
    void tagLocalType(uint32_t index, TypeId id) {
        if (!declarationTags_ || unit_.dies[index].has(kDeclaration))
            return;
        for (uint32_t at = unit_.dies[index].parent; at != kNoIndex; at = unit_.dies[at].parent) {
            if (unit_.dies[at].tag == DW_TAG_subprogram) {
                out_.graph.add(ir::DeclTagType{intern(kLocalTypeTag), id, -1});
                return;
            }
        }
    }

    // clang declares a member's anonymous type inside the struct's DIE, right after the member:
    // that member is tagged kNestedTypeTag.
    void tagNestedTypes(uint32_t index, TypeId id) {
        size_t members = 0; // members before the child
        forEachChild(index, [&](uint32_t c, const Die& child) {
            if (members < memberDies_.size() && memberDies_[members] == c) {
                ++members;
                return;
            }
            const bool tagged = child.tag == DW_TAG_structure_type ||
                                child.tag == DW_TAG_union_type ||
                                child.tag == DW_TAG_enumeration_type;
            if (members && tagged && typeLeadsTo(memberDies_[members - 1], c))
                out_.graph.add(
                    ir::DeclTagType{intern(kNestedTypeTag), id, static_cast<int32_t>(members - 1)});
        });
    }

    // Whether a member's type is DIE `target`, through pointers, qualifiers and arrays.
    bool typeLeadsTo(uint32_t member, uint32_t target) const {
        for (uint32_t at = member; at != kNoIndex;) {
            DieOffset next = unit_.dies[at].type;
            at = next == kNoDie ? kNoIndex : index_.find(next);
            if (at == target)
                return true;
            if (at == kNoIndex)
                return false;
            switch (unit_.dies[at].tag) {
            case DW_TAG_pointer_type:
            case DW_TAG_const_type:
            case DW_TAG_volatile_type:
            case DW_TAG_restrict_type:
            case DW_TAG_array_type:
                break;
            default:
                return false;
            }
        }
        return false;
    }

    ir::Member member(const Die& die) {
        ir::Member m;
        m.name = identifier(die.name);
        m.type = resolve(die.type);
        const RareAttributes& rare = unit_.rareOf(die);
        uint64_t bitOffset =
            die.has(kHasDataBitOffset) ? rare.dataBitOffset : die.dataMemberLocation * 8;
        if (die.has(kHasBitSize)) {
            m.bitfieldSize = static_cast<uint32_t>(rare.bitSize);
            if (die.has(kHasBitOffset)) {
                // DWARF 2-4 count from the most significant bit of the storage unit. That is
                // its first bit on a big-endian target; on a little-endian one, its last.
                if (target_.isBigEndian()) {
                    bitOffset += rare.bitOffset;
                } else {
                    uint64_t storage = die.has(kHasByteSize) ? die.byteSize : byteSizeOf(die.type);
                    bitOffset += storage * 8 - rare.bitOffset - rare.bitSize;
                }
            }
        }
        m.bitOffset = static_cast<uint32_t>(bitOffset);
        return m;
    }

    void fillEnum(uint32_t index, TypeId id, ir::StrId name) {
        const Die& die = unit_.dies[index];
        enumerators_.clear();
        bool isSigned = false;
        forEachChild(index, [&](uint32_t, const Die& child) {
            if (child.tag != DW_TAG_enumerator)
                return;
            enumerators_.push_back({identifier(child.name), child.constValue});
            if (child.has(kConstValueSigned) && static_cast<int64_t>(child.constValue) < 0)
                isSigned = true;
        });
        const uint64_t byteSize = die.has(kHasByteSize) ? die.byteSize : 4;
        if (enumerators_.size() > btf::kMaxVlen || byteSize > 8) {
            unmapped(die, enumerators_.size() > btf::kMaxVlen
                              ? "enum of more than 65,535 values, BTF's limit; encoded as an "
                                "integer of its size"
                              : "enum wider than BTF's 8 bytes; encoded as an integer");
            out_.graph.replace(id, byteSize > kMaxIntBytes
                                       ? ir::TypeView{ir::FwdType{}}
                                       : ir::TypeView{ir::IntType{
                                             name, static_cast<uint32_t>(byteSize),
                                             isSigned ? ir::int_encoding::kSigned : uint8_t{0}, 0,
                                             static_cast<uint8_t>(byteSize * 8)}});
            return;
        }
        auto size = static_cast<uint32_t>(byteSize);
        // A value a 32-bit ENUM cannot hold (malformed, or an enum of 4 bytes or less with wide
        // constants) keeps its size as ENUM64 rather than lose its upper bits.
        if (size > 4 ||
            !std::all_of(enumerators_.begin(), enumerators_.end(),
                         [&](const ir::Enumerator& e) { return fitsEnum32(e.value, isSigned); })) {
            out_.graph.replace(id, ir::Enum64Type{name, size, enumerators_, isSigned});
            return;
        }
        for (ir::Enumerator& e : enumerators_)
            e.value &= 0xffffffffu; // a negative value's sign extension
        out_.graph.replace(id, ir::EnumType{name, size, enumerators_, isSigned});
    }

    TypeId arrayIndexType() {
        if (indexType_ == ir::kVoidType)
            indexType_ =
                out_.graph.add(ir::IntType{intern("int"), 4, ir::int_encoding::kSigned, 0, 32});
        return indexType_;
    }

    // int m[3][4] is ARRAY(3) of ARRAY(4) of int: one ARRAY per subrange, outermost first; or,
    // flattened, ARRAY(12) of int.
    void fillArray(uint32_t index, TypeId id) {
        std::vector<uint32_t> counts;
        forEachChild(index, [&](uint32_t, const Die& child) {
            if (child.tag != DW_TAG_subrange_type && child.tag != DW_TAG_enumeration_type)
                return;
            uint64_t count = 0;
            if (child.has(kHasCount))
                count = child.bound;
            else if (child.has(kHasUpperBound) &&
                     !(child.has(kConstValueSigned) && static_cast<int64_t>(child.bound) < 0))
                count = child.bound + 1;
            counts.push_back(static_cast<uint32_t>(std::min<uint64_t>(count, UINT32_MAX)));
        });
        if (counts.empty())
            counts.push_back(0);
        if (arrays_ == ArrayShape::Flattened) {
            uint64_t total = 1;
            for (uint32_t count : counts)
                total = std::min<uint64_t>(total * count, UINT32_MAX);
            counts.assign(1, static_cast<uint32_t>(total));
        }
        TypeId element = resolve(unit_.dies[index].type);
        TypeId indexType = arrayIndexType();
        for (size_t d = counts.size(); d-- > 1;)
            element = out_.graph.add(ir::ArrayType{ir::kNoName, element, indexType, counts[d]});
        out_.graph.replace(id, ir::ArrayType{ir::kNoName, element, indexType, counts[0]});
    }

    void fillPrototype(uint32_t index, TypeId id) {
        params_.clear();
        forEachChild(index, [&](uint32_t, const Die& child) {
            if (child.tag == DW_TAG_formal_parameter)
                params_.push_back({identifier(child.name), resolve(child.type)});
            else if (child.tag == DW_TAG_unspecified_parameters)
                params_.push_back({ir::kNoName, ir::kVoidType});
        });
        if (params_.size() > btf::kMaxVlen) {
            unmapped(unit_.dies[index], "prototype of more than 65,535 parameters, BTF's limit; "
                                        "encoded as (...)");
            params_.assign(1, {ir::kNoName, ir::kVoidType});
        }
        out_.graph.replace(
            id, ir::FuncProtoType{ir::kNoName, resolve(unit_.dies[index].type), params_});
    }

    // --- functions ---
    // The DIEs that describe one function: the concrete instance, its abstract origin, and the
    // declarations either points to with DW_AT_specification.
    struct FunctionDies {
        std::vector<const Die*> chain;
        std::string_view name() const {
            for (const Die* d : chain) {
                if (!d->name.empty())
                    return d->name;
            }
            return {};
        }
        bool any(DieFlag flag) const {
            return std::any_of(chain.begin(), chain.end(),
                               [&](const Die* d) { return d->has(flag); });
        }
        DieOffset returnType() const {
            for (const Die* d : chain) {
                if (d->type != kNoDie)
                    return d->type;
            }
            return kNoDie;
        }
    };

    FunctionDies functionChain(const Die& die) {
        FunctionDies f;
        f.chain.push_back(&die);
        for (size_t i = 0; i < f.chain.size() && f.chain.size() < 8; ++i) {
            for (DieOffset next : {f.chain[i]->abstractOrigin, f.chain[i]->specification}) {
                if (const Die* d = dieAt(next))
                    f.chain.push_back(d);
                else if (next != kNoDie && next != kLostDie)
                    out_.outsideOrigins.push_back(next);
            }
        }
        return f;
    }

    // Formal parameters of a DIE's children, as indexes, in order.
    std::vector<uint32_t> formalParameters(const Die& owner) const {
        std::vector<uint32_t> result;
        uint32_t index = indexOf(owner);
        if (index == kNoIndex)
            return result;
        forEachChild(index, [&](uint32_t c, const Die& child) {
            if (child.tag == DW_TAG_formal_parameter)
                result.push_back(c);
        });
        return result;
    }

    // The register a parameter arrived in, from its first location expression (a register, or
    // a base register whose value is the parameter) or an entry-value entry; -1 if unknown.
    int argumentRegister(const Die& param) const {
        auto ops = unit_.location(param);
        if (ops.size() == 2 && ops[1].atom == DW_OP_stack_value)
            ops = ops.first(1);
        if (!ops.empty()) {
            uint8_t atom = ops[0].atom;
            if (atom >= DW_OP_reg0 && atom <= DW_OP_reg31)
                return atom - DW_OP_reg0;
            if (atom >= DW_OP_breg0 && atom <= DW_OP_breg31 && ops.back().atom == DW_OP_stack_value)
                return atom - DW_OP_breg0;
        }
        const uint8_t entry = unit_.rareOf(param).entryValueRegister;
        return entry == 0xff ? -1 : entry;
    }

    // Whether the DWARF gives a parameter's value without the caller passing it: a constant,
    // or an address.
    bool valueKnown(const Die& param) const {
        if (param.has(kHasConstValue))
            return true;
        auto ops = unit_.location(param);
        if (ops.empty())
            return false;
        const uint8_t atom = ops[0].atom;
        return atom == DW_OP_addr || (atom >= DW_OP_lit0 && atom <= DW_OP_lit31) ||
               (atom >= DW_OP_const1u && atom <= DW_OP_consts) || atom == DW_OP_implicit_value;
    }

    bool inFrame(const Die& param) const {
        auto ops = unit_.location(param);
        return !ops.empty() && ops[0].atom == DW_OP_fbreg;
    }

    // A parameter's type as the calling convention sees it, through typedefs and qualifiers.
    ArgumentShape argumentShape(DieOffset type) const {
        ArgumentShape shape;
        shape.incomplete = true; // until a type with a size is reached
        for (int hops = 0; hops < 64; ++hops) {
            const Die* d = dieAt(type);
            if (!d)
                return shape;
            switch (d->tag) {
            case DW_TAG_typedef:
            case DW_TAG_const_type:
            case DW_TAG_volatile_type:
            case DW_TAG_restrict_type:
            case DW_TAG_atomic_type:
                type = d->type;
                continue;
            case DW_TAG_structure_type:
            case DW_TAG_class_type:
            case DW_TAG_union_type:
                shape.isAggregate = true;
                break;
            case DW_TAG_base_type:
                shape.isFloat = d->encoding == DW_ATE_float || d->encoding == DW_ATE_complex_float;
                break;
            default:
                break;
            }
            bool pointerLike = d->tag == DW_TAG_pointer_type || d->tag == DW_TAG_reference_type ||
                               d->tag == DW_TAG_rvalue_reference_type;
            shape.isPointer = pointerLike;
            shape.size = d->has(kHasByteSize) ? d->byteSize
                         : pointerLike        ? unit_.addressSize
                                              : byteSizeOf(d->type);
            shape.incomplete = shape.size == 0 && !d->has(kHasByteSize);
            return shape;
        }
        return shape;
    }

    // Every definition of a function is an observation: out-of-line code (low_pc or ranges),
    // abstract instances of inlined functions, and what assemblers describe. All of them must
    // agree for a FUNC to be trusted; the ones with code pick which prototype is emitted.
    void observeFunction(uint32_t index) {
        const Die& die = unit_.dies[index];
        if (die.has(kDeclaration))
            return;
        // gcc's LTO writes, in each partition, a stub (an abstract origin, no code) for the
        // functions it refers to; it says nothing its origin does not, and its missing
        // parameters are not a prototype.
        if (die.abstractOrigin != kNoDie && !die.has(kHasLowPc))
            return;
        FunctionDies f = functionChain(die);
        std::string_view name = f.name();
        if (name.empty() || (observe_ && !observe_(name)))
            return;

        UnitObservations& obs = out_.observations;
        FunctionObservation fo;
        fo.name = out_.observations.text.store(name);
        fo.die = die.offset;
        fo.unit = unitOrder_;
        fo.lowPc = unit_.rareOf(die).lowPc;
        fo.hasLowPc = die.has(kHasLowPc);
        fo.returnType = resolve(f.returnType());
        if (f.any(kExternal))
            fo.facts |= kFunctionExternal;
        if (!die.has(kInlined)) {
            for (const Die* d : f.chain) {
                if (d->callingConvention == DW_CC_nocall)
                    fo.facts |= kFunctionNoCall;
            }
        }
        fo.paramFirst = static_cast<uint32_t>(obs.params.size());

        // Parameters as this DIE lists them; a concrete instance points each back at the
        // abstract one, whose position is the declared one.
        const Die* abstract = f.chain.size() > 1 ? f.chain[1] : nullptr;
        std::vector<uint32_t> declared =
            abstract ? formalParameters(*abstract) : std::vector<uint32_t>{};
        std::vector<uint32_t> params = formalParameters(die);
        if (params.size() > btf::kMaxVlen) {
            unmapped(die, "function of more than 65,535 parameters, BTF's limit; left out");
            return;
        }
        // Units of every producer are checked: clang marks the functions whose signature it
        // changed with DW_CC_nocall, but older versions do not, and moved parameters show in
        // the entry locations either way.
        std::optional<ArgumentRegisters> registers;
        // The signature the code really has (true_signature): the parameters still arriving
        // in a register, in declared order, each where the convention puts it among them.
        std::optional<ArgumentRegisters> arriving;
        if (convention_) {
            registers.emplace(*convention_);
            arriving.emplace(*convention_);
        }
        bool trueSignatureKnown = convention_ != nullptr;
        bool anyArriving = false;
        size_t lastArriving = 0; // declared position
        bool anyAggregate = false;
        bool anyUnexpected = false;
        // Arguments BPF's model gives more registers than the convention does (aggregates
        // passed in memory, floating-point values): the first, how many registers ahead of the
        // convention the model is, and whether a later parameter arrives in another register
        // than the model gives it.
        size_t firstBeyond = params.size();
        size_t beyondSoFar = 0;
        bool shifted = false;
        for (size_t p = 0; p < params.size(); ++p) {
            const Die& param = unit_.dies[params[p]];
            const Die* origin = dieAt(param.abstractOrigin);
            ParamObservation po;
            po.name = !param.name.empty() ? param.name : origin ? origin->name : std::string_view();
            po.name = obs.text.store(po.name);
            if (po.name.empty()) {
                obs.params.resize(fo.paramFirst); // an unnamed parameter: not a usable prototype
                return;
            }
            DieOffset type = param.type != kNoDie ? param.type : origin ? origin->type : kNoDie;
            po.type = resolve(type);
            ArgumentShape shape = argumentShape(type);
            // One without members has none to classify (below).
            anyAggregate |= shape.isAggregate && !shape.isEmptyAggregate();
            size_t position = p;
            if (origin) {
                auto it = std::find(declared.begin(), declared.end(), indexOf(*origin));
                if (it != declared.end())
                    position = static_cast<size_t>(it - declared.begin());
                if (position != p)
                    fo.facts |= kFunctionReorderedParams;
            }
            const int reg = param.has(kHasLocation) ? argumentRegister(param) : -1;
            const size_t beyond = registers ? registers->slotsBeyondConvention(shape) : 0;
            const size_t slot = registers ? registers->used() : 0;
            int expected = registers ? registers->next(shape) : ArgumentRegisters::kNotInRegister;
            if (registers && reg >= 0) {
                const auto& bpfRegisters = convention_->argumentRegisters;
                const size_t bpfSlot = slot + beyondSoFar;
                const bool bpfReadsOther =
                    bpfSlot >= bpfRegisters.size() || bpfRegisters[bpfSlot] != reg;
                if (beyondSoFar > 0 && expected != ArgumentRegisters::kNotInRegister)
                    shifted |= bpfReadsOther;
                // BPF reads every argument from a general-purpose register (pahole likewise).
                if (shape.isFloat && bpfSlot < bpfRegisters.size() && bpfReadsOther)
                    po.facts |= kParamUnexpectedRegister;
            }
            if (shape.isFloat)
                po.facts |= kParamFloatingPoint;
            if (beyond > 0 && beyondSoFar == 0)
                firstBeyond = p;
            beyondSoFar += beyond;
            if (!param.has(kHasLocation)) {
                po.facts |= kParamOptimizedOut; // also when only a constant value is left
            } else if (expected != ArgumentRegisters::kNotInRegister) {
                if (reg < 0)
                    po.facts |= kParamOptimizedOut;
                else if (reg != expected)
                    po.facts |= kParamUnexpectedRegister;
            }
            // In the caller's frame at entry: passed in memory, if the convention says so too.
            const bool inMemory = reg < 0 && inFrame(param);
            if (reg < 0 && !inMemory) {
                // No location, a constant, the caller's value: a parameter the code is not
                // passed, wherever the convention (if one is known) would put it.
                po.facts |= kParamNotArriving | kParamOptimizedOut;
                // A pointer or aggregate the code does not receive may have been replaced by
                // what it points to or by its members (gcc's IPA-SRA, clang's argument
                // promotion), which arrive undescribed; unless the DWARF gives its value.
                if ((shape.isPointer || shape.isAggregate) && !valueKnown(param))
                    trueSignatureKnown = false;
            } else if (trueSignatureKnown) {
                const int slot = arriving->next(shape);
                trueSignatureKnown = (inMemory ? slot == ArgumentRegisters::kNotInRegister
                                               : !shape.isAggregate && slot == reg) &&
                                     (!anyArriving || position > lastArriving);
                anyArriving = true;
                lastArriving = position;
            }
            if (po.facts & kParamOptimizedOut)
                fo.facts |= kFunctionOptimizedParams;
            anyUnexpected |= (po.facts & kParamUnexpectedRegister) != 0;
            obs.params.push_back(po);
        }
        // An aggregate argument shifts what follows in ways the register model does not
        // follow closely enough (classification by member types, alignment); but where clang
        // says it changed the convention (DW_CC_nocall), an unexpected register is that change.
        // One passed in memory takes no register, where BPF's model gives every argument the
        // next: a later parameter it would read from another register than it arrives in.
        if (anyUnexpected && (!anyAggregate || (fo.facts & kFunctionNoCall)))
            fo.facts |= kFunctionUnexpectedRegister;
        if (shifted) {
            fo.facts |= kFunctionUnexpectedRegister;
            obs.params[fo.paramFirst + firstBeyond].facts |= kParamShiftsLaterOnes;
        }
        if (trueSignatureKnown)
            fo.facts |= kFunctionTrueSignatureKnown;
        fo.paramCount = static_cast<uint32_t>(obs.params.size()) - fo.paramFirst;
        for (const Die* d : f.chain) {
            bool varargs = false;
            forEachChild(indexOf(*d), [&](uint32_t, const Die& child) {
                varargs |= child.tag == DW_TAG_unspecified_parameters;
            });
            if (varargs)
                fo.facts |= kFunctionVarargs;
        }

        fo.tagFirst = static_cast<uint32_t>(obs.tags.size());
        for (const Die* d : f.chain)
            observeTags(*d, -1);
        std::vector<uint32_t> tagged = abstract ? declared : params;
        for (size_t p = 0; p < tagged.size(); ++p)
            observeTags(unit_.dies[tagged[p]], static_cast<int32_t>(p));
        fo.tagCount = static_cast<uint32_t>(obs.tags.size()) - fo.tagFirst;
        obs.functions.push_back(fo);
    }

    void observeTags(const Die& owner, int32_t component) {
        uint32_t index = indexOf(owner);
        if (index == kNoIndex)
            return;
        forEachChild(index, [&](uint32_t, const Die& child) {
            if (isAnnotation(child) && child.name == "btf_decl_tag")
                out_.observations.tags.push_back(
                    {out_.observations.text.store(unit_.rareOf(child).stringValue), component});
        });
    }

    // --- variables ---
    // Units mapped together (UnitDies::append) have a unit DIE each: those have no parent.
    bool isFileScope(const Die& die) const {
        if (die.parent == kNoIndex)
            return false;
        const Die& parent = unit_.dies[die.parent];
        return parent.parent == kNoIndex || parent.tag == DW_TAG_namespace;
    }

    void observeVariable(uint32_t index) {
        const Die& die = unit_.dies[index];
        if (die.has(kDeclaration) || die.has(kArtificial))
            return;
        // Only statically allocated variables have a place in a data section.
        auto ops = unit_.location(die);
        bool plusConstant = ops.size() == 2 && ops[1].atom == DW_OP_plus_uconst;
        if (ops.empty() || ops[0].atom != DW_OP_addr || (ops.size() > 1 && !plusConstant))
            return;
        const Die* declaration = dieAt(die.specification);
        VariableObservation vo;
        vo.name = !die.name.empty() ? die.name
                  : declaration     ? declaration->name
                                    : std::string_view();
        if (vo.name.empty())
            return;
        vo.name = out_.observations.text.store(vo.name);
        vo.die = die.offset;
        vo.unit = unitOrder_;
        vo.type = resolve(die.type != kNoDie ? die.type : declaration ? declaration->type : kNoDie);
        vo.external = die.has(kExternal) || (declaration && declaration->has(kExternal));
        vo.address = ops[0].number + (plusConstant ? ops[1].number : 0);
        vo.hasAddress = true;
        vo.tagFirst = static_cast<uint32_t>(out_.observations.tags.size());
        observeTags(die, -1);
        if (declaration)
            observeTags(*declaration, -1);
        vo.tagCount = static_cast<uint32_t>(out_.observations.tags.size()) - vo.tagFirst;
        out_.observations.variables.push_back(vo);
    }

    void unmapped(const Die& die, const char* why) {
        for (UnmappedDies& u : out_.unmapped) {
            if (u.tag == die.tag && std::string_view(u.why) == why) {
                ++u.count;
                return;
            }
        }
        out_.unmapped.push_back({die.tag, die.offset, 1, why, std::string(die.name)});
    }

    // --- BTF's limits: what does not fit says less (void, a declaration), never a cut number ---
    static constexpr uint64_t kMaxIntBytes = 16;
    static constexpr uint64_t kMaxIntBits = 128;
    static constexpr uint64_t kMaxBitfieldBits = 255;
    static constexpr uint64_t kMaxFlaggedBitOffset = (1u << 24) - 1; // kind_flag member offsets

    uint64_t baseTypeBits(const Die& die) const {
        if (die.has(kHasBitSize))
            return unit_.rareOf(die).bitSize;
        return die.byteSize > kMaxIntBytes ? UINT64_MAX : die.byteSize * 8;
    }

    static bool fitsEnum32(uint64_t value, bool isSigned) {
        const auto asSigned = static_cast<int64_t>(value);
        return value <= UINT32_MAX || (isSigned && asSigned >= INT32_MIN && asSigned < 0);
    }

    // An element count of 2^32 or more in one dimension, or in all of them when flattened, or
    // 4 GiB or more in all.
    bool arrayBeyondLimits(uint32_t index) const {
        uint64_t total = 1;
        bool beyond = false;
        forEachChild(index, [&](uint32_t, const Die& child) {
            if (child.tag != DW_TAG_subrange_type ||
                !(child.has(kHasCount) || child.has(kHasUpperBound)))
                return;
            if (child.has(kHasUpperBound) && child.has(kConstValueSigned) &&
                static_cast<int64_t>(child.bound) < 0)
                return;
            const uint64_t count = child.bound + (child.has(kHasCount) ? 0 : 1);
            beyond |= count > UINT32_MAX || count < child.bound;
            total = count && total > UINT32_MAX / count ? UINT64_MAX : total * count;
        });
        // The kernel refuses an array whose bytes overflow 32 bits, too.
        const uint64_t element = byteSizeOf(unit_.dies[index].type);
        return beyond || (arrays_ == ArrayShape::Flattened && total > UINT32_MAX) ||
               (element && total > UINT32_MAX / element);
    }

    // Why a struct or union cannot be BTF (its size, members or their offsets), or null.
    const char* compositeBeyondLimits(uint32_t index) const {
        if (unit_.dies[index].byteSize > UINT32_MAX)
            return "struct or union of 4 GiB or more, past BTF's size field; encoded as a "
                   "declaration";
        size_t members = 0;
        bool bitfields = false;
        uint64_t farthest = 0; // bits
        forEachChild(index, [&](uint32_t, const Die& child) {
            if (child.tag != DW_TAG_member || child.has(kDeclaration) || child.has(kExternal))
                return;
            ++members;
            bitfields |= child.has(kHasBitSize);
            // Bounds the offset member() computes (DWARF 2-4 bitfields add less than the
            // storage unit) without repeating it.
            const RareAttributes& rare = unit_.rareOf(child);
            uint64_t offset = child.has(kHasDataBitOffset) ? rare.dataBitOffset
                              : child.dataMemberLocation > UINT32_MAX / 8
                                  ? UINT64_MAX
                                  : child.dataMemberLocation * 8;
            if (child.has(kHasBitSize) && child.has(kHasBitOffset))
                offset = offset > UINT32_MAX ? offset : offset + rare.bitSize;
            if (child.has(kHasBitSize) && rare.bitSize > kMaxBitfieldBits)
                offset = UINT64_MAX;
            farthest = std::max(farthest, offset);
        });
        if (members > btf::kMaxVlen)
            return "struct or union of more than 65,535 members, BTF's limit; encoded as a "
                   "declaration";
        if (farthest > UINT32_MAX)
            return "struct or union with a member past BTF's 2^32-bit offsets; encoded as a "
                   "declaration";
        if (bitfields && farthest > kMaxFlaggedBitOffset)
            return "struct or union with bitfields and a member past 2^24 bits, beyond BTF's "
                   "bitfield encoding; encoded as a declaration";
        return nullptr;
    }

    const UnitDies& unit_;
    uint32_t unitOrder_;
    ArrayShape arrays_;
    bool declarationTags_;
    const FunctionFilter& observe_;
    const elf::Target& target_;
    const CallingConvention* convention_;
    DieIndex index_;
    MappedUnit out_;
    std::vector<TypeId> dieType_;
    std::vector<Shape> shape_;
    TypeId indexType_ = ir::kVoidType;
    // Scratch lists reused across types.
    std::vector<ir::Member> members_;
    std::vector<uint32_t> memberDies_;
    std::vector<ir::Enumerator> enumerators_;
    std::vector<ir::Param> params_;
};

} // namespace

MappedUnit mapUnit(const UnitDies& unit, uint32_t unitOrder, const MappingRules& rules) {
    return Mapper(unit, unitOrder, rules).run();
}

} // namespace btforge::dwarf
