// One walk over the kinds (describeType) reports every type as typed fields and lists; TextWriter
// and JsonWriter turn those into bpftool's two formats. Quirks that exist in only one format live
// in that format's writer. The reference is the installed bpftool 7.1 (Debian bookworm), whose
// output the unit tests pin byte for byte.
#include "BpftoolDump.h"

#include "btforge/support/Hex.h"

#include <charconv>
#include <concepts>
#include <cstring>
#include <memory>
#include <ostream>
#include <string_view>
#include <type_traits>
#include <variant>

namespace btforge::bpftool {
namespace {

using ir::Kind;
using ir::StrId;
using ir::TypeGraph;
using ir::TypeId;

// Gathers output in one block and hands it to the stream in large writes, so a field costs a
// memcpy or a to_chars: a kernel has ~130k types and several fields each.
class OutBuffer {
public:
    explicit OutBuffer(std::ostream& out)
        : out_(out), data_(std::make_unique_for_overwrite<char[]>(kCapacity)) {}

    void put(char c) {
        if (used_ == kCapacity)
            flush();
        data_[used_++] = c;
    }

    void put(std::string_view s) {
        if (s.size() > kCapacity - used_) {
            flush();
            if (s.size() > kCapacity) {
                out_.write(s.data(), static_cast<std::streamsize>(s.size()));
                return;
            }
        }
        std::memcpy(data_.get() + used_, s.data(), s.size());
        used_ += s.size();
    }

    template <std::integral T> void number(T value) {
        if (kMaxNumberChars > kCapacity - used_)
            flush();
        char* end = std::to_chars(data_.get() + used_, data_.get() + kCapacity, value).ptr;
        used_ = static_cast<size_t>(end - data_.get());
    }

    void flush() {
        out_.write(data_.get(), static_cast<std::streamsize>(used_));
        used_ = 0;
    }

private:
    static constexpr size_t kCapacity = 64 * 1024;
    static constexpr size_t kMaxNumberChars = 20; // UINT64_MAX, or INT64_MIN with its sign

