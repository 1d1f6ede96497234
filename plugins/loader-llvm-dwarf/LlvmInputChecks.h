// Checks of an input before LLVM reads it: what would make LLVM end the process (a bad
// relocation section, a compressed section claiming more than can be allocated, a form it does
// not know) or read past a unit (a block length), each found by a fuzzer or a test; and the
// inflation of .zdebug_ sections.
#pragma once

#include <array>
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
// Whether LLVM's value decoder knows `form` (on one it does not, it ends the process).
bool knownForm(unsigned form);

namespace detail {
// By standard form: whether LLVM decodes its values without checks here (it knows the form, which
// is neither a block nor DW_FORM_indirect).
extern const std::array<bool, 0x30> kPlainStandardForms;
bool checkedOtherForm(llvm::dwarf::Form& form, const llvm::DWARFDataExtractor& data,
                      uint64_t* offset, uint64_t end);
} // namespace detail

// Whether LLVM may decode the attribute value at `*offset` of `form`: it knows the form (on one it
// does not, its decoder stops the process, where its skipping only fails) and a block's length
// stays before `end`. DW_FORM_indirect is resolved into `form`, `*offset` moved past it.
inline bool checkedForm(llvm::dwarf::Form& form, const llvm::DWARFDataExtractor& data,
                        uint64_t* offset, uint64_t end) {
    return (form < detail::kPlainStandardForms.size() && detail::kPlainStandardForms[form]) ||
           detail::checkedOtherForm(form, data, offset, end);
}

} // namespace btforge::dwarf
