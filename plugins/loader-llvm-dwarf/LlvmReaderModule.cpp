// The entry of the reader companion (see LlvmReaderModule.h).
#include "LlvmReaderModule.h"

#include "LlvmUnitReader.h"

#include "btforge/plugin/Companion.h"

namespace {

btforge::Expected<std::unique_ptr<btforge::dwarf::UnitReader>>
openReader(const std::shared_ptr<btforge::MappedFile>& file) {
    auto reader = btforge::dwarf::LlvmUnitReader::open(file);
    if (!reader)
        return std::move(reader).error();
    return std::unique_ptr<btforge::dwarf::UnitReader>(std::move(*reader));
}

} // namespace

BTFORGE_COMPANION(btforge::dwarf::OpenLlvmReader, &openReader);