    std::ostream& out_;
    std::unique_ptr<char[]> data_;
    size_t used_ = 0;
};

// bpftool's btf_str(): offset 0 is "(anon)"; any other valid offset is its string, even "".
std::string_view displayName(const TypeGraph& graph, StrId name) {
    if (name == ir::kNoName)
        return "(anon)";
    if (!graph.strings().isValid(name))
        return "(invalid)";
    return graph.str(name);
}

std::string_view intEncodingName(uint8_t encoding) {
    switch (encoding) {
    case 0:
        return "(none)";
    case ir::int_encoding::kSigned:
        return "SIGNED";
    case ir::int_encoding::kChar:
        return "CHAR";
    case ir::int_encoding::kBool:
        return "BOOL";
    default:
        return "UNKN"; // combinations are never spelled out
    }
}

// FUNC and VAR linkage share one spelling; loaders may keep out-of-range raw values.
std::string_view linkageName(unsigned linkage) {
    switch (linkage) {
    case 0:
        return "static";
    case 1:
        return "global";
    case 2:
        return "extern";
    default:
        return "(unknown)";
    }
}

// An enumerator's raw bits and how its enum says to read them; each format has its own rule.
struct EnumValue {
    uint64_t bits;
    bool isSigned;
    bool is64;
};

// In text, VAR's linkage follows a comma (" type_id=1, linkage=static"); JSON keys are all alike.
enum class TextSeparator { Space, Comma };

template <typename T>
constexpr bool isComposite = std::is_same_v<T, ir::StructType> || std::is_same_v<T, ir::UnionType>;
template <typename T>
constexpr bool isEnumeration = std::is_same_v<T, ir::EnumType> || std::is_same_v<T, ir::Enum64Type>;

// A tag's attribute form (kind_flag 1: `__attribute__((VALUE))`, not btf_type_tag or
// btf_decl_tag), which bpftool does not show: shown after what bpftool prints, so a JSON rewrite
// keeps it and BTF without such tags dumps exactly as bpftool dumps it.
template <typename Sink> void attributeForm(bool kindFlag, Sink& sink) {
    if (kindFlag)
        sink.unsignedField("kind_flag", 1);
}

// The walk both formats share: the fields of one type in bpftool's order. A sink is TextWriter or
// JsonWriter; list items are bracketed by beginItem/endItem inside beginList/endList.
template <typename Sink> void describeType(const TypeGraph& graph, TypeId id, Sink& sink) {
    std::visit(
        [&](const auto& type) {
            using T = std::decay_t<decltype(type)>;
            constexpr Kind kind = T::kKind;
            if constexpr (kind == Kind::Void) {
                sink.beginType(id, kind, ir::kNoName); // not produced by a graph; header only
            } else {
                sink.beginType(id, kind, type.name);
            }

            if constexpr (std::is_same_v<T, ir::IntType>) {
                sink.unsignedField("size", type.size);
                sink.unsignedField("bits_offset", type.bitOffset);
                sink.unsignedField("nr_bits", type.bits);
                sink.wordField("encoding", intEncodingName(type.encoding));
            } else if constexpr (ir::isReferenceKind(kind)) {
                sink.unsignedField("type_id", type.type);
                if constexpr (kind == Kind::TypeTag)
                    attributeForm(type.kindFlag, sink);
            } else if constexpr (std::is_same_v<T, ir::ArrayType>) {
                sink.unsignedField("type_id", type.elemType);
                sink.unsignedField("index_type_id", type.indexType);
                sink.unsignedField("nr_elems", type.count);
            } else if constexpr (isComposite<T>) {
                sink.unsignedField("size", type.size);
                sink.unsignedField("vlen", static_cast<uint32_t>(type.members.size()));
                sink.beginList("members");
                for (const ir::Member& member : type.members) {
                    sink.beginItem();
                    sink.nameField(member.name);
                    sink.unsignedField("type_id", member.type);
                    sink.unsignedField("bits_offset", member.bitOffset);
                    if (member.bitfieldSize != 0)
                        sink.unsignedField("bitfield_size", member.bitfieldSize);
                    sink.endItem();
                }
                sink.endList();
            } else if constexpr (isEnumeration<T>) {
                sink.wordField("encoding", type.isSigned ? "SIGNED" : "UNSIGNED");
                sink.unsignedField("size", type.size);
                sink.unsignedField("vlen", static_cast<uint32_t>(type.values.size()));
                sink.beginList("values");
                for (const ir::Enumerator& value : type.values) {
                    sink.beginItem();
                    sink.nameField(value.name);
                    sink.enumValueField(
                        "val", EnumValue{value.value, type.isSigned, kind == Kind::Enum64});
                    sink.endItem();
                }
                sink.endList();
            } else if constexpr (std::is_same_v<T, ir::FwdType>) {
                sink.wordField("fwd_kind", type.isUnion ? "union" : "struct");
            } else if constexpr (std::is_same_v<T, ir::FuncType>) {
                sink.unsignedField("type_id", type.proto);
                sink.wordField("linkage", linkageName(static_cast<unsigned>(type.linkage)));
                // The address-carrying FUNC extension, which bpftool cannot read: shown after
                // what bpftool prints, so standard BTF dumps exactly as it does.
                if (type.address)
                    sink.wordField("addr", hex(*type.address));
            } else if constexpr (std::is_same_v<T, ir::FuncProtoType>) {
                sink.unsignedField("ret_type_id", type.returnType);
                sink.unsignedField("vlen", static_cast<uint32_t>(type.params.size()));
                sink.beginList("params");
                for (const ir::Param& param : type.params) {
                    sink.beginItem();
                    sink.nameField(param.name);
                    sink.unsignedField("type_id", param.type);
                    sink.endItem();
                }
                sink.endList();
            } else if constexpr (std::is_same_v<T, ir::VarType>) {
                sink.unsignedField("type_id", type.type);
                sink.wordField("linkage", linkageName(static_cast<unsigned>(type.linkage)),
                               TextSeparator::Comma);
            } else if constexpr (std::is_same_v<T, ir::DatasecType>) {
                sink.unsignedField("size", type.size);
                sink.unsignedField("vlen", static_cast<uint32_t>(type.entries.size()));
                sink.beginList("vars");
                for (const ir::VarSecInfo& entry : type.entries) {
                    sink.beginItem();
                    sink.unsignedField("type_id", entry.type);
                    sink.unsignedField("offset", entry.offset);
                    sink.unsignedField("size", entry.size);
                    sink.referencedType(entry.type);
                    sink.endItem();
                }
                sink.endList();
            } else if constexpr (std::is_same_v<T, ir::FloatType>) {
                sink.unsignedField("size", type.size);
            } else if constexpr (std::is_same_v<T, ir::DeclTagType>) {
                sink.unsignedField("type_id", type.type);
                sink.signedField("component_idx", type.componentIndex);
                attributeForm(type.kindFlag, sink);
            }
            sink.endType();
        },
        graph.get(id));
}

// `[id] KIND 'name' key=value ...`, list items on their own `\n\t` lines; strings printed raw.
class TextWriter {
public:
    TextWriter(const TypeGraph& graph, OutBuffer& out) : graph_(graph), out_(out) {}

