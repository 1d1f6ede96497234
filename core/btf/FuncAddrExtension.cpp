#include "btforge/btf/FuncAddrExtension.h"

#include "../dedup/TypeLabel.h"
#include "../ir/TypeWalk.h"

#include "btforge/support/Hex.h"

#include <map>
#include <set>

namespace btforge::btf {
namespace {

using ir::Kind;
using ir::TypeId;

// The types a FUNC brings along: itself, the DECL_TAGs on it, and the FUNC_PROTOs nothing but
// FUNCs refers to. The conversions rewrite this part of a graph and copy the rest.
class FunctionSection {
public:
    explicit FunctionSection(const ir::TypeGraph& graph)
        : graph_(graph), role_(graph.ownCount(), kOther) {
        std::vector<uint8_t> usedByOther(graph.ownCount(), 0);
        std::vector<TypeId> refs;
        for (TypeId id = graph.firstId(); id < graph.endId(); ++id) {
            Kind kind = graph.kind(id);
            if (kind == Kind::Func) {
                role_[own(id)] = kFunc;
                funcs_.push_back(id);
                continue;
            }
            if (kind == Kind::DeclTag && isFunc(graph.target(id))) {
                role_[own(id)] = kTag;
                tags_[graph.target(id)].push_back(id);
                continue;
            }
            refs.clear();
            dedup::detail::labelOf(graph, id, refs);
            for (TypeId ref : refs) {
                if (graph.isOwn(ref))
                    usedByOther[own(ref)] = 1;
            }
        }
        for (TypeId f : funcs_) {
            TypeId proto = graph.target(f);
            if (graph.isOwn(proto) && graph.kind(proto) == Kind::FuncProto &&
                !usedByOther[own(proto)])
                role_[own(proto)] = kOwnedProto;
        }
    }

    bool contains(TypeId id) const { return role_[own(id)] != kOther; }
    bool isOwnedProto(TypeId id) const { return graph_.isOwn(id) && role_[own(id)] == kOwnedProto; }
    const std::vector<TypeId>& funcs() const { return funcs_; }
    std::span<const TypeId> tagsOf(TypeId func) const {
        auto it = tags_.find(func);
        return it == tags_.end() ? std::span<const TypeId>() : std::span<const TypeId>(it->second);
    }

private:
    enum Role : uint8_t { kOther, kFunc, kTag, kOwnedProto };
    uint32_t own(TypeId id) const { return id - graph_.firstId(); }
    bool isFunc(TypeId id) const { return graph_.isOwn(id) && graph_.kind(id) == Kind::Func; }

    const ir::TypeGraph& graph_;
    std::vector<Role> role_;
    std::vector<TypeId> funcs_;
    std::map<TypeId, std::vector<TypeId>> tags_;
};

// The new graph as a list of what each type is made from, then built with every reference
// mapped: the function section may move types, so new ids are known only once all are listed.
class Rebuilder {
public:
    explicit Rebuilder(const ir::TypeGraph& graph)
        : graph_(graph), newIndex_(graph.ownCount(), kDropped) {}

    void copy(TypeId id) { add({id, Entry::kCopy, {}}); }
    void copyWithoutAddress(TypeId func) { add({func, Entry::kFuncWithoutAddress, {}}); }
    // A FUNC's prototype, the first time a kept FUNC needs one that moves with the functions.
    void proto(const FunctionSection& section, TypeId proto) {
        if (section.isOwnedProto(proto) && newIndex_[proto - graph_.firstId()] == kDropped)
            copy(proto);
    }
    void tag(std::string value, TypeId func) {
        entries_.push_back({func, Entry::kNewTag, std::move(value)});
    }

    ir::TypeGraph build() const {
        ir::TypeGraph out(graph_.sharedBase());
        out.setTargetAs(graph_);
        out.reserve(entries_.size());
        auto map = [&](TypeId id) {
            return graph_.isOwn(id) ? out.firstId() + newIndex_[id - graph_.firstId()] : id;
        };
        ir::ListScratch scratch;
        for (const Entry& e : entries_) {
            if (e.what == Entry::kNewTag) {
                out.add(ir::DeclTagType{out.intern(e.tag), map(e.id), -1});
                continue;
            }
            ir::TypeView view = ir::rewrite(graph_, graph_.get(e.id), out, map, scratch);
            if (e.what == Entry::kFuncWithoutAddress)
                std::get<ir::FuncType>(view).address.reset();
            out.add(view);
        }
        return out;
    }

private:
    static constexpr uint32_t kDropped = UINT32_MAX;
    struct Entry {
        TypeId id; // the type copied, or the FUNC a new tag is on
        enum What : uint8_t { kCopy, kFuncWithoutAddress, kNewTag } what;
        std::string tag;
    };
    void add(Entry e) {
        newIndex_[e.id - graph_.firstId()] = static_cast<uint32_t>(entries_.size());
        entries_.push_back(std::move(e));
    }

