#include "BpftoolOrder.h"

#include <bpf/btf.h>

#include <algorithm>
#include <cstring>
#include <string_view>
#include <utility>

namespace btforge::cheader {
namespace {

// Ranks of bpftool 7.5's sort; whatever has no name (anonymous structs, pointers to them) last.
constexpr int kEnumWithoutName = 0, kEnumWithName = 1, kBaseType = 2, kRecord = 3, kPrototype = 4,
              kLast = 10;

const char* nameAt(const ::btf& types, uint32_t offset) {
    const char* name = btf__name_by_offset(&types, offset);
    return name ? name : "";
}

// Kinds bpftool sees through to the type they refer to.
bool refersOn(const btf_type* t) {
    return btf_is_mod(t) || btf_is_ptr(t) || btf_is_typedef(t) || btf_is_decl_tag(t);
}

int rank(const ::btf& types, uint32_t id) {
    bool named = false;
    // A chain longer than the type count is a loop (DumpLimits refuses those before).
    for (uint32_t step = 0, count = btf__type_cnt(&types); step < count; ++step) {
        const btf_type* t = btf__type_by_id(&types, id);
        named = named || t->name_off != 0;
        if (btf_is_enum(t) || btf_is_enum64(t))
            return named ? kEnumWithName : kEnumWithoutName;
        if (btf_is_int(t) || btf_is_float(t))
            return kBaseType;
        if (btf_is_composite(t))
            return named ? kRecord : kLast;
        if (btf_is_func_proto(t))
            return named ? kPrototype : kLast;
        if (!named || !(btf_is_array(t) || refersOn(t)))
            return kLast;
        id = btf_is_array(t) ? btf_array(t)->type : t->type;
    }
    return kLast;
}

// The name a type sorts by: its target's for pointers, modifiers, typedefs and arrays; an
// anonymous enum's first enumerator's, unless reached through a reference.
const char* sortName(const ::btf& types, uint32_t id) {
    bool referred = false;
    for (uint32_t step = 0, count = btf__type_cnt(&types); step < count; ++step) {
        const btf_type* t = btf__type_by_id(&types, id);
        if ((btf_is_enum(t) || btf_is_enum64(t)) && !referred && !t->name_off && btf_vlen(t))
            return nameAt(types, btf_is_enum(t) ? btf_enum(t)->name_off : btf_enum64(t)->name_off);
        if (!btf_is_array(t) && !refersOn(t))
            return nameAt(types, t->name_off);
        id = btf_is_array(t) ? btf_array(t)->type : t->type;
        referred = true;
    }
    return "";
}

// libbpf's string hash (h * 31 + c over chars, which are signed on x86, where bpftool's order
// was taken: the same here on every host).
uint64_t mix(uint64_t hash, uint64_t value) {
    return hash * 31 + value;
}

uint64_t withName(uint64_t hash, const ::btf& types, uint32_t offset) {
    if (!offset)
        return hash;
    uint64_t h = 0;
    for (const char* c = nameAt(types, offset); *c; ++c)
        h = mix(h, static_cast<uint64_t>(static_cast<int64_t>(static_cast<signed char>(*c))));
    return mix(hash, h);
}

// What tells apart types of the same rank and names: their names, enumerators, members (by
// name and their types' names) and array lengths. Recursion follows reference chains, whose
// length DumpLimits bounds.
uint64_t shapeHash(const ::btf& types, uint32_t id, bool withMembers) {
    const btf_type* t = btf__type_by_id(&types, id);
    uint64_t hash = withName(0, types, t->name_off);
    if (btf_is_enum(t) || btf_is_enum64(t)) {
        for (uint16_t i = 0; i < btf_vlen(t); ++i)
            hash = withName(hash, types,
                            btf_is_enum(t) ? btf_enum(t)[i].name_off : btf_enum64(t)[i].name_off);
    } else if (btf_is_composite(t)) {
        for (uint16_t i = 0; withMembers && i < btf_vlen(t); ++i) {
            hash = withName(hash, types, btf_members(t)[i].name_off);
            hash = mix(hash, shapeHash(types, btf_members(t)[i].type, false));
        }
    } else if (btf_is_array(t)) {
        hash = mix(hash, btf_array(t)->nelems);
        hash = mix(hash, shapeHash(types, btf_array(t)->type, withMembers));
    } else if (refersOn(t)) {
        hash = mix(hash, shapeHash(types, t->type, withMembers));
    }
    return hash;
}

struct SortKey {
    uint32_t id;
    int rank;
    const char* sortName;
    const char* ownName;
    uint64_t shape;
};

bool before(const SortKey& a, const SortKey& b) {
    if (a.rank != b.rank)
        return a.rank < b.rank;
    if (int r = std::strcmp(a.sortName, b.sortName))
        return r < 0;
    if (int r = std::strcmp(a.ownName, b.ownName))
        return r < 0;
    if (a.shape != b.shape)
        return a.shape < b.shape;
    return a.id < b.id;
}

} // namespace

std::vector<uint32_t> bpftoolSortedOrder(const ::btf& types) {
    const uint32_t count = btf__type_cnt(&types);
    std::vector<SortKey> keys;
    keys.reserve(count);
    for (uint32_t id = 0; id < count; ++id) {
        const btf_type* t = btf__type_by_id(&types, id);
        keys.push_back({id, rank(types, id), sortName(types, id), nameAt(types, t->name_off),
                        shapeHash(types, id, true)});
    }
    std::sort(keys.begin(), keys.end(), before);
    // bpftool sorts void (id 0) with the rest and then skips the first entry, taking it for
    // void: the first type in this order (an anonymous enum, when there is one) is never printed.
    std::vector<uint32_t> order;
    order.reserve(count);
    for (size_t i = 1; i < keys.size(); ++i)
        order.push_back(keys[i].id);
    return order;
}

std::vector<uint32_t> taggedKfuncs(const ::btf& types) {
    constexpr std::string_view kKfuncTag = "bpf_kfunc";
    // Each FUNC once per tag, as bpftool prints it; equal names keep the tags' order.
    std::vector<std::pair<uint32_t, uint32_t>> funcs; // FUNC, tag
    for (uint32_t id = 1, count = btf__type_cnt(&types); id < count; ++id) {
        const btf_type* t = btf__type_by_id(&types, id);
        if (btf_is_decl_tag(t) && btf_decl_tag(t)->component_idx == -1 &&
            btf_is_func(btf__type_by_id(&types, t->type)) &&
            nameAt(types, t->name_off) == kKfuncTag)
            funcs.emplace_back(t->type, id);
    }
    auto name = [&](uint32_t id) { return nameAt(types, btf__type_by_id(&types, id)->name_off); };
    std::sort(funcs.begin(), funcs.end(), [&](const auto& a, const auto& b) {
        const int r = std::strcmp(name(a.first), name(b.first));
        return r != 0 ? r < 0 : a.second < b.second;
    });
    std::vector<uint32_t> ids;
    for (const auto& [func, tag] : funcs)
        ids.push_back(func);
    return ids;
}

} // namespace btforge::cheader
