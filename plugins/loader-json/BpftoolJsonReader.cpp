// bpftool's JSON -> TypeGraph. Boost.JSON parses the whole document (syntax errors carry their
// byte offset; nesting is bounded), then two passes walk it: the first reads every type's id and
// kind and numbers the types in id order, the second decodes each type into the graph, checking
// every field and resolving references through that numbering. What needs several types (FUNC
// targets, DECL_TAG components, loops) is btf/TypeChecks.h's, as for BTF input.
#include "BpftoolJsonReader.h"

#include "btforge/btf/BtfReader.h"
#include "btforge/btf/TypeChecks.h"
#include "btforge/support/Quoted.h"

#include <boost/json/monotonic_resource.hpp>
#include <boost/json/stream_parser.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <string_view>
#include <vector>

namespace btforge::json {
namespace {

namespace bj = boost::json;
using ir::Kind;
using ir::StrId;
using ir::TypeId;

// The document nests five deep ({"types":[{"members":[{...}]}]}); anything much deeper is not
// bpftool's and is refused while parsing, before it costs memory.
constexpr size_t kMaxDepth = 8;
// The kernel refuses longer names (KSYM_NAME_LEN is 512 with the NUL).
constexpr size_t kMaxNameLength = 511;
constexpr uint32_t kMaxIntBits = 128;
constexpr uint32_t kMaxFlaggedBitOffset = (1u << 24) - 1;

// bpftool's spelling of a name offset of 0.
constexpr std::string_view kAnonymous = "(anon)";

// The fields each kind has in bpftool's JSON, its own after id, kind and name ("vlen" may be left
// out; "bitfield_size", "addr" and the tags' "kind_flag" are optional).
std::span<const std::string_view> fieldsOf(Kind kind) {
    static constexpr std::string_view kInt[] = {"size", "bits_offset", "nr_bits", "encoding"};
    static constexpr std::string_view kReference[] = {"type_id"};
    static constexpr std::string_view kArray[] = {"type_id", "index_type_id", "nr_elems"};
    static constexpr std::string_view kComposite[] = {"size", "vlen", "members"};
    static constexpr std::string_view kEnumeration[] = {"encoding", "size", "vlen", "values"};
    static constexpr std::string_view kFwd[] = {"fwd_kind"};
    static constexpr std::string_view kFunc[] = {"type_id", "linkage", "addr"};
    static constexpr std::string_view kFuncProto[] = {"ret_type_id", "vlen", "params"};
    static constexpr std::string_view kVar[] = {"type_id", "linkage"};
    static constexpr std::string_view kDatasec[] = {"size", "vlen", "vars"};
    static constexpr std::string_view kFloat[] = {"size"};
    static constexpr std::string_view kTypeTag[] = {"type_id", "kind_flag"};
    static constexpr std::string_view kDeclTag[] = {"type_id", "component_idx", "kind_flag"};
    if (kind == Kind::TypeTag)
        return kTypeTag;
    if (ir::isReferenceKind(kind))
        return kReference;
    switch (kind) {
    case Kind::Int:
        return kInt;
    case Kind::Array:
        return kArray;
    case Kind::Struct:
    case Kind::Union:
        return kComposite;
    case Kind::Enum:
    case Kind::Enum64:
        return kEnumeration;
    case Kind::Fwd:
        return kFwd;
    case Kind::Func:
        return kFunc;
    case Kind::FuncProto:
        return kFuncProto;
    case Kind::Var:
        return kVar;
    case Kind::Datasec:
        return kDatasec;
    case Kind::Float:
        return kFloat;
    case Kind::DeclTag:
        return kDeclTag;
    default: // void, and the reference kinds above
        return {};
    }
}

std::string_view valueKindName(const bj::value& v) {
    switch (v.kind()) {
    case bj::kind::null:
        return "null";
    case bj::kind::bool_:
        return "a boolean";
    case bj::kind::int64:
    case bj::kind::uint64:
    case bj::kind::double_:
        return "a number";
    case bj::kind::string:
        return "a string";
    case bj::kind::array:
        return "an array";
    case bj::kind::object:
        return "an object";
    }
    return "a value";
}

// A key as a JSON pointer token (RFC 6901: ~ and / escaped), cut, and its control bytes as \xNN
// (a message stays one line).
std::string pointerToken(std::string_view key) {
    constexpr size_t kMaxShown = 64;
    std::string out;
    for (unsigned char c : key.substr(0, kMaxShown)) {
        if (c == '~')
            out += "~0";
        else if (c == '/')
            out += "~1";
        else if (c < 0x20 || c == 0x7f)
            appendHexEscape(out, c);
        else
            out += static_cast<char>(c);
    }
    return key.size() > kMaxShown ? out + "..." : out;
}

// Where a value is: a field of type `type` (its index in "types"), or of item `item` of its list.
struct Where {
    size_t type;
    std::string_view list = {};
    size_t item = 0;

