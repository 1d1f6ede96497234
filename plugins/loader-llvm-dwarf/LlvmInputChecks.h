// Checks of an input before LLVM reads it: what would make LLVM end the process (a bad
// relocation section, a compressed section claiming more than can be allocated) or read past a
// unit (a block length), each found by the fuzzer; and the inflation of .zdebug_ sections.
#pragma once

#include <cstdint>
#include <llvm/DebugInfo/DWARF/DWARFDataExtractor.h>
#include <llvm/DebugInfo/DWARF/DWARFUnit.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/MemoryBuffer.h>
#include <memory>
#include <string>

namespace btforge::dwarf {

// What is wrong with the relocation sections of `object` (ELF), or "".
std::string relocationProblem(const llvm::object::ObjectFile& object);
// What is wrong with the compressed sections of `object` (ELF), or "".
std::string compressionProblem(const llvm::object::ObjectFile& object);
// A copy of `object` whose .zdebug_ sections are inflated and renamed .debug_, or null when it
// has none. Claimed sizes must have passed compressionProblem.
llvm::Expected<std::unique_ptr<llvm::WritableMemoryBuffer>>
inflateGnuSections(const llvm::object::ObjectFile& object);
// Whether the attributes of the DIE at `offset` (its abbreviation code) end before `end`.
bool attributesInBounds(const llvm::DWARFUnit& unit, const llvm::DWARFDataExtractor& data,
                        uint64_t offset, uint64_t end);

} // namespace btforge::dwarf
