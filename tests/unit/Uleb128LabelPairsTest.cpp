// The pairing both DWARF loaders share for RISC-V's ULEB128 label differences: a SET, then the
// SUB at its offset, gives end - start (modulo 2^64); anything else is named.
#include "btforge/elf/Uleb128LabelPairs.h"

#include <doctest/doctest.h>

using btforge::elf::kRiscvSetUleb128;
using btforge::elf::kRiscvSubUleb128;
using btforge::elf::Uleb128LabelPairs;
using Outcome = Uleb128LabelPairs::Outcome;

TEST_CASE("Uleb128LabelPairs: the psABI's numbers") {
    // RISC-V ELF psABI, "Relocations": R_RISCV_SET_ULEB128 60, R_RISCV_SUB_ULEB128 61.
    CHECK(kRiscvSetUleb128 == 60);
    CHECK(kRiscvSubUleb128 == 61);
    CHECK(Uleb128LabelPairs::isPairType(60));
    CHECK(Uleb128LabelPairs::isPairType(61));
    CHECK_FALSE(Uleb128LabelPairs::isPairType(39)); // R_RISCV_SUB32
}

TEST_CASE("Uleb128LabelPairs: a SET and its SUB give the difference") {
    Uleb128LabelPairs pairs;
    CHECK(pairs.add(kRiscvSetUleb128, 0x40, {3, 0x1234}) == Outcome::SetTaken);
    CHECK(pairs.waitingSet() == 0x40);
    CHECK(pairs.add(kRiscvSubUleb128, 0x40, {3, 0x1200}) == Outcome::Paired);
    CHECK(pairs.difference() == 0x34);
    CHECK_FALSE(pairs.waitingSet());
    // A start past the end wraps, as the psABI's arithmetic does.
    CHECK(pairs.add(kRiscvSetUleb128, 0x48, {3, 1}) == Outcome::SetTaken);
    CHECK(pairs.add(kRiscvSubUleb128, 0x48, {3, 2}) == Outcome::Paired);
    CHECK(pairs.difference() == ~uint64_t(0));
}

TEST_CASE("Uleb128LabelPairs: what does not pair") {
    Uleb128LabelPairs pairs;
    CHECK(pairs.add(kRiscvSubUleb128, 0, {1, 0}) == Outcome::SubWithoutSet);
    CHECK(pairs.add(kRiscvSetUleb128, 8, {1, 9}) == Outcome::SetTaken);
    CHECK(pairs.add(kRiscvSetUleb128, 16, {1, 9}) == Outcome::SetWithoutSub);
    CHECK(pairs.waitingSet() == 8); // the first SET still waits
    CHECK(pairs.add(kRiscvSubUleb128, 16, {1, 0}) == Outcome::SubWithoutSet);
    CHECK(pairs.add(kRiscvSubUleb128, 8, {2, 0}) == Outcome::AcrossSections);
    CHECK_FALSE(pairs.waitingSet());
    CHECK(pairs.add(kRiscvSetUleb128, 24, {1, 9}) == Outcome::SetTaken);
    pairs.clear();
    CHECK_FALSE(pairs.waitingSet());
}
