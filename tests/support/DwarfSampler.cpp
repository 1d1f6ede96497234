#include "DwarfSampler.h"

#include <dwarf.h>
#include <elf.h>

namespace btforge::test {

Fixture sampler(uint16_t version, Endian endian, bool elf64) {
    const bool v4 = version >= 4;
    const bool v5 = version >= 5;
    // Member offsets as constants, and as the DW_OP_plus_uconst expression DWARF 2 and 3 use.
    auto offset = [&](uint8_t bytes) {
        return v4 ? Attribute{DW_AT_data_member_location, DW_FORM_udata, bytes}
                  : Attribute{DW_AT_data_member_location, DW_FORM_block1,
                              Bytes{{DW_OP_plus_uconst, bytes}}};
    };
    // Names in .debug_str: by offset, or in DWARF 5 by index into .debug_str_offsets.
    auto stringName = [&](const char* text, uint16_t strx) {
        return Attribute{DW_AT_name, v5 ? strx : uint16_t{DW_FORM_strp}, text};
    };
    std::vector<Die> types = {
        {DW_TAG_base_type,
         {stringName("int", DW_FORM_strx1),
          {DW_AT_byte_size, DW_FORM_data1, 4},
          {DW_AT_encoding, DW_FORM_data1, DW_ATE_signed}},
         {},
         "int"},
        {DW_TAG_base_type,
         {{DW_AT_name, DW_FORM_string, "unsigned char"},
          {DW_AT_byte_size, DW_FORM_data2, 1},
          {DW_AT_encoding, DW_FORM_data4, DW_ATE_unsigned_char}},
         {},
         "uchar"},
        {DW_TAG_base_type,
         {stringName("long long", DW_FORM_strx),
          {DW_AT_byte_size, DW_FORM_data8, 8},
          {DW_AT_encoding, DW_FORM_udata, DW_ATE_signed}},
         {},
         "llong"},
        {DW_TAG_pointer_type,
         {{DW_AT_byte_size, DW_FORM_sdata, elf64 ? 8 : 4}, {DW_AT_type, DW_FORM_ref1, "int"}},
         {},
         "intp"},
        {DW_TAG_typedef,
         {{DW_AT_name, DW_FORM_string, "i_t"}, {DW_AT_type, DW_FORM_ref2, "int"}},
         {},
         "i_t"},
        {DW_TAG_const_type, {{DW_AT_type, DW_FORM_ref8, "i_t"}}, {}, "const"},
        {DW_TAG_structure_type,
         {stringName("s", DW_FORM_strx2), {DW_AT_byte_size, DW_FORM_indirect, 16, DW_FORM_udata}},
         {{DW_TAG_member,
           {{DW_AT_name, DW_FORM_indirect, "a", DW_FORM_string},
            {DW_AT_type, DW_FORM_indirect, "int", DW_FORM_ref4},
            v5 ? Attribute{DW_AT_data_member_location, DW_FORM_implicit_const, 0} : offset(0)}},
          {DW_TAG_member,
           {{DW_AT_name, DW_FORM_string, "p"},
            {DW_AT_type, DW_FORM_ref_udata, "intp"},
            offset(elf64 ? 8 : 4)}},
          v4 ? Die{DW_TAG_member,
                   {{DW_AT_name, DW_FORM_string, "bits"},
                    {DW_AT_type, DW_FORM_ref4, "int"},
                    {DW_AT_bit_size, DW_FORM_data1, 3},
                    {DW_AT_data_bit_offset, DW_FORM_data2, 100}}}
             : Die{DW_TAG_member,
                   {{DW_AT_name, DW_FORM_string, "bits"},
                    {DW_AT_type, DW_FORM_ref4, "int"},
                    {DW_AT_byte_size, DW_FORM_data1, 4},
                    {DW_AT_bit_size, DW_FORM_data1, 3},
                    {DW_AT_bit_offset, DW_FORM_data1, 25},
                    offset(12)}}},
         "s"},
        {DW_TAG_enumeration_type,
         {{DW_AT_name, DW_FORM_string, "e"},
          {DW_AT_byte_size, DW_FORM_data1, 4},
          {DW_AT_type, DW_FORM_ref_addr, "int"}},
         {{DW_TAG_enumerator,
           {{DW_AT_name, DW_FORM_string, "NEG"}, {DW_AT_const_value, DW_FORM_sdata, -2}}},
          {DW_TAG_enumerator,
           {{DW_AT_name, DW_FORM_string, "BIG"}, {DW_AT_const_value, DW_FORM_data4, 0x7fffffff}}}},
         "e"},
        {DW_TAG_array_type,
         {{DW_AT_type, DW_FORM_ref4, "uchar"}},
         {{DW_TAG_subrange_type,
           {{DW_AT_type, DW_FORM_ref4, "int"}, {DW_AT_upper_bound, DW_FORM_data1, 9}}},
          {DW_TAG_subrange_type, {{DW_AT_count, DW_FORM_udata, 3}}}},
         "array"},
    };
    if (v5) // the same name in the abbreviation, a value of its own per DIE
        types.push_back(
            {DW_TAG_enumeration_type,
             {{DW_AT_name, DW_FORM_string, "wide"},
              {DW_AT_byte_size, DW_FORM_implicit_const, 8},
              {DW_AT_type, DW_FORM_ref4, "llong"}},
             {{DW_TAG_enumerator,
               {{DW_AT_name, DW_FORM_string, "W"}, {DW_AT_const_value, DW_FORM_data16, -3}}}}});

    const uint64_t text = kSamplerText, data = kSamplerData;
    const uint8_t addressSize = elf64 ? 8 : 4;
    Bytes at{{DW_OP_addr}};
    for (uint8_t i = 0; i < addressSize; ++i) {
        uint8_t shift = endian == Endian::Little ? i : addressSize - 1 - i;
        at.bytes.push_back(static_cast<uint8_t>(data >> (8 * shift)));
    }
    Attribute external = v4 ? Attribute{DW_AT_external, DW_FORM_flag_present}
                            : Attribute{DW_AT_external, DW_FORM_flag, 1};
    Attribute highPc = v4 ? Attribute{DW_AT_high_pc, DW_FORM_data4, 0x10}
                          : Attribute{DW_AT_high_pc, DW_FORM_addr, text + 0x10};
    Attribute location = v4 ? Attribute{DW_AT_location, DW_FORM_exprloc, at}
                            : Attribute{DW_AT_location, DW_FORM_block1, at};
    types.push_back({DW_TAG_subprogram,
                     {stringName("f", DW_FORM_strx3),
                      external,
                      {DW_AT_prototyped, DW_FORM_flag, 1},
                      {DW_AT_type, DW_FORM_ref4, "int"},
                      {DW_AT_low_pc, DW_FORM_addr, text},
                      highPc},
                     {{DW_TAG_formal_parameter,
                       {{DW_AT_name, DW_FORM_string, "x"}, {DW_AT_type, DW_FORM_ref4, "const"}}}}});
    types.push_back(
        {DW_TAG_variable,
         {{DW_AT_name, DW_FORM_string, "v"}, {DW_AT_type, DW_FORM_ref4, "s"}, external, location}});

    Fixture f;
    f.endian = endian;
    f.elf64 = elf64;
    f.machine = elf64 ? (endian == Endian::Little ? EM_X86_64 : EM_S390)
                      : (endian == Endian::Little ? EM_386 : EM_PPC);
    f.dwarfVersion = version;
    Die unit{DW_TAG_compile_unit,
             {{DW_AT_producer, DW_FORM_strp, "dwarf-fixtures"},
              {DW_AT_language, DW_FORM_data1, DW_LANG_C99},
              {DW_AT_name, DW_FORM_string, "sampler.c"},
              {DW_AT_low_pc, DW_FORM_addr, text},
              v4 ? Attribute{DW_AT_high_pc, DW_FORM_udata, 0x10}
                 : Attribute{DW_AT_high_pc, DW_FORM_addr, text + 0x10}},
             types};
    if (v5)
        unit.attributes.push_back({DW_AT_str_offsets_base, DW_FORM_sec_offset, 8});
    f.units = {unit};
    f.symbols = {{"f", text, 0x10}, {"v", data, 16, STT_OBJECT, STB_GLOBAL, ".data"}};
    return f;
}

} // namespace btforge::test