    Where at(std::string_view inList, size_t index) const { return {type, inList, index}; }
    // The JSON pointer (RFC 6901) of `field` here, or of the object itself when empty.
    std::string pointer(std::string_view field = {}) const {
        std::string out = "/types/" + std::to_string(type);
        if (!list.empty())
            out += "/" + std::string(list) + "/" + std::to_string(item);
        if (!field.empty())
            out += "/" + pointerToken(field);
        return out;
    }
};

// One type of the document as the first pass found it.
struct Entry {
    TypeId id;      // as the JSON gives it
    uint32_t index; // in "types"
    Kind kind;
};

class Reader {
public:
    Reader(const JsonReadOptions& options) : options_(options), graph_(options.base) {}

    Expected<ir::TypeGraph> read(const bj::value& document);

private:
    Expected<void> findTypes(const bj::array& types);
    Expected<void> numberTypes();
    Expected<void> decodeTypes(const bj::array& types);
    Expected<void> checkTypes();

    ir::TypeView decode(const bj::object& object, const Entry& entry);
    ir::TypeView decodeInt(const bj::object& object, Where where, StrId typeName);
    template <Kind K>
    ir::TypeView decodeComposite(const bj::object& object, Where where, StrId typeName);
    template <Kind K>
    ir::TypeView decodeEnumeration(const bj::object& object, Where where, StrId typeName);
    ir::TypeView decodeFunc(const bj::object& object, Where where, StrId typeName);
    ir::TypeView decodeFuncProto(const bj::object& object, Where where, StrId typeName);
    ir::TypeView decodeDatasec(const bj::object& object, Where where, StrId typeName);
    ir::TypeView decodeDeclTag(const bj::object& object, Where where, StrId typeName);
    bool attributeForm(const bj::object& object, Where where);

    // Each reads one field and checks it; a bad one is noted and reads as 0 (or empty).
    void checkFields(const bj::object& object, Where where, std::string_view what,
                     std::span<const std::string_view> allowed);
    const bj::value* field(const bj::object& object, Where where, std::string_view key);
    uint64_t number(const bj::object& object, Where where, std::string_view key, unsigned bits);
    int64_t signedNumber(const bj::object& object, Where where, std::string_view key, int64_t min,
                         int64_t max);
    std::string_view string(const bj::object& object, Where where, std::string_view key);
    StrId name(const bj::object& object, Where where);
    TypeId typeRef(const bj::object& object, Where where, std::string_view key);
    // One of `words` (by index), as bpftool spells a field's values.
    size_t word(const bj::object& object, Where where, std::string_view key,
                std::span<const std::string_view> words);
    // The array `key` of its items' objects, at most maxVlen long and as long as "vlen" if given.
    std::span<const bj::value> list(const bj::object& object, Where where, std::string_view key);
    const bj::object* item(const bj::value& value, Where where);

    Error error(const std::string& pointer, std::string_view what) const;
    void note(const std::string& pointer, std::string_view what);

