// The entry of the json loader's reader companion (BpftoolJsonReader.h).
#include "BpftoolJsonReader.h"

#include "btforge/plugin/Companion.h"

BTFORGE_COMPANION(btforge::json::ReadBpftoolJson, &btforge::json::readBpftoolJson);