    void beginType(TypeId id, Kind kind, StrId name) {
        out_.put('[');
        out_.number(id);
        out_.put("] ");
        out_.put(ir::kindName(kind));
        out_.put(' ');
        quotedName(name);
    }
    void endType() { out_.put('\n'); }

    void unsignedField(std::string_view key, uint32_t value) {
        startField(key, TextSeparator::Space);
        out_.number(value);
    }
    void signedField(std::string_view key, int32_t value) {
        startField(key, TextSeparator::Space);
        out_.number(value);
    }
    void wordField(std::string_view key, std::string_view word,
                   TextSeparator separator = TextSeparator::Space) {
        startField(key, separator);
        out_.put(word);
    }
    // Items open with their name, bare: `'m' type_id=3 ...`.
    void nameField(StrId name) {
        separate(TextSeparator::Space);
        quotedName(name);
    }
    // ENUM prints the 32-bit value as its signedness says; ENUM64 adds C's LL/ULL suffix.
    void enumValueField(std::string_view key, EnumValue value) {
        startField(key, TextSeparator::Space);
        if (value.is64 && value.isSigned) {
            out_.number(static_cast<int64_t>(value.bits));
            out_.put("LL");
        } else if (value.is64) {
            out_.number(value.bits);
            out_.put("ULL");
        } else if (value.isSigned) {
            out_.number(static_cast<int32_t>(static_cast<uint32_t>(value.bits)));
        } else {
            out_.number(static_cast<uint32_t>(value.bits));
        }
    }

    void beginList(std::string_view) {}
    void endList() {}
    void beginItem() {
        out_.put("\n\t");
        atItemStart_ = true;
    }
    void endItem() {}

    // DATASEC entries name what they point at, for any id below the type count (0 included,
    // which reads as UNKNOWN '(anon)'); an id out of range gets nothing.
    void referencedType(TypeId id) {
        if (id >= graph_.endId())
            return;
        out_.put(" (");
        out_.put(ir::kindName(graph_.kind(id)));
        out_.put(' ');
        quotedName(graph_.nameId(id));
        out_.put(')');
    }

private:
    void separate(TextSeparator separator) {
        if (atItemStart_) {
            atItemStart_ = false;
            return;
        }
        if (separator == TextSeparator::Comma)
            out_.put(',');
        out_.put(' ');
    }
    void startField(std::string_view key, TextSeparator separator) {
        separate(separator);
        out_.put(key);
        out_.put('=');
    }
    void quotedName(StrId name) {
        out_.put('\'');
        out_.put(displayName(graph_, name));
        out_.put('\'');
    }

