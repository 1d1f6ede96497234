#include "BaseWorld.h"

namespace btforge::dedup {

BaseWorld::BaseWorld(const ir::TypeGraph& base) : base_(base), nodeOf_(base.endId(), kNone) {}

size_t BaseWorld::memoryUsage() const {
    return nodeOf_.capacity() * sizeof(uint32_t) + nodes_.memoryUsage();
}

} // namespace btforge::dedup
