// One walk over the graph as btf_dump_order_type walks it: every type from the top, and again as
// reached through a pointer (a named struct or union is not entered then). A walk that meets a
// type on its own way is a loop libbpf either refuses or recurses around forever; the walk's
// depth is libbpf's recursion depth, and the types it meets from each start bound what libbpf
// visits ordering, emitting and aligning (it remembers less than this walk assumes it may).
// Alongside, what printing each type costs: bytes of header, padding simulated as
// btf_dump_emit_struct_def and btf_dump_emit_bit_padding compute it.
#include "DumpLimits.h"

#include "btforge/support/Quoted.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace btforge::cheader {
namespace {

using ir::Kind;
using ir::TypeId;

// Levels of libbpf's recursion, a few hundred bytes of its stack each: kernels nest 20 to 35,
// and 1024 fit in a 1 MiB stack.
constexpr size_t kMaxDepth = 1024;
// libbpf's steps: types visited while ordering, emitting and aligning, and lines printed (the
// 6.18 kernel's header takes 4.2 million).
constexpr uint64_t kMaxWork = uint64_t{1} << 28;
// The header, at most this plus kHeaderBytesPerBtfByte per byte of BTF.
constexpr uint64_t kMinHeaderBytes = uint64_t{64} << 20;
constexpr uint64_t kHeaderBytesPerBtfByte = 64;
// btf_dump keeps bit offsets in int: from here on its sums and roundings could overflow.
constexpr int64_t kMaxBits = int64_t{1} << 30;
// A printed line's bytes besides names: indentation (at most 13 tabs), keywords, a number.
constexpr uint64_t kLineBytes = 48;
// btf__align_of's answer for a kind without alignment (void, FWD, FUNC_PROTO, ...): 0, which
// btf_dump then divides by.
constexpr uint32_t kNoAlignment = 0;
constexpr uint64_t kCap = std::numeric_limits<uint64_t>::max() / 4;

// Kinds that qualify the type they lead to; libbpf walks through them as through a typedef.
template <typename T>
constexpr bool isQualifier =
    std::is_same_v<T, ir::VolatileType> || std::is_same_v<T, ir::ConstType> ||
    std::is_same_v<T, ir::RestrictType> || std::is_same_v<T, ir::TypeTagType>;

uint64_t plus(uint64_t a, uint64_t b) {
    return std::min(a + b, kCap);
}

// What printing something costs: bytes of header, and libbpf's steps.
struct Cost {
    uint64_t bytes = 0;
    uint64_t work = 0;

    Cost& operator+=(const Cost& other) {
        bytes = plus(bytes, other.bytes);
        work = plus(work, other.work);
        return *this;
    }
};

// bpftool's pointer size: libbpf's determine_ptr_size, the first 4- or 8-byte INT named as a long
// is; else the host's.
uint32_t libbpfPointerSize(const ir::TypeGraph& graph) {
    static constexpr std::string_view kLongs[] = {"long",
                                                  "long int",
                                                  "int long",
                                                  "unsigned long",
                                                  "long unsigned",
                                                  "unsigned long int",
                                                  "unsigned int long",
                                                  "long unsigned int",
                                                  "long int unsigned",
                                                  "int unsigned long",
                                                  "int long unsigned"};
    for (TypeId id = 1; id < graph.endId(); ++id) {
        if (graph.kind(id) != Kind::Int)
            continue;
        const uint32_t size = graph.getAs<ir::IntType>(id).size;
        if ((size == 4 || size == 8) &&
            std::find(std::begin(kLongs), std::end(kLongs), graph.name(id)) != std::end(kLongs))
            return size;
    }
    return sizeof(void*);
}

class DumpModel {
public:
    explicit DumpModel(const ir::TypeGraph& graph)
        : graph_(graph), pointerSize_(libbpfPointerSize(graph)), state_(2 * size_t{graph.endId()}),
          depth_(state_.size()), reached_(state_.size()), printed_(state_.size()),
          alignment_(graph.endId(), kNoAlignment) {}

    Expected<void> check(size_t btfBytes);

private:
    enum : uint8_t { kUnseen, kOnWay, kDone };
    struct Frame {
        uint32_t node;
        size_t begin; // its successors in pending_, to pending_'s end while it is on top
        size_t next;
    };

    // A type as libbpf's walk meets it: through a pointer or not.
    static uint32_t node(TypeId id, bool viaPtr) { return id * 2 + (viaPtr ? 1 : 0); }
    static TypeId typeOf(uint32_t node) { return node / 2; }
    static bool viaPtr(uint32_t node) { return node % 2 != 0; }

