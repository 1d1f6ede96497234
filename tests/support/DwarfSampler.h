// One C translation unit described in DWARF, in every form the fixture writer knows that the
// DWARF version allows: what readelf and llvm-dwarfdump are asked to accept
// (tests/tools/dwarf-fixtures.cpp) and what the reader tests expect both loaders to read alike.
// In C, for any version, byte order and class (P: the pointer size, 4 or 8):
//
//   typedef int i_t;
//   struct s { int a; int *p /* at P */; int bits : 3 /* at bit 100 */; };   /* 16 bytes */
//   enum e { NEG = -2, BIG = 0x7fffffff };                                  /* int-based */
//   unsigned char array[10][3];                                             /* unnamed type */
//   enum wide { W = -3 };            /* DWARF 5 only: long long-based, 8 bytes, data16 value */
//   int f(const i_t x);              /* at .text + 0; symbol f */
//   struct s v;                      /* at .data + 0; symbol v */
//
// struct s's size, and its member a's name and type, are DW_FORM_indirect; in DWARF 5, a's
// location is DW_FORM_implicit_const. Names are in .debug_str (DW_FORM_strp; DWARF 5: strx forms
// too) or inline (DW_FORM_string). The bitfield is DW_AT_data_bit_offset 100 from DWARF 4; before,
// DW_AT_bit_offset 25 in a 4-byte unit at byte 12, counted from the unit's most significant bit:
// bit 100 on a little-endian target (96 + 32 - 25 - 3), bit 121 on a big-endian one (96 + 25).
#pragma once

#include "DwarfFixture.h"

namespace btforge::test {

Fixture sampler(uint16_t version, Endian endian, bool elf64);

// Where sampler() puts f and v.
inline constexpr uint64_t kSamplerText = 0x1000;
inline constexpr uint64_t kSamplerData = 0x2000;

} // namespace btforge::test
