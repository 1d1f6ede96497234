#include "BaseWorld.h"

namespace btforge::dedup {

BaseWorld::BaseWorld(const ir::TypeGraph& base) : base_(base) {}

size_t BaseWorld::memoryUsage() const {
    return nodeOf_.memoryUsage() + nodes_.memoryUsage();
}

} // namespace btforge::dedup