    Expected<void> walkFrom(TypeId root);
    void enter(uint32_t node);
    Expected<void> finish(const Frame& frame);
    Expected<Cost> printCost(uint32_t node) const;
    Expected<Cost> topLevelCost(TypeId id) const;
    template <Kind K>
    Expected<Cost> definitionCost(TypeId id, const ir::CompositeType<K>& type, uint32_t at) const;
    Cost enumerationCost(const ir::TypeView& view) const;
    uint32_t alignmentOf(TypeId id) const;
    bool packed(const ir::StructType& type) const;
    int64_t resolvedSize(TypeId id) const;
    std::optional<uint64_t> paddingLines(int64_t from, int64_t to, uint32_t nextAlignment,
                                         bool inBitfield) const;

    uint64_t nameBytes(ir::StrId name) const { return graph_.str(name).size(); }
    Error loopError(uint32_t at) const;
    std::string describe(TypeId id) const;
    Error refuse(TypeId id, const std::string& what) const;

    const ir::TypeGraph& graph_;
    const uint32_t pointerSize_;
    std::vector<uint8_t> state_;      // by node
    std::vector<uint32_t> depth_;     // by node: the longest way on from it
    std::vector<uint64_t> reached_;   // by node: the types met on every way on from it
    std::vector<Cost> printed_;       // by node: printing a reference to its type
    std::vector<uint32_t> alignment_; // by type: btf__align_of
    std::vector<Frame> way_;
    std::vector<uint32_t> pending_;
};

// The types btf_dump_order_type goes on to from `node`; btf_dump_emit_type, btf__align_of and
// the printing of a declaration follow some of these edges, never others.
template <typename F> void forEachSuccessor(const ir::TypeGraph& graph, uint32_t node, F&& to) {
    const bool viaPtr = node % 2 != 0;
    graph.visit(node / 2, [&](const auto& type) {
        using T = std::decay_t<decltype(type)>;
        if constexpr (std::is_same_v<T, ir::PtrType>) {
            to(type.type, true);
        } else if constexpr (std::is_same_v<T, ir::ArrayType>) {
            to(type.elemType, false);
        } else if constexpr (requires { type.members; }) {
            if (!viaPtr || type.name == ir::kNoName) {
                for (const ir::Member& member : type.members)
                    to(member.type, false);
            }
        } else if constexpr (std::is_same_v<T, ir::FuncProtoType>) {
            to(type.returnType, viaPtr);
            for (const ir::Param& param : type.params)
                to(param.type, viaPtr);
        } else if constexpr (std::is_same_v<T, ir::TypedefType> || isQualifier<T>) {
            to(type.type, viaPtr);
        }
    });
}

Expected<void> DumpModel::check(size_t btfBytes) {
    Cost total;
    TypeId mostWork = 1, mostBytes = 1;
    Cost most;
    // bpftool's order: btf_dump__dump_type for every type, in id order.
    for (TypeId root = 1; root < graph_.endId(); ++root) {
        if (Expected<void> walked = walkFrom(root); !walked)
            return walked;
        Expected<Cost> top = topLevelCost(root);
        if (!top)
            return std::move(top).error();
        top->work = plus(top->work, 2 * reached_[node(root, false)]); // ordered, then emitted
        if (top->work > most.work) {
            mostWork = root;
            most.work = top->work;
        }
        if (top->bytes > most.bytes) {
            mostBytes = root;
            most.bytes = top->bytes;
        }
        total += *top;
    }
    if (total.work > kMaxWork)
        return refuse(mostWork, "it and what it needs would take libbpf's btf_dump more than " +
                                    std::to_string(kMaxWork) +
                                    " steps (types that embed, or print inline, what others "
                                    "share, again and again)");
    const uint64_t maxBytes = maxHeaderBytes(btfBytes);
    if (total.bytes > maxBytes)
        return refuse(mostBytes, "the header would pass " + std::to_string(maxBytes) +
                                     " bytes, 64 MiB and 64 a byte of BTF (padding of huge "
                                     "structs, or types printed inline again and again)");
    return {};
}

// Depth first from `root` (not through a pointer) to what it leads to, without recursion.
Expected<void> DumpModel::walkFrom(TypeId root) {
    if (state_[node(root, false)] != kUnseen)
        return {};
    enter(node(root, false));
    while (!way_.empty()) {
        Frame& top = way_.back();
        if (top.next == pending_.size()) {
            if (Expected<void> done = finish(top); !done)
                return done;
            pending_.resize(top.begin);
            way_.pop_back();
            continue;
        }
        const uint32_t next = pending_[top.next++];
        if (state_[next] == kDone)
            continue;
        if (state_[next] == kOnWay)
            return loopError(next);
        enter(next);
    }
    return {};
}

// The way from `at` back to it.
Error DumpModel::loopError(uint32_t at) const {
    constexpr ptrdiff_t kMaxShown = 8;
    const auto from =
        std::find_if(way_.begin(), way_.end(), [&](const Frame& f) { return f.node == at; });
    std::string loop;
    for (auto f = from; f != way_.end() && f - from < kMaxShown; ++f)
        loop += "[" + std::to_string(typeOf(f->node)) + "] " +
                std::string(ir::kindName(graph_.kind(typeOf(f->node)))) + " -> ";
    if (way_.end() - from > kMaxShown)
        loop += "... -> ";
    return refuse(typeOf(at), "contains itself (" + loop + "[" + std::to_string(typeOf(at)) +
                                  "]), which C cannot spell and libbpf's btf_dump cannot print");
}

void DumpModel::enter(uint32_t at) {
    state_[at] = kOnWay;
    const size_t begin = pending_.size();
    forEachSuccessor(graph_, at,
                     [&](TypeId to, bool toViaPtr) { pending_.push_back(node(to, toViaPtr)); });
    way_.push_back({at, begin, begin});
}

Expected<void> DumpModel::finish(const Frame& frame) {
    uint32_t depth = 0;
    uint64_t reached = 1;
    for (size_t i = frame.begin; i < pending_.size(); ++i) {
        depth = std::max(depth, depth_[pending_[i]]);
        reached = plus(reached, reached_[pending_[i]]);
    }
    const uint32_t at = frame.node;
    state_[at] = kDone;
    depth_[at] = depth + 1;
    reached_[at] = reached;
    // libbpf walks again through what it does not remember (prototypes, arrays, qualifiers): its
    // recursion may go as deep as the longest way, however this walk got there.
    if (depth_[at] > kMaxDepth)
        return refuse(typeOf(at), "nests more than " + std::to_string(kMaxDepth) +
                                      " levels deep (pointers, typedefs, members, parameters): "
                                      "libbpf's btf_dump recurses once a level");
    // Its alignment needs its successors' without a pointer: an anonymous struct's are members.
    const TypeId id = typeOf(at);
    const Kind kind = graph_.kind(id);
    if (!viaPtr(at) || ((kind == Kind::Struct || kind == Kind::Union) && graph_.nameId(id) == 0))
        alignment_[id] = alignmentOf(id);
    Expected<Cost> printed = printCost(at);
    if (!printed)
        return std::move(printed).error();
    printed_[at] = *printed;
    return {};
}

// btf_dump_emit_struct_def: the members, the padding it fills in between (a line per 8 bits at
// most), and the alignments it asks btf__align_of for, each a walk over what the type embeds.
template <Kind K>
Expected<Cost> DumpModel::definitionCost(TypeId id, const ir::CompositeType<K>& type,
                                         uint32_t at) const {
    constexpr bool isStruct = K == Kind::Struct;
    const int64_t sizeBits = int64_t{type.size} * 8;
    if (sizeBits >= kMaxBits)
        return refuse(id, "a size of " + std::to_string(type.size) +
                              " bytes: libbpf's btf_dump computes its bit offsets in int (up to " +
                              std::to_string(kMaxBits / 8) + " bytes here)");
    bool isPacked = false;
    if constexpr (isStruct)
        isPacked = packed(type);
    Cost cost{plus(nameBytes(type.name), 2 * kLineBytes), plus(3 * reached_[at], 1)};
    int64_t off = 0;
    bool previousBitfield = false;
    for (size_t i = 0; i < type.members.size(); ++i) {
        const ir::Member& m = type.members[i];
        const std::string member = "member " + std::to_string(i) + " " + quoted(graph_.str(m.name));
        const uint32_t alignment = isPacked ? 1 : alignment_[m.type];
        const std::optional<uint64_t> lines =
            paddingLines(off, m.bitOffset, alignment, previousBitfield && m.bitfieldSize != 0);
        if (!lines)
            return refuse(id, member + " is of " + describe(m.type) +
                                  ", of alignment 0, which libbpf's btf_dump divides by");
        cost += {*lines * kLineBytes, *lines};
        cost += printed_[node(m.type, false)];
        cost += {plus(nameBytes(m.name), kLineBytes), 1};
        previousBitfield = m.bitfieldSize != 0;
        off = m.bitOffset + (previousBitfield ? m.bitfieldSize : resolvedSize(m.type) * 8);
        if (off >= kMaxBits)
            return refuse(id, member + " ends at bit " + std::to_string(off) +
                                  ": libbpf's btf_dump computes bit offsets in int (up to " +
                                  std::to_string(kMaxBits) + " here)");
    }
    if (isStruct) {
        const std::optional<uint64_t> lines = paddingLines(off, sizeBits, alignment_[id], false);
        if (!lines)
            return refuse(id, "its alignment is 0, which libbpf's btf_dump divides by");
        cost += {*lines * kLineBytes, *lines};
    }
    return cost;
}

// A declaration of a member, parameter or typedef of this type: by name, or spelled out
// (pointers, arrays, function prototypes, anonymous structs, unions and enums).
Expected<Cost> DumpModel::printCost(uint32_t at) const {
    const TypeId id = typeOf(at);
    const ir::TypeView view = graph_.get(id);
    const Cost named{plus(nameBytes(graph_.nameId(id)), 16), 1};
    return std::visit(
        [&](const auto& type) -> Expected<Cost> {
            using T = std::decay_t<decltype(type)>;
            if constexpr (std::is_same_v<T, ir::PtrType>) {
                Cost cost = printed_[node(type.type, true)];
                return cost += {16, 1};
            } else if constexpr (std::is_same_v<T, ir::ArrayType>) {
                Cost cost = printed_[node(type.elemType, false)];
                return cost += {16, 1};
            } else if constexpr (std::is_same_v<T, ir::FuncProtoType>) {
                Cost cost = printed_[node(type.returnType, viaPtr(at))];
                for (const ir::Param& param : type.params) {
                    cost += printed_[node(param.type, viaPtr(at))];
                    cost += {plus(nameBytes(param.name), 8), 1};
                }
                return cost += {16, 1};
            } else if constexpr (isQualifier<T>) {
                Cost cost = printed_[node(type.type, viaPtr(at))];
                return cost += {plus(nameBytes(type.name), 48), 1}; // a type tag's attribute
            } else if constexpr (requires { type.members; }) {
                if (type.name != ir::kNoName)
                    return named;
                return definitionCost(id, type, at);
            } else if constexpr (requires { type.values; }) {
                return type.name != ir::kNoName ? named : enumerationCost(view);
            } else {
                return named;
            }
        },
        view);
}

// What btf_dump__dump_type prints for the type itself: the definitions bpftool's header has.
Expected<Cost> DumpModel::topLevelCost(TypeId id) const {
    const ir::TypeView view = graph_.get(id);
    return std::visit(
        [&](const auto& type) -> Expected<Cost> {
            using T = std::decay_t<decltype(type)>;
            if constexpr (requires { type.members; }) {
                if (type.name == ir::kNoName)
                    return Cost{};
                return definitionCost(id, type, node(id, false));
            } else if constexpr (requires { type.values; }) {
                return enumerationCost(view);
            } else if constexpr (std::is_same_v<T, ir::TypedefType>) {
                Cost cost = printed_[node(type.type, false)];
                return cost += {plus(nameBytes(type.name), kLineBytes), 1};
            } else {
                return Cost{plus(nameBytes(graph_.nameId(id)), kLineBytes), 1};
            }
        },
        view);
}

Cost DumpModel::enumerationCost(const ir::TypeView& view) const {
    return std::visit(
        [&](const auto& type) {
            Cost cost;
            if constexpr (requires { type.values; }) {
                cost = {plus(nameBytes(type.name), kLineBytes), 1};
                for (const ir::Enumerator& value : type.values)
                    cost += {plus(nameBytes(value.name), kLineBytes), 1};
            }
            return cost;
        },
        view);
}

// btf__align_of, from the alignments of what the type embeds (their nodes are done).
uint32_t DumpModel::alignmentOf(TypeId id) const {
    return graph_.visit(id, [&](const auto& type) -> uint32_t {
        using T = std::decay_t<decltype(type)>;
        if constexpr (std::is_same_v<T, ir::IntType> || std::is_same_v<T, ir::FloatType> ||
                      requires { type.values; }) {
            return std::min(pointerSize_, type.size);
        } else if constexpr (std::is_same_v<T, ir::PtrType>) {
            return pointerSize_;
        } else if constexpr (std::is_same_v<T, ir::ArrayType>) {
            return alignment_[type.elemType];
        } else if constexpr (requires { type.members; }) {
            uint32_t maxAlignment = 1;
            for (const ir::Member& m : type.members) {
                const uint32_t alignment = alignment_[m.type];
                if (alignment == 0)
                    return kNoAlignment;
                maxAlignment = std::max(maxAlignment, alignment);
                if (m.bitfieldSize == 0 && m.bitOffset % (8 * alignment) != 0)
                    return 1;
            }
            return type.size % maxAlignment != 0 ? 1 : maxAlignment;
        } else if constexpr (std::is_same_v<T, ir::TypedefType> || isQualifier<T>) {
            return alignment_[type.type];
        } else {
            return kNoAlignment;
        }
    });
}

// btf_is_struct_packed: a member off its alignment, or a size no multiple of the largest.
bool DumpModel::packed(const ir::StructType& type) const {
    uint32_t maxAlignment = 1;
    for (const ir::Member& m : type.members) {
        const uint32_t alignment = alignment_[m.type];
        if (alignment != 0 && m.bitfieldSize == 0 && m.bitOffset % (8 * alignment) != 0)
            return true;
        maxAlignment = std::max(maxAlignment, alignment);
    }
    return type.size % maxAlignment != 0;
}

// btf__resolve_size, or 0 where it fails (btf_dump_emit_struct_def takes 0 then).
int64_t DumpModel::resolvedSize(TypeId id) const {
    constexpr int kMaxResolveDepth = 32;
    constexpr uint64_t kMaxU32 = std::numeric_limits<uint32_t>::max();
    uint64_t elements = 1;
    for (int i = 0; i < kMaxResolveDepth && id != ir::kVoidType; ++i) {
        std::optional<uint64_t> size;
        bool follows = false;
        graph_.visit(id, [&](const auto& type) {
            using T = std::decay_t<decltype(type)>;
            if constexpr (std::is_same_v<T, ir::PtrType>) {
                size = pointerSize_;
            } else if constexpr (requires { type.size; }) {
                size = type.size; // INT, STRUCT, UNION, the enums, DATASEC, FLOAT
            } else if constexpr (std::is_same_v<T, ir::ArrayType>) {
                if (elements && type.count > kMaxU32 / elements) {
                    elements = 0;
                    return;
                }
                elements *= type.count;
                id = type.elemType;
                follows = true;
            } else if constexpr (requires { type.type; }) {
                id = type.type; // typedefs, modifiers, VAR, DECL_TAG, TYPE_TAG
                follows = true;
            }
        });
        if (size)
            return elements && *size > kMaxU32 / elements ? 0
                                                          : static_cast<int64_t>(elements * *size);
        if (!follows)
            return 0;
    }
    return 0;
}

// btf_dump_emit_bit_padding between bit offsets `from` and `to`: at most a line per 8 bits, and
// nothing when it would divide by a zero alignment.
std::optional<uint64_t> DumpModel::paddingLines(int64_t from, int64_t to, uint32_t nextAlignment,
                                                bool inBitfield) const {
    if (from >= to)
        return 0;
    const std::array<int64_t, 4> pads = {int64_t{pointerSize_} * 8, 32, 16, 8};
    int64_t aligned = from;
    for (int64_t bits : pads) {
        aligned = (from + bits - 1) / bits * bits;
        if (aligned <= to)
            break;
    }
    if (aligned > from && aligned <= to) {
        if (!inBitfield && aligned == to && nextAlignment == 0)
            return std::nullopt;
        from = aligned;
    }
    return static_cast<uint64_t>(to - from) / 8 + 2;
}

std::string DumpModel::describe(TypeId id) const {
    std::string out =
        "type [" + std::to_string(id) + "] " + std::string(ir::kindName(graph_.kind(id)));
    if (std::string_view name = graph_.name(id); !name.empty()) {
        out += ' ';
        out += quoted(name);
    }
    return out;
}

Error DumpModel::refuse(TypeId id, const std::string& what) const {
    return Error::badInput("-t c: " + describe(id) + ": " + what);
}

} // namespace

Expected<void> checkDumpLimits(const ir::TypeGraph& graph, size_t btfBytes) {
    return DumpModel(graph).check(btfBytes);
}

uint64_t maxHeaderBytes(size_t btfBytes) {
    return plus(kMinHeaderBytes, btfBytes * kHeaderBytesPerBtfByte);
}

} // namespace btforge::cheader