    const ir::TypeGraph& graph_;
    std::vector<uint32_t> newIndex_;
    std::vector<Entry> entries_;
};

// Copies everything outside the function section in order; the section, rewritten by
// `emitSection`, takes the place where its first type was.
template <typename EmitSection>
ir::TypeGraph rebuild(const ir::TypeGraph& graph, EmitSection&& emitSection) {
    FunctionSection section(graph);
    Rebuilder out(graph);
    bool emitted = false;
    for (TypeId id = graph.firstId(); id < graph.endId(); ++id) {
        if (!section.contains(id)) {
            out.copy(id);
        } else if (!emitted) {
            emitSection(section, out);
            emitted = true;
        }
    }
    return out.build();
}

bool isMarkerTag(const ir::TypeGraph& graph, TypeId tag) {
    return isFuncAddrMarker(graph.name(tag));
}

} // namespace

bool isFuncAddrMarker(std::string_view tag) {
    return tag.starts_with(kFuncAddrBasePrefix) || tag == kFuncAddrAbsolute ||
           tag == kFuncAddrSectionOffset || tag.starts_with(kFuncAddrNotInStandardPrefix);
}

std::string funcAddrBaseMarker(std::optional<std::string_view> baseSymbol, bool sectionOffsets) {
    if (sectionOffsets)
        return std::string(kFuncAddrSectionOffset);
    return baseSymbol ? std::string(kFuncAddrBasePrefix) + std::string(*baseSymbol)
                      : std::string(kFuncAddrAbsolute);
}

TypeId firstAddressedFunc(const ir::TypeGraph& graph) {
    for (TypeId id = graph.firstId(); id < graph.endId(); ++id) {
        if (graph.kind(id) == Kind::Func && graph.getAs<ir::FuncType>(id).address)
            return id;
    }
    return ir::kVoidType;
}

ir::TypeGraph funcAddrToStandard(ir::TypeGraph graph) {
    if (firstAddressedFunc(graph) == ir::kVoidType)
        return graph;
    return rebuild(graph, [&](const FunctionSection& section, Rebuilder& out) {
        std::map<std::string_view, int> count; // FUNCs per name; -1: not in standard BTF
        for (TypeId f : section.funcs()) {
            int& c = count[graph.name(f)];
            c = c < 0 ? c : c + 1;
            for (TypeId t : section.tagsOf(f)) {
                if (graph.name(t).starts_with(kFuncAddrNotInStandardPrefix))
                    c = -1;
            }
        }
        for (TypeId f : section.funcs()) {
            if (count[graph.name(f)] != 1)
                continue;
            out.proto(section, graph.target(f));
            out.copyWithoutAddress(f);
            for (TypeId t : section.tagsOf(f)) {
                if (!isMarkerTag(graph, t))
                    out.copy(t);
            }
        }
    });
}

ir::TypeGraph funcAddrToDeclTags(ir::TypeGraph graph) {
    if (firstAddressedFunc(graph) == ir::kVoidType)
        return graph;
    return rebuild(graph, [&](const FunctionSection& section, Rebuilder& out) {
        // One FUNC per name and prototype, in the order the names' first FUNCs come.
        std::vector<std::pair<std::string_view, TypeId>> keys;
        std::map<std::pair<std::string_view, TypeId>, std::vector<TypeId>> instances;
        for (TypeId f : section.funcs()) {
            auto key = std::pair(graph.name(f), graph.target(f));
            auto& list = instances[key];
            if (list.empty())
                keys.push_back(key);
            list.push_back(f);
        }
        for (const auto& key : keys) {
            const std::vector<TypeId>& list = instances[key];
            TypeId first = list.front();
            out.proto(section, key.second);
            out.copyWithoutAddress(first);
            std::set<std::string_view> markers;
            for (TypeId f : list) {
                for (TypeId t : section.tagsOf(f)) {
                    if (!isMarkerTag(graph, t)) {
                        if (f == first)
                            out.copy(t);
                    } else if (markers.insert(graph.name(t)).second) {
                        out.tag(std::string(graph.name(t)), first);
                    }
                }
            }
            for (TypeId f : list) {
                if (auto address = graph.getAs<ir::FuncType>(f).address)
                    out.tag(std::string(kAddressTagPrefix) + hex(*address), first);
            }
        }
    });
}

} // namespace btforge::btf
