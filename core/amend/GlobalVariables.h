// global_var on BTF input: a VAR for every data object of the ELF symbol table the BTF has none
// for. BTF has no type for such a variable and the symbol table gives only a name, a section, an
// offset and a size, so each VAR is an ARRAY of `unsigned char` of the symbol's size.
//
// An object counts when it is an STT_OBJECT defined in an allocated section, of nonzero size, not
// compiler-made (elf::isCompilerGeneratedObject), named as a C identifier (the kernel refuses any
// other VAR name), and no own VAR has its name yet (the per-CPU ones pahole wrote). Each goes into
// the DATASEC named as its section (an existing one is extended: its entries stay), at its offset
// in the section; one whose range meets an entry already placed is left out (aliases at one
// address: the existing VAR, else the first by name), as the kernel refuses overlapping entries.
#pragma once

#include "btforge/elf/ElfSymbolTable.h"
#include "btforge/ir/TypeGraph.h"

#include <cstdint>

namespace btforge::amend {

// Adds the VARs (and ARRAY, INT and DATASEC types they need) at the end of `graph`, and extends
// its own DATASECs in place; returns how many VARs it added. A function of the graph and the
// symbol table alone.
uint32_t addGlobalVariables(ir::TypeGraph& graph, const elf::ElfSymbolTable& symbols);

} // namespace btforge::amend
