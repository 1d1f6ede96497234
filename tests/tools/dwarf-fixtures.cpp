// Writes the sampler fixture (tests/support/DwarfSampler.h) for each DWARF version (2-5), byte
// order and ELF class into a directory, for independent readers to judge the fixture writer's
// files (readelf, llvm-dwarfdump --verify: tests/integration/dwarf-fixtures.sh).
#include "DwarfSampler.h"

#include <cstdio>
#include <exception>
#include <string>

using namespace btforge::test;

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: dwarf-fixtures DIRECTORY\n");
        return 2;
    }
    try {
        for (uint16_t version = 2; version <= 5; ++version) {
            for (Endian endian : {Endian::Little, Endian::Big}) {
                for (bool elf64 : {false, true}) {
                    std::string name = std::string(argv[1]) + "/v" + std::to_string(version) +
                                       (endian == Endian::Little ? "-le" : "-be") +
                                       (elf64 ? "-64" : "-32") + ".elf";
                    writeFile(name, writeElf(sampler(version, endian, elf64)));
                }
            }
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "dwarf-fixtures: %s\n", e.what());
        return 1;
    }
    return 0;
}