    const JsonReadOptions& options_;
    ir::TypeGraph graph_;
    std::vector<Entry> entries_;  // by id once numbered
    std::vector<TypeId> jsonIds_; // entries_' ids, for looking references up
    std::optional<Error> failure_;
    std::vector<ir::Member> members_;
    std::vector<ir::Param> params_;
    std::vector<ir::Enumerator> enumerators_;
    std::vector<ir::VarSecInfo> entriesScratch_;
};

Expected<ir::TypeGraph> Reader::read(const bj::value& document) {
    const bj::object* root = document.if_object();
    if (!root)
        return error("", "the document is " + std::string(valueKindName(document)) +
                             ", not bpftool's {\"types\": [...]}");
    for (const auto& member : *root) {
        if (member.key() != "types")
            return error("/" + pointerToken(member.key()),
                         "unknown field " + quoted(member.key()) +
                             " (the document has only \"types\")");
    }
    const bj::value* types = root->if_contains("types");
    if (!types)
        return error("", "the document has no \"types\"");
    if (!types->is_array())
        return error("/types", "expected an array, found " + std::string(valueKindName(*types)));
    const bj::array& list = types->get_array();
    Expected<void> done = findTypes(list);
    if (done)
        done = numberTypes();
    if (done)
        done = decodeTypes(list);
    if (done)
        done = checkTypes();
    if (!done)
        return std::move(done).error();
    btf::judgePointerSize(graph_);
    return std::move(graph_);
}

Expected<void> Reader::findTypes(const bj::array& types) {
    if (types.size() > btf::kMaxTypeId - graph_.firstId())
        return error("/types", std::to_string(types.size()) + " types: more than BTF can number");
    entries_.reserve(types.size());
    for (size_t i = 0; i < types.size(); ++i) {
        const Where where{i};
        const bj::object* object = item(types[i], where);
        if (!object)
            return std::move(*failure_);
        const auto id = static_cast<TypeId>(number(*object, where, "id", 32));
        const std::string_view kindName = string(*object, where, "kind");
        if (failure_)
            return std::move(*failure_);
        if (id == ir::kVoidType)
            return error(where.pointer("id"), "id 0 is void, which no type may take");
        Kind kind = Kind::Void;
        for (unsigned k = 1; k <= ir::kMaxKind; ++k) {
            if (ir::kindName(static_cast<Kind>(k)) == kindName)
                kind = static_cast<Kind>(k);
        }
        if (kind == Kind::Void)
            return error(where.pointer("kind"), "unknown kind " + quoted(kindName) +
                                                    " (BTF's kinds are INT, PTR, ARRAY, STRUCT, "
                                                    "UNION, ENUM, FWD, TYPEDEF, VOLATILE, CONST, "
                                                    "RESTRICT, FUNC, FUNC_PROTO, VAR, DATASEC, "
                                                    "FLOAT, DECL_TAG, TYPE_TAG, ENUM64)");
        entries_.push_back({id, static_cast<uint32_t>(i), kind});
    }
    return {};
}

// Types take the graph's ids in the order of theirs, after the base's; a reference names a JSON id.
Expected<void> Reader::numberTypes() {
    std::sort(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) {
        return a.id != b.id ? a.id < b.id : a.index < b.index;
    });
    for (size_t i = 1; i < entries_.size(); ++i) {
        if (entries_[i].id == entries_[i - 1].id)
            return error(Where{entries_[i].index}.pointer("id"),
                         "id " + std::to_string(entries_[i].id) + " is also " +
                             Where{entries_[i - 1].index}.pointer() + "'s");
    }
    if (const ir::TypeGraph* base = options_.base.get();
        base && !entries_.empty() && entries_.front().id < base->endId())
        return error(Where{entries_.front().index}.pointer("id"),
                     "id " + std::to_string(entries_.front().id) +
                         " is inside the base's ids (1 to " + std::to_string(base->endId() - 1) +
                         "): split BTF's types continue after its base's");
    jsonIds_.reserve(entries_.size());
    for (const Entry& entry : entries_)
        jsonIds_.push_back(entry.id);
    return {};
}

Expected<void> Reader::decodeTypes(const bj::array& types) {
    graph_.reserve(entries_.size());
    for (const Entry& entry : entries_) {
        ir::TypeView view = decode(types[entry.index].get_object(), entry);
        if (failure_)
            return std::move(*failure_);
        graph_.add(view);
    }
    return {};
}

Expected<void> Reader::checkTypes() {
    const std::optional<btf::TypeFault> fault = btf::findTypeFault(graph_, jsonIds_);
    if (!fault)
        return {};
    const Where where{entries_[fault->id - graph_.firstId()].index};
    switch (fault->field) {
    case btf::TypeFault::Field::Record:
        return error(where.pointer(), fault->what);
    case btf::TypeFault::Field::Target:
        return error(where.pointer("type_id"), fault->what);
    case btf::TypeFault::Field::ComponentIndex:
        return error(where.pointer("component_idx"), fault->what);
    }
    return error(where.pointer(), fault->what);
}

ir::TypeView Reader::decode(const bj::object& object, const Entry& entry) {
    const Where where{entry.index};
    const Kind kind = entry.kind;
    checkFields(object, where, ir::kindName(kind), fieldsOf(kind));
    const StrId typeName = name(object, where);
    auto reference = [&]<Kind K>() {
        return ir::ReferenceType<K>{typeName, typeRef(object, where, "type_id")};
    };
    switch (kind) {
    case Kind::Int:
        return decodeInt(object, where, typeName);
    case Kind::Ptr:
        return reference.operator()<Kind::Ptr>();
    case Kind::Typedef:
        return reference.operator()<Kind::Typedef>();
    case Kind::Volatile:
        return reference.operator()<Kind::Volatile>();
    case Kind::Const:
        return reference.operator()<Kind::Const>();
    case Kind::Restrict:
        return reference.operator()<Kind::Restrict>();
    case Kind::TypeTag: {
        ir::TypeTagType tag = reference.operator()<Kind::TypeTag>();
        tag.kindFlag = attributeForm(object, where);
        return tag;
    }
    case Kind::Array:
        return ir::ArrayType{typeName, typeRef(object, where, "type_id"),
                             typeRef(object, where, "index_type_id"),
                             static_cast<uint32_t>(number(object, where, "nr_elems", 32))};
    case Kind::Struct:
        return decodeComposite<Kind::Struct>(object, where, typeName);
    case Kind::Union:
        return decodeComposite<Kind::Union>(object, where, typeName);
    case Kind::Enum:
        return decodeEnumeration<Kind::Enum>(object, where, typeName);
    case Kind::Enum64:
        return decodeEnumeration<Kind::Enum64>(object, where, typeName);
    case Kind::Fwd: {
        static constexpr std::string_view kFwdKinds[] = {"struct", "union"};
        return ir::FwdType{typeName, word(object, where, "fwd_kind", kFwdKinds) == 1};
    }
    case Kind::Func:
        return decodeFunc(object, where, typeName);
    case Kind::FuncProto:
        return decodeFuncProto(object, where, typeName);
    case Kind::Var: {
        static constexpr std::string_view kLinkages[] = {"static", "global", "extern"};
        return ir::VarType{typeName, typeRef(object, where, "type_id"),
                           static_cast<ir::VarLinkage>(word(object, where, "linkage", kLinkages))};
    }
    case Kind::Datasec:
        return decodeDatasec(object, where, typeName);
    case Kind::Float:
        return ir::FloatType{typeName, static_cast<uint32_t>(number(object, where, "size", 32))};
    case Kind::DeclTag:
        return decodeDeclTag(object, where, typeName);
    case Kind::Void:
        break;
    }
    return ir::VoidType{}; // unreachable: findTypes knows kinds 1-19 only
}

ir::TypeView Reader::decodeInt(const bj::object& object, Where where, StrId typeName) {
    // bpftool prints "UNKN" for several bits at once, which cannot be read back.
    static constexpr std::string_view kEncodings[] = {"(none)", "SIGNED", "CHAR", "", "BOOL"};
    const ir::IntType type{typeName, static_cast<uint32_t>(number(object, where, "size", 32)),
                           static_cast<uint8_t>(word(object, where, "encoding", kEncodings)),
                           static_cast<uint8_t>(number(object, where, "bits_offset", 8)),
                           static_cast<uint8_t>(number(object, where, "nr_bits", 8))};
    const uint32_t usedBits = uint32_t{type.bitOffset} + type.bits;
    if (usedBits > kMaxIntBits)
        note(where.pointer("nr_bits"), "bits_offset " + std::to_string(type.bitOffset) + " + " +
                                           std::to_string(type.bits) + " bits exceed 128");
    else if (usedBits > uint64_t{type.size} * 8)
        note(where.pointer("nr_bits"), "bits_offset " + std::to_string(type.bitOffset) + " + " +
                                           std::to_string(type.bits) + " bits do not fit in " +
                                           std::to_string(type.size) + " bytes");
    return type;
}

template <Kind K>
ir::TypeView Reader::decodeComposite(const bj::object& object, Where where, StrId typeName) {
    static constexpr std::string_view kFields[] = {"name", "type_id", "bits_offset",
                                                   "bitfield_size"};
    const auto size = static_cast<uint32_t>(number(object, where, "size", 32));
    members_.clear();
    const std::span<const bj::value> items = list(object, where, "members");
    for (size_t i = 0; i < items.size(); ++i) {
        const Where at = where.at("members", i);
        const bj::object* member = item(items[i], at);
        if (!member)
            break;
        checkFields(*member, at, "a member", kFields);
        ir::Member m{name(*member, at), typeRef(*member, at, "type_id"),
                     static_cast<uint32_t>(number(*member, at, "bits_offset", 32)), 0};
        if (member->contains("bitfield_size"))
            m.bitfieldSize = static_cast<uint32_t>(number(*member, at, "bitfield_size", 8));
        members_.push_back(m);
    }
    // A bitfield anywhere puts every member's offset in 24 bits (BTF's kind_flag encoding).
    const bool bitfields = std::any_of(members_.begin(), members_.end(),
                                       [](const ir::Member& m) { return m.bitfieldSize != 0; });
    for (size_t i = 0; bitfields && i < members_.size(); ++i) {
        if (members_[i].bitOffset > kMaxFlaggedBitOffset)
            note(where.at("members", i).pointer("bits_offset"),
                 "bits_offset " + std::to_string(members_[i].bitOffset) +
                     " does not fit the 24 bits BTF gives it in a struct with bitfields");
    }
    return ir::CompositeType<K>{typeName, size, members_, bitfields};
}

template <Kind K>
ir::TypeView Reader::decodeEnumeration(const bj::object& object, Where where, StrId typeName) {
    static constexpr std::string_view kFields[] = {"name", "val"};
    static constexpr std::string_view kEncodings[] = {"UNSIGNED", "SIGNED"};
    constexpr bool wide = K == Kind::Enum64;
    const bool isSigned = word(object, where, "encoding", kEncodings) == 1;
    const auto size = static_cast<uint32_t>(number(object, where, "size", 32));
    enumerators_.clear();
    const std::span<const bj::value> items = list(object, where, "values");
    for (size_t i = 0; i < items.size(); ++i) {
        const Where at = where.at("values", i);
        const bj::object* value = item(items[i], at);
        if (!value)
            break;
        checkFields(*value, at, "an enumerator", kFields);
        const StrId valueName = name(*value, at);
        const bj::value* val = field(*value, at, "val");
        if (!val)
            break;
        uint64_t bits = 0;
        const bool negative = val->is_int64() && val->get_int64() < 0;
        if (wide && isSigned) {
            bits = static_cast<uint64_t>(signedNumber(*value, at, "val",
                                                      std::numeric_limits<int64_t>::min(),
                                                      std::numeric_limits<int64_t>::max()));
        } else if (wide) {
            bits = number(*value, at, "val", 64);
        } else if (isSigned || negative) {
            bits = static_cast<uint32_t>(signedNumber(*value, at, "val",
                                                      std::numeric_limits<int32_t>::min(),
                                                      std::numeric_limits<int32_t>::max()));
        } else {
            // bpftool prints an unsigned ENUM's value through a signed 32-bit field: 0x80000000
            // comes out as 2^64 - 2^31. Either spelling reads back.
            bits = number(*value, at, "val", 64);
            constexpr uint64_t kSignExtended = 0xffffffff80000000;
            if (bits >= kSignExtended)
                bits &= 0xffffffff;
            else if (bits > std::numeric_limits<uint32_t>::max())
                note(at.pointer("val"), std::to_string(bits) +
                                            " does not fit an unsigned 32-bit ENUM (0 to "
                                            "4294967295; ENUM64 holds 64 bits)");
        }
        enumerators_.push_back({valueName, bits});
    }
    return ir::EnumerationType<K>{typeName, size, enumerators_, isSigned};
}

ir::TypeView Reader::decodeFunc(const bj::object& object, Where where, StrId typeName) {
    static constexpr std::string_view kLinkages[] = {"static", "global", "extern"};
    ir::FuncType func{typeName, typeRef(object, where, "type_id"),
                      static_cast<ir::FuncLinkage>(word(object, where, "linkage", kLinkages))};
    // The address-carrying FUNC extension (docs/func-addr-extension.md), as btforge writes it.
    if (!object.contains("addr"))
        return func;
    const std::string_view addr = string(object, where, "addr");
    uint64_t address = 0;
    const char* digits = addr.data() + std::min<size_t>(2, addr.size());
    const auto [end, status] = std::from_chars(digits, addr.data() + addr.size(), address, 16);
    if (!addr.starts_with("0x") || digits == addr.data() + addr.size() ||
        end != addr.data() + addr.size() || status != std::errc{})
        note(where.pointer("addr"),
             quoted(addr) + " is not an address: 0x and at most 16 hexadecimal digits");
    func.address = address;
    return func;
}

ir::TypeView Reader::decodeFuncProto(const bj::object& object, Where where, StrId typeName) {
    static constexpr std::string_view kFields[] = {"name", "type_id"};
    const TypeId returnType = typeRef(object, where, "ret_type_id");
    params_.clear();
    const std::span<const bj::value> items = list(object, where, "params");
    for (size_t i = 0; i < items.size(); ++i) {
        const Where at = where.at("params", i);
        const bj::object* param = item(items[i], at);
        if (!param)
            break;
        checkFields(*param, at, "a parameter", kFields);
        params_.push_back({name(*param, at), typeRef(*param, at, "type_id")});
    }
    return ir::FuncProtoType{typeName, returnType, params_};
}

ir::TypeView Reader::decodeDatasec(const bj::object& object, Where where, StrId typeName) {
    static constexpr std::string_view kFields[] = {"type_id", "offset", "size"};
    const auto size = static_cast<uint32_t>(number(object, where, "size", 32));
    entriesScratch_.clear();
    const std::span<const bj::value> items = list(object, where, "vars");
    for (size_t i = 0; i < items.size(); ++i) {
        const Where at = where.at("vars", i);
        const bj::object* var = item(items[i], at);
        if (!var)
            break;
        checkFields(*var, at, "a DATASEC entry", kFields);
        entriesScratch_.push_back({typeRef(*var, at, "type_id"),
                                   static_cast<uint32_t>(number(*var, at, "offset", 32)),
                                   static_cast<uint32_t>(number(*var, at, "size", 32))});
    }
    return ir::DatasecType{typeName, size, entriesScratch_};
}

ir::TypeView Reader::decodeDeclTag(const bj::object& object, Where where, StrId typeName) {
    return ir::DeclTagType{typeName, typeRef(object, where, "type_id"),
                           static_cast<int32_t>(signedNumber(object, where, "component_idx", -1,
                                                             std::numeric_limits<int32_t>::max())),
                           attributeForm(object, where)};
}

// A tag's "kind_flag" (1: the attribute form), which btforge's JSON adds and bpftool's lacks.
bool Reader::attributeForm(const bj::object& object, Where where) {
    return object.contains("kind_flag") && number(object, where, "kind_flag", 1) == 1;
}

void Reader::checkFields(const bj::object& object, Where where, std::string_view what,
                         std::span<const std::string_view> allowed) {
    const bool typeLevel = where.list.empty();
    for (const auto& member : object) {
        const std::string_view key = member.key();
        if (typeLevel && (key == "id" || key == "kind" || key == "name"))
            continue;
        if (std::find(allowed.begin(), allowed.end(), key) != allowed.end())
            continue;
        std::string known = typeLevel ? "id, kind, name" : "";
        for (std::string_view f : allowed)
            known += (known.empty() ? "" : ", ") + std::string(f);
        note(where.pointer(key), "unknown field " + quoted(key) + " (fields of " +
                                     std::string(what) + ": " + known + ")");
        return;
    }
}

const bj::value* Reader::field(const bj::object& object, Where where, std::string_view key) {
    const bj::value* value = object.if_contains(key);
    if (!value)
        note(where.pointer(), "missing field \"" + std::string(key) + "\"");
    return value;
}

uint64_t Reader::number(const bj::object& object, Where where, std::string_view key,
                        unsigned bits) {
    const bj::value* value = field(object, where, key);
    if (!value)
        return 0;
    const uint64_t max =
        bits == 64 ? std::numeric_limits<uint64_t>::max() : (uint64_t{1} << bits) - 1;
    if (value->is_uint64() && value->get_uint64() <= max)
        return value->get_uint64();
    if (value->is_int64() && value->get_int64() >= 0 &&
        static_cast<uint64_t>(value->get_int64()) <= max)
        return static_cast<uint64_t>(value->get_int64());
    std::string what;
    if (value->is_int64() && value->get_int64() < 0)
        what = std::to_string(value->get_int64()) + " is negative: expected 0 to " +
               std::to_string(max);
    else if (value->is_int64() || value->is_uint64())
        what = (value->is_int64() ? std::to_string(value->get_int64())
                                  : std::to_string(value->get_uint64())) +
               " does not fit in " + std::to_string(bits) + " bits (at most " +
               std::to_string(max) + ")";
    else if (value->is_double() && std::fabs(value->get_double()) >= 0x1p64)
        what = "a number beyond 64 bits: expected 0 to " + std::to_string(max);
    else if (value->is_double())
        what = "not an integer: expected 0 to " + std::to_string(max);
    else
        what = "expected a number, found " + std::string(valueKindName(*value));
    note(where.pointer(key), what);
    return 0;
}

int64_t Reader::signedNumber(const bj::object& object, Where where, std::string_view key,
                             int64_t min, int64_t max) {
    const bj::value* value = field(object, where, key);
    if (!value)
        return 0;
    if (value->is_int64() && value->get_int64() >= min && value->get_int64() <= max)
        return value->get_int64();
    const std::string range = std::to_string(min) + " to " + std::to_string(max);
    std::string what;
    if (value->is_int64())
        what = std::to_string(value->get_int64()) + " is out of range: expected " + range;
    else if (value->is_uint64())
        what = std::to_string(value->get_uint64()) + " is out of range: expected " + range;
    else if (value->is_double() && std::fabs(value->get_double()) >= 0x1p63)
        what = "a number beyond 64 bits: expected " + range;
    else if (value->is_double())
        what = "not an integer: expected " + range;
    else
        what = "expected a number, found " + std::string(valueKindName(*value));
    note(where.pointer(key), what);
    return 0;
}

std::string_view Reader::string(const bj::object& object, Where where, std::string_view key) {
    const bj::value* value = field(object, where, key);
    if (!value)
        return {};
    if (!value->is_string()) {
        note(where.pointer(key), "expected a string, found " + std::string(valueKindName(*value)));
        return {};
    }
    const bj::string& s = value->get_string();
    return {s.data(), s.size()};
}

StrId Reader::name(const bj::object& object, Where where) {
    const std::string_view s = string(object, where, "name");
    if (s == kAnonymous)
        return ir::kNoName;
    if (s.find('\0') != std::string_view::npos)
        note(where.pointer("name"), quoted(s) + " holds a NUL byte, which ends a BTF name");
    else if (s.size() > kMaxNameLength)
        note(where.pointer("name"),
             "a name of " + std::to_string(s.size()) + " bytes: BTF names are at most " +
                 std::to_string(kMaxNameLength) + " (the kernel's KSYM_NAME_LEN)");
    return failure_ ? ir::kNoName : graph_.intern(s);
}

TypeId Reader::typeRef(const bj::object& object, Where where, std::string_view key) {
    const auto id = static_cast<TypeId>(number(object, where, key, 32));
    if (id == ir::kVoidType || failure_)
        return ir::kVoidType;
    if (const ir::TypeGraph* base = options_.base.get(); base && id < base->endId())
        return id;
    const auto found = std::lower_bound(jsonIds_.begin(), jsonIds_.end(), id);
    if (found != jsonIds_.end() && *found == id)
        return graph_.firstId() + static_cast<TypeId>(found - jsonIds_.begin());
    std::string what = "refers to type [" + std::to_string(id) + "], which no type has";
    if (!options_.base && !jsonIds_.empty() && id < jsonIds_.front())
        what += " (if this is split BTF, give its base with -B)";
    note(where.pointer(key), what);
    return ir::kVoidType;
}

size_t Reader::word(const bj::object& object, Where where, std::string_view key,
                    std::span<const std::string_view> words) {
    const std::string_view s = string(object, where, key);
    if (failure_)
        return 0;
    for (size_t i = 0; i < words.size(); ++i) {
        if (!words[i].empty() && words[i] == s)
            return i;
    }
    std::string known;
    for (std::string_view w : words) {
        if (!w.empty())
            known += (known.empty() ? "" : ", ") + std::string(w);
    }
    note(where.pointer(key), quoted(s) + " is none of " + known);
    return 0;
}

std::span<const bj::value> Reader::list(const bj::object& object, Where where,
                                        std::string_view key) {
    const bj::value* value = field(object, where, key);
    if (!value)
        return {};
    if (!value->is_array()) {
        note(where.pointer(key), "expected an array, found " + std::string(valueKindName(*value)));
        return {};
    }
    const bj::array& items = value->get_array();
    if (items.size() > options_.maxVlen) {
        note(where.pointer(key),
             std::to_string(items.size()) + " items: BTF allows at most " +
                 std::to_string(options_.maxVlen) +
                 (options_.maxVlen < btf::kMaxWideVlen
                      ? " (" + std::to_string(btf::kMaxWideVlen) +
                            " with the layout feature: --features default,layout)"
                      : std::string()));
        return {};
    }
    if (object.contains("vlen")) {
        const uint64_t vlen = number(object, where, "vlen", 32);
        if (!failure_ && vlen != items.size())
            note(where.pointer("vlen"),
                 "vlen " + std::to_string(vlen) + " but \"" + std::string(key) + "\" has " +
                     std::to_string(items.size()) + " (vlen may be left out)");
    }
    return {items.data(), items.size()};
}

const bj::object* Reader::item(const bj::value& value, Where where) {
    const bj::object* object = value.if_object();
    if (!object)
        note(where.pointer(), "expected an object, found " + std::string(valueKindName(value)));
    return object;
}

Error Reader::error(const std::string& pointer, std::string_view what) const {
    return Error::badInput(options_.sourceName + ": " + (pointer.empty() ? "/" : pointer) + ": " +
                           std::string(what));
}

void Reader::note(const std::string& pointer, std::string_view what) {
    if (!failure_)
        failure_ = error(pointer, what);
}

// A syntax error's place, as editors count: byte offset, line and column (from 1).
std::string place(std::span<const char> text, size_t offset) {
    const size_t line =
        1 + static_cast<size_t>(std::count(text.begin(), text.begin() + offset, '\n'));
    size_t lineStart = offset;
    while (lineStart > 0 && text[lineStart - 1] != '\n')
        --lineStart;
    return "offset " + std::to_string(offset) + " (line " + std::to_string(line) + ", column " +
           std::to_string(offset - lineStart + 1) + ")";
}

} // namespace

Expected<ir::TypeGraph> readBpftoolJson(std::span<const std::byte> bytes,
                                        const JsonReadOptions& options) {
    const std::span<const char> text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    // One arena for the document, freed at once: a kernel's 18 MB parse into ~2 million values.
    bj::monotonic_resource arena;
    bj::parse_options parseOptions;
    parseOptions.max_depth = kMaxDepth;
    bj::stream_parser parser({}, parseOptions);
    parser.reset(&arena);
    bj::error_code ec;
    const size_t parsed = parser.write(text.data(), text.size(), ec);
    if (!ec)
        parser.finish(ec);
    if (ec) {
        const size_t at = std::min(parsed, text.size());
        std::string what = ec.message();
        if (ec == bj::error::too_deep)
            what = "nested deeper than " + std::to_string(kMaxDepth) +
                   " levels (bpftool's JSON nests 5)";
        else if (at == text.size())
            what = "the document ends early (truncated?): " + what;
        return Error::badInput(options.sourceName + ": " + place(text, at) + ": " + what);
    }
    const bj::value document = parser.release();
    return Reader(options).read(document);
}

} // namespace btforge::json