    const TypeGraph& graph_;
    OutBuffer& out_;
    bool atItemStart_ = false;
};

// bpftool's json_writer escaping: a few control characters and '"' get C escapes, a backslash
// comes out as "\n" (its long-standing bug), everything else is copied raw (no \u escapes).
std::string_view jsonEscape(char c) {
    switch (c) {
    case '\t':
        return "\\t";
    case '\n':
    case '\\':
        return "\\n";
    case '\r':
        return "\\r";
    case '\f':
        return "\\f";
    case '\b':
        return "\\b";
    case '"':
        return "\\\"";
    default:
        return {};
    }
}

// Compact JSON: a comma before every value but the first in its object or array, no spaces.
class JsonWriter {
public:
    JsonWriter(const TypeGraph& graph, OutBuffer& out) : graph_(graph), out_(out) {}

    void beginType(TypeId id, Kind kind, StrId name) {
        if (!firstType_)
            out_.put(',');
        firstType_ = false;
        out_.put("{\"id\":");
        out_.number(id);
        out_.put(",\"kind\":\"");
        out_.put(ir::kindName(kind));
        out_.put("\",\"name\":");
        string(displayName(graph_, name));
        needComma_ = true;
    }
    void endType() { out_.put('}'); }

    void unsignedField(std::string_view key, uint32_t value) {
        startKey(key);
        out_.number(value);
    }
    void signedField(std::string_view key, int32_t value) {
        startKey(key);
        out_.number(value);
    }
    void wordField(std::string_view key, std::string_view word,
                   TextSeparator = TextSeparator::Space) {
        startKey(key);
        string(word);
    }
    void nameField(StrId name) {
        startKey("name");
        string(displayName(graph_, name));
    }
    // ENUM values go through a signed 32-bit field, so bpftool sign-extends them to 64 bits and,
    // for an unsigned enum, prints that as uint64: 0x80000000 comes out as 18446744071562067968.
    void enumValueField(std::string_view key, EnumValue value) {
        startKey(key);
        if (value.is64 && value.isSigned) {
            out_.number(static_cast<int64_t>(value.bits));
        } else if (value.is64) {
            out_.number(value.bits);
        } else {
            int64_t extended = static_cast<int32_t>(static_cast<uint32_t>(value.bits));
            if (value.isSigned)
                out_.number(extended);
            else
                out_.number(static_cast<uint64_t>(extended));
        }
    }

    void beginList(std::string_view key) {
        startKey(key);
        out_.put('[');
        needComma_ = false;
    }
    void endList() {
        out_.put(']');
        needComma_ = true;
    }
    void beginItem() {
        if (needComma_)
            out_.put(',');
        out_.put('{');
        needComma_ = false;
    }
    void endItem() {
        out_.put('}');
        needComma_ = true;
    }

    void referencedType(TypeId) {} // the JSON form has no annotation

private:
    void startKey(std::string_view key) {
        if (needComma_)
            out_.put(',');
        needComma_ = true;
        out_.put('"');
        out_.put(key);
        out_.put("\":");
    }
    void string(std::string_view s) {
        out_.put('"');
        size_t runStart = 0;
        for (size_t i = 0; i < s.size(); ++i) {
            std::string_view escaped = jsonEscape(s[i]);
            if (escaped.empty())
                continue;
            out_.put(s.substr(runStart, i - runStart));
            out_.put(escaped);
            runStart = i + 1;
        }
        out_.put(s.substr(runStart));
        out_.put('"');
    }

    const TypeGraph& graph_;
    OutBuffer& out_;
    bool firstType_ = true;
    bool needComma_ = false;
};

template <typename Writer> void dumpOwnTypes(const TypeGraph& graph, Writer& writer) {
    for (TypeId id = graph.firstId(); id < graph.endId(); ++id)
        describeType(graph, id, writer);
}

} // namespace

void writeBpftoolText(const TypeGraph& graph, std::ostream& out) {
    OutBuffer buffer(out);
    TextWriter writer(graph, buffer);
    dumpOwnTypes(graph, writer);
    buffer.flush();
}

void writeBpftoolJson(const TypeGraph& graph, std::ostream& out) {
    OutBuffer buffer(out);
    JsonWriter writer(graph, buffer);
    buffer.put("{\"types\":[");
    dumpOwnTypes(graph, writer);
    buffer.put("]}\n");
    buffer.flush();
}

} // namespace btforge::bpftool
