// dwarf-patch FILE COMMAND ARGS: corrupts the DWARF of a little-endian ELF64 file in place, in
// the ways the bad-DWARF tests need and a random byte flip rarely hits:
//   truncate SECTION SIZE      the section header says SIZE bytes (cuts units short)
//   unit-length                the first .debug_info unit claims more bytes than the section has
//   form TAG FORM              the first abbreviation of tag TAG: its first attribute gets FORM
//   garbage SECTION KEEP SEED  every byte of SECTION after the first KEEP is random
//   rela SECTION INDEX FIELD VALUE
//                              FIELD (offset, info or addend) of relocation INDEX in the RELA
//                              section SECTION
//   type-offset SECTION        the type_offset of the type unit the first section SECTION opens
//                              points past that unit's end, into whatever follows (DWARF32)
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace {

struct Section {
    size_t header = 0; // file offset of its section header
    uint64_t offset = 0;
    uint64_t size = 0;
};

[[noreturn]] void fail(const std::string& message) {
    std::fprintf(stderr, "dwarf-patch: %s\n", message.c_str());
    std::exit(1);
}

template <typename T> T load(const std::vector<uint8_t>& bytes, size_t at) {
    if (at + sizeof(T) > bytes.size())
        fail("offset " + std::to_string(at) + " is past the end of the file");
    T value;
    std::memcpy(&value, bytes.data() + at, sizeof(T));
    return value;
}

template <typename T> void store(std::vector<uint8_t>& bytes, size_t at, T value) {
    if (at + sizeof(T) > bytes.size())
        fail("offset " + std::to_string(at) + " is past the end of the file");
    std::memcpy(bytes.data() + at, &value, sizeof(T));
}

Section findSection(const std::vector<uint8_t>& elf, std::string_view name) {
    if (elf.size() < 64 || std::memcmp(elf.data(),
                                       "\x7f"
                                       "ELF\x02\x01",
                                       6) != 0)
        fail("not a little-endian ELF64 file");
    auto shoff = load<uint64_t>(elf, 0x28);
    auto shentsize = load<uint16_t>(elf, 0x3a);
    auto shnum = load<uint16_t>(elf, 0x3c);
    auto shstrndx = load<uint16_t>(elf, 0x3e);
    auto header = [&](size_t i) { return shoff + i * shentsize; };
    auto strtab = load<uint64_t>(elf, header(shstrndx) + 0x18);
    for (size_t i = 0; i < shnum; ++i) {
        size_t at = strtab + load<uint32_t>(elf, header(i));
        if (at < elf.size() && name == reinterpret_cast<const char*>(elf.data() + at))
            return {header(i), load<uint64_t>(elf, header(i) + 0x18),
                    load<uint64_t>(elf, header(i) + 0x20)};
    }
    fail("no section " + std::string(name));
}

uint64_t uleb(const std::vector<uint8_t>& bytes, size_t& at) {
    uint64_t value = 0;
    for (int shift = 0;; shift += 7) {
        auto byte = load<uint8_t>(bytes, at++);
        value |= static_cast<uint64_t>(byte & 0x7f) << (shift & 63);
        if (!(byte & 0x80))
            return value;
    }
}

// Walks .debug_abbrev to the first attribute of the first abbreviation with `tag` and returns
// the file offset of its form.
size_t formOffset(const std::vector<uint8_t>& elf, const Section& abbrev, uint64_t tag) {
    size_t at = abbrev.offset;
    const size_t end = abbrev.offset + abbrev.size;
    while (at < end) {
        if (uleb(elf, at) == 0)
            continue; // the end of one unit's abbreviations
        uint64_t abbrevTag = uleb(elf, at);
        ++at; // DW_CHILDREN_*
        bool first = true;
        for (;;) {
            uint64_t attribute = uleb(elf, at);
            size_t form = at;
            uint64_t formValue = uleb(elf, at);
            if (attribute == 0 && formValue == 0)
                break;
            if (abbrevTag == tag && first)
                return form;
            first = false;
            if (formValue == 0x21) // DW_FORM_implicit_const carries its value here
                uleb(elf, at);
        }
    }
    fail("no abbreviation with tag " + std::to_string(tag));
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: dwarf-patch FILE truncate|unit-length|form|garbage|rela|"
                             "type-offset ...\n");
        return 2;
    }
    const std::string path = argv[1];
    const std::string_view command = argv[2];
    std::vector<uint8_t> elf;
    {
        std::ifstream in(path, std::ios::binary);
        elf.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    auto number = [&](int i) { return argc > i ? std::stoull(argv[i], nullptr, 0) : 0; };

    if (command == "truncate" && argc == 5) {
        Section s = findSection(elf, argv[3]);
        if (number(4) >= s.size)
            fail("truncate must make the section smaller");
        store<uint64_t>(elf, s.header + 0x20, number(4));
    } else if (command == "unit-length" && argc == 3) {
        Section s = findSection(elf, ".debug_info");
        store<uint32_t>(elf, s.offset, static_cast<uint32_t>(s.size));
    } else if (command == "form" && argc == 5) {
        size_t at = formOffset(elf, findSection(elf, ".debug_abbrev"), number(3));
        if (elf[at] & 0x80)
            fail("the form to replace is not a one-byte ULEB128");
        elf[at] = static_cast<uint8_t>(number(4) & 0x7f);
    } else if (command == "garbage" && argc == 6) {
        Section s = findSection(elf, argv[3]);
        std::mt19937_64 rng(number(5));
        for (uint64_t i = number(4); i < s.size; ++i)
            store<uint8_t>(elf, s.offset + i, static_cast<uint8_t>(rng()));
    } else if (command == "rela" && argc == 7) {
        Section s = findSection(elf, argv[3]);
        constexpr uint64_t kRelaSize = 24; // Elf64_Rela: offset, info, addend
        if (number(4) >= s.size / kRelaSize)
            fail("no relocation " + std::to_string(number(4)) + " in " + argv[3]);
        const std::string_view field = argv[5];
        const uint64_t at = field == "offset"   ? 0
                            : field == "info"   ? 8
                            : field == "addend" ? 16
                                                : 1;
        if (at == 1)
            fail("no relocation field " + std::string(field));
        store<uint64_t>(elf, s.offset + number(4) * kRelaSize + at, number(6));
    } else if (command == "type-offset" && argc == 4) {
        Section s = findSection(elf, argv[3]);
        const auto length = load<uint32_t>(elf, s.offset);
        const auto version = load<uint16_t>(elf, s.offset + 4);
        // DWARF 4: length, version, abbreviations, address size, signature; DWARF 5: length,
        // version, unit type, address size, abbreviations, signature.
        const size_t at = s.offset + (version >= 5 ? 20 : 19);
        if (version >= 5 && load<uint8_t>(elf, s.offset + 6) != 2) // DW_UT_type
            fail(std::string(argv[3]) + " does not open with a type unit");
        store<uint32_t>(elf, at, length + 4 + 5);
    } else {
        fail("bad arguments for " + std::string(command));
    }
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(elf.data()), static_cast<std::streamsize>(elf.size()));
    return out ? 0 : 1;
}
