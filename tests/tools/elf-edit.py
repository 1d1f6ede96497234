#!/usr/bin/env python3
"""elf-edit.py FILE EDIT...: rewrites fields of an ELF file's headers in place, for tests that
need a corrupt file. Each EDIT is one of
    ehdr.FIELD=VALUE             e_shoff, e_shnum, e_shstrndx, e_shentsize, ...
    shdr[SECTION].FIELD=VALUE    sh_type, sh_flags, sh_offset, sh_size, sh_link, sh_info, sh_entsize
    chdr[SECTION].FIELD=VALUE    ch_type, ch_size, ch_addralign (SHF_COMPRESSED sections)
SECTION is a name or an index; VALUE is an integer (0x... allowed). Both classes and both byte
orders."""
import struct
import sys

EHDR = {  # field: (offset in ELF32, offset in ELF64, size in ELF32, size in ELF64)
    "e_type": (16, 16, 2, 2), "e_machine": (18, 18, 2, 2), "e_shoff": (32, 40, 4, 8),
    "e_shentsize": (46, 58, 2, 2), "e_shnum": (48, 60, 2, 2), "e_shstrndx": (50, 62, 2, 2),
}
SHDR = {
    "sh_name": (0, 0, 4, 4), "sh_type": (4, 4, 4, 4), "sh_flags": (8, 8, 4, 8),
    "sh_addr": (12, 16, 4, 8), "sh_offset": (16, 24, 4, 8), "sh_size": (20, 32, 4, 8),
    "sh_link": (24, 40, 4, 4), "sh_info": (28, 44, 4, 4), "sh_addralign": (32, 48, 4, 8),
    "sh_entsize": (36, 56, 4, 8),
}
CHDR = {"ch_type": (0, 0, 4, 4), "ch_size": (4, 8, 4, 8), "ch_addralign": (8, 16, 4, 8)}


class Elf:
    def __init__(self, data):
        if data[:4] != b"\x7fELF":
            sys.exit("not an ELF file")
        self.data = data
        self.is64 = data[4] == 2
        self.order = "<" if data[5] == 1 else ">"

    def field(self, table, name):
        off32, off64, size32, size64 = table[name]
        return (off64, size64) if self.is64 else (off32, size32)

    def get(self, base, table, name):
        off, size = self.field(table, name)
        code = {2: "H", 4: "I", 8: "Q"}[size]
        return struct.unpack_from(self.order + code, self.data, base + off)[0]

    def put(self, base, table, name, value):
        off, size = self.field(table, name)
        code = {2: "H", 4: "I", 8: "Q"}[size]
        struct.pack_into(self.order + code, self.data, base + off, value & ((1 << size * 8) - 1))

    def section_header(self, index):
        return self.get(0, EHDR, "e_shoff") + index * self.get(0, EHDR, "e_shentsize")

    def section(self, key):
        count = self.get(0, EHDR, "e_shnum")
        if key.isdigit():
            return self.section_header(int(key))
        strtab = self.get(self.section_header(self.get(0, EHDR, "e_shstrndx")), SHDR, "sh_offset")
        for i in range(count):
            header = self.section_header(i)
            start = strtab + self.get(header, SHDR, "sh_name")
            if self.data[start:self.data.index(b"\0", start)].decode() == key:
                return header
        sys.exit("no section " + key)


def main():
    path, edits = sys.argv[1], sys.argv[2:]
    with open(path, "rb") as f:
        elf = Elf(bytearray(f.read()))
    for edit in edits:
        target, value = edit.split("=")
        value = int(value, 0)
        head, name = target.rsplit(".", 1)
        if head == "ehdr":
            elf.put(0, EHDR, name, value)
            continue
        kind, section = head[:4], head[5:-1]
        header = elf.section(section)
        if kind == "shdr":
            elf.put(header, SHDR, name, value)
        elif kind == "chdr":
            elf.put(elf.get(header, SHDR, "sh_offset"), CHDR, name, value)
        else:
            sys.exit("bad edit " + edit)
    with open(path, "wb") as f:
        f.write(elf.data)


main()
