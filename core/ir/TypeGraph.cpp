#include "btforge/ir/TypeGraph.h"

#include <bit>
#include <cassert>

namespace btforge::ir {

ByteOrder nativeByteOrder() {
    return std::endian::native == std::endian::little ? ByteOrder::Little : ByteOrder::Big;
}

TypeGraph::TypeGraph(std::shared_ptr<const TypeGraph> base)
    : base_(std::move(base)), byteOrder_(nativeByteOrder()) {
    if (base_) {
        strings_ = std::make_shared<StringPool>(base_->strings_);
        firstId_ = base_->endId();
        byteOrder_ = base_->byteOrder_;
        pointerSize_ = base_->pointerSize_;
    } else {
        strings_ = std::make_shared<StringPool>();
    }
}

Kind TypeGraph::kindBelow(TypeId id) const {
    return base_ && id != kVoidType ? base_->kind(id) : Kind::Void;
}

StrId TypeGraph::nameIdBelow(TypeId id) const {
    return base_ && id != kVoidType ? base_->nameId(id) : kNoName;
}

TypeId TypeGraph::target(TypeId id) const {
    if (id < firstId_)
        return base_ && id != kVoidType ? base_->target(id) : kVoidType;
    const Record& r = record(id);
    const bool pointsOn = isReferenceKind(r.kind) || r.kind == Kind::Func || r.kind == Kind::Var ||
                          r.kind == Kind::DeclTag || r.kind == Kind::Array ||
                          r.kind == Kind::FuncProto;
    return pointsOn ? r.sizeOrType : kVoidType;
}

TypeView TypeGraph::get(TypeId id) const {
    return visit(id, [](const auto& t) -> TypeView { return t; });
}

uint32_t TypeGraph::appendPlacement(std::optional<uint64_t> address, StrId section) {
    if (!address && section == kNoName)
        return kNone;
    return placements_.push_back({address.value_or(0), section});
}

TypeGraph::Record TypeGraph::encode(const TypeView& view) {
    return std::visit(
        [&](const auto& t) -> Record {
            if constexpr (std::is_same_v<std::decay_t<decltype(t)>, VoidType>)
                return Record{};
            else
                return encodeAs(t);
        },
        view);
}

TypeId TypeGraph::add(const TypeView& view) {
    assert(kindOf(view) != Kind::Void && "void is implicit (id 0)");
    records_.push_back(encode(view));
    return endId() - 1;
}

void TypeGraph::replace(TypeId id, const TypeView& view) {
    assert(isOwn(id) && kindOf(view) != Kind::Void);
    records_[id - firstId_] = encode(view);
}

size_t TypeGraph::memoryUsage() const {
    const bool ownStrings = !base_ || &base_->strings() != strings_.get();
    return records_.memoryUsage() + members_.memoryUsage() + params_.memoryUsage() +
           enumerators_.memoryUsage() + secinfos_.memoryUsage() + placements_.memoryUsage() +
           (ownStrings ? strings_->memoryUsage() : 0);
}

void TypeGraph::reserve(size_t types) {
    records_.reserve(types);
}

std::optional<uint64_t> sizeOf(const TypeGraph& graph, TypeId id) {
    uint64_t multiplier = 1;
    for (int hops = 0; hops < 256; ++hops) {
        auto sized = [&](uint64_t size) -> std::optional<uint64_t> { return size * multiplier; };
        switch (graph.kind(id)) {
        case Kind::Int:
            return sized(graph.getAs<IntType>(id).size);
        case Kind::Float:
            return sized(graph.getAs<FloatType>(id).size);
        case Kind::Struct:
            return sized(graph.getAs<StructType>(id).size);
        case Kind::Union:
            return sized(graph.getAs<UnionType>(id).size);
        case Kind::Enum:
            return sized(graph.getAs<EnumType>(id).size);
        case Kind::Enum64:
            return sized(graph.getAs<Enum64Type>(id).size);
        case Kind::Datasec:
            return sized(graph.getAs<DatasecType>(id).size);
        case Kind::Ptr:
            return sized(graph.pointerSize());
        case Kind::Array: {
            auto array = graph.getAs<ArrayType>(id);
            multiplier *= array.count;
            id = array.elemType;
            continue;
        }
        case Kind::Typedef:
        case Kind::Volatile:
        case Kind::Const:
        case Kind::Restrict:
        case Kind::TypeTag:
        case Kind::Var:
            id = graph.target(id);
            continue;
        default:
            return std::nullopt;
        }
    }
    return std::nullopt;
}

} // namespace btforge::ir
