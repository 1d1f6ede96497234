// Prints "<address in hex> <name>" for where every DW_TAG_subprogram's code starts: its
// DW_AT_low_pc, or for code in several pieces (DW_AT_ranges: gcc's hot/cold split) the start of
// each piece. Straight from elfutils libdw: the func-addr tests' independent view of functions.
#include <elfutils/libdw.h>

#include <dwarf.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <unistd.h>

static int print(Dwarf_Die* die, void* arg) {
    (void)arg;
    const char* name = dwarf_diename(die);
    if (!name || dwarf_hasattr(die, DW_AT_declaration))
        return DWARF_CB_OK;
    Dwarf_Addr low;
    if (dwarf_lowpc(die, &low) == 0) {
        printf("%" PRIx64 " %s\n", (uint64_t)low, name);
        return DWARF_CB_OK;
    }
    Dwarf_Addr base, start, end;
    for (ptrdiff_t at = 0; (at = dwarf_ranges(die, at, &base, &start, &end)) > 0;)
        printf("%" PRIx64 " %s\n", (uint64_t)start, name);
    return DWARF_CB_OK;
}

int main(int argc, char** argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s ELF\n", argv[0]);
        return 2;
    }
    int fd = open(argv[1], O_RDONLY);
    Dwarf* dwarf = fd < 0 ? NULL : dwarf_begin(fd, DWARF_C_READ);
    if (!dwarf) {
        fprintf(stderr, "%s: cannot read DWARF\n", argv[1]);
        return 1;
    }
    Dwarf_Off offset = 0, next;
    size_t headerSize;
    while (dwarf_nextcu(dwarf, offset, &next, &headerSize, NULL, NULL, NULL) == 0) {
        Dwarf_Die cu;
        if (dwarf_offdie(dwarf, offset + headerSize, &cu))
            dwarf_getfuncs(&cu, print, NULL, 0);
        offset = next;
    }
    dwarf_end(dwarf);
    close(fd);
    return 0;
}
