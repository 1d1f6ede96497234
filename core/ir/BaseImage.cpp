// A base image, in order: a header (magic, format version, key), the graph (target facts, type
// records, list arenas, placements), its string pool (bytes and index), then the merge's index of
// the base and the appender's tables.
#include "btforge/ir/BaseImage.h"

#include "BaseFunctions.h"
#include "dedup/BaseIndex.h"
#include "support/ImageBytes.h"

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <type_traits>

namespace btforge::ir {
namespace {

constexpr uint64_t kMagic = 0x474d49424f465442ull; // "BTFOBIMG" in a little-endian file
// Bumped whenever what is written changes: an image of another format is not read.
constexpr uint32_t kFormat = 3;

} // namespace

// The storage of graphs and pools, which they let base images reach (a friend of both).
struct ImageAccess {
    // An item as the image holds it, copied into zeroed() storage. Those with padding are copied
    // field by field, their padding left zero, so that an image is a function of its base alone
    // and no uninitialised byte is written.
    template <typename T> static void copy(T& to, const T& from) {
        static_assert(std::has_unique_object_representations_v<T>, "padding: copy by field below");
        to = from;
    }
    static void copy(Enumerator& to, const Enumerator& from) {
        to.name = from.name;
        to.value = from.value;
    }
    static void copy(TypeGraph::Placement& to, const TypeGraph::Placement& from) {
        to.address = from.address;
        to.section = from.section;
    }

    // `n` items whose bytes, padding included, are all zero.
    template <typename T> static std::vector<T> zeroed(size_t n) {
        std::vector<T> items(n);
        if (n != 0) // an empty vector's data() may be null, which memset must not be given
            std::memset(static_cast<void*>(items.data()), 0, n * sizeof(T));
        return items;
    }

    // An arena filled only by push_back: every index below its size holds an item.
    template <typename T> static void writeItems(image::Writer& out, const ChunkedArena<T>& arena) {
        std::vector<T> flat = zeroed<T>(arena.size());
        for (uint32_t i = 0; i < arena.size(); ++i)
            copy(flat[i], arena[i]);
        out.array(std::span<const T>(flat));
    }

    // An arena of lists at the indexes the records give: what no list holds (the tail of a chunk
    // a list did not fit in) is written as zeros.
    template <typename T>
    static void writeLists(image::Writer& out, const TypeGraph& graph, const ChunkedArena<T>& arena,
                           std::initializer_list<Kind> kinds) {
        std::vector<T> flat = zeroed<T>(arena.size());
        for (uint32_t i = 0; i < graph.records_.size(); ++i) {
            const TypeGraph::Record& r = graph.records_[i];
            if (std::find(kinds.begin(), kinds.end(), r.kind) == kinds.end())
                continue;
            const std::span<const T> list = arena.list(r.data, r.extra);
            for (size_t j = 0; j < list.size(); ++j)
                copy(flat[r.data + j], list[j]);
        }
        out.array(std::span<const T>(flat));
    }

    static void writeGraph(image::Writer& out, const TypeGraph& graph) {
        out.value(static_cast<uint8_t>(graph.byteOrder_));
        out.value(graph.pointerSize_);
        writeItems(out, graph.records_);
        writeLists(out, graph, graph.members_, {Kind::Struct, Kind::Union});
        writeLists(out, graph, graph.params_, {Kind::FuncProto});
        writeLists(out, graph, graph.enumerators_, {Kind::Enum, Kind::Enum64});
        writeLists(out, graph, graph.secinfos_, {Kind::Datasec});
        writeItems(out, graph.placements_);
        const StringPool& strings = *graph.strings_;
        out.value(uint8_t{strings.unique_});
        out.value(uint64_t{strings.used_});
        out.array(strings.text_);
        out.array(strings.table_);
    }

    static TypeGraph readGraph(image::Reader& in, std::shared_ptr<const void> owner) {
        TypeGraph graph;
        graph.byteOrder_ = in.value<uint8_t>() == 0 ? ByteOrder::Little : ByteOrder::Big;
        graph.pointerSize_ = in.value<uint8_t>();
        graph.records_.readInPlace(in);
        graph.members_.readInPlace(in);
        graph.params_.readInPlace(in);
        graph.enumerators_.readInPlace(in);
        graph.secinfos_.readInPlace(in);
        graph.placements_.readInPlace(in);
        StringPool& strings = *graph.strings_;
        strings.unique_ = in.value<uint8_t>() != 0;
        strings.used_ = in.value<uint64_t>();
        strings.bytes_.clear();
        strings.text_ = in.array<char>();
        strings.slots_.clear();
        strings.table_ = in.array<StringPool::Slot>();
        strings.owner_ = std::move(owner);
        return graph;
    }
};

bool writeBaseImage(const std::shared_ptr<const TypeGraph>& base, std::string_view key,
                    const ImageSink& sink, size_t blockSize) {
    image::Writer out(sink, blockSize);
    out.value(kMagic);
    out.value(kFormat);
    out.array(std::span<const char>(key));
    ImageAccess::writeGraph(out, *base);
    dedup::BaseIndex::of(base)->writeTo(out);
    BaseFunctions::of(base)->writeTo(out);
    return out.finish();
}

std::vector<std::byte> writeBaseImage(const std::shared_ptr<const TypeGraph>& base,
                                      std::string_view key) {
    std::vector<std::byte> image;
    constexpr size_t kBlock = 1 << 16;
    writeBaseImage(
        base, key,
        [&](std::span<const std::byte> block) {
            image.insert(image.end(), block.begin(), block.end());
            return true;
        },
        kBlock);
    return image;
}

std::shared_ptr<const TypeGraph> readBaseImage(std::span<const std::byte> bytes,
                                               std::string_view key,
                                               std::shared_ptr<const void> owner) {
    image::Reader in(bytes);
    if (in.value<uint64_t>() != kMagic || in.value<uint32_t>() != kFormat)
        return nullptr;
    const std::span<const char> written = in.array<char>();
    if (!in.good() || std::string_view(written.data(), written.size()) != key)
        return nullptr;
    auto base = std::make_shared<const TypeGraph>(ImageAccess::readGraph(in, std::move(owner)));
    auto index = dedup::BaseIndex::readFrom(*base, in);
    auto functions = BaseFunctions::readFrom(in);
    // Cut short, or tables that do not cover the base's ids: not this build's image of it.
    const size_t ids = base->endId();
    if (!in.good() || !in.atEnd() || functions->functionsOf.size() != ids ||
        functions->tagsOf.size() != ids || functions->nextOfSameTarget.size() != ids)
        return nullptr;
    dedup::BaseIndex::install(base, std::move(index));
    BaseFunctions::install(base, std::move(functions));
    return base;
}

} // namespace btforge::ir
