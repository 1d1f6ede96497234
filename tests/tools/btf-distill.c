// libbpf's own distillation, the oracle for btforge's distilled_base output
// (tests/integration/distilled-base.sh builds this against libbpf master, 1.5 or later):
//   btf-distill SPLIT BASE OUT_SPLIT OUT_BASE   btf__distill_base of SPLIT, raw split BTF over
//                                               BASE: the split BTF over the distilled base to
//                                               OUT_SPLIT, the distilled base to OUT_BASE
//   btf-distill --native FILE [BASE] OUT         FILE (over BASE) as it is, rewritten; for an
//                                               ELF file with .BTF.base and a BASE, its .BTF
//                                               relocated onto BASE (btf__relocate)
//   btf-distill --relocated FILE BASE OUT        the same, in FILE's byte order: what a kernel
//                                               of that order holds once it loaded the module
// Everything else is written in this machine's byte order: older bpftools read other byte
// orders only with the classic 24-byte header, which libbpf master no longer writes.
#include <bpf/btf.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

// In this machine's byte order (`native`), or the one it was read in.
static int write_raw(struct btf* btf, const char* path, int native) {
    if (native)
        btf__set_endianness(btf, __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? BTF_LITTLE_ENDIAN
                                                                           : BTF_BIG_ENDIAN);
    __u32 size = 0;
    const void* data = btf__raw_data(btf, &size);
    FILE* out = fopen(path, "wb");
    if (!data || !out || fwrite(data, 1, size, out) != size || fclose(out) != 0) {
        fprintf(stderr, "btf-distill: %s: cannot write: %s\n", path, strerror(errno));
        return 1;
    }
    return 0;
}

static struct btf* parse(const char* path, const char* base_path) {
    struct btf* base = base_path ? btf__parse(base_path, NULL) : NULL;
    struct btf* btf = base        ? btf__parse_split(path, base)
                      : base_path ? NULL
                                  : btf__parse(path, NULL);
    if (!btf)
        fprintf(stderr, "btf-distill: %s%s%s: libbpf cannot parse it: %s\n", path,
                base_path ? " over " : "", base_path ? base_path : "", strerror(errno));
    return btf;
}

int main(int argc, char** argv) {
    if (argc >= 4 && argc <= 5 && strcmp(argv[1], "--native") == 0) {
        struct btf* btf = parse(argv[2], argc == 5 ? argv[3] : NULL);
        return !btf || write_raw(btf, argv[argc - 1], 1);
    }
    if (argc == 5 && strcmp(argv[1], "--relocated") == 0) {
        struct btf* btf = parse(argv[2], argv[3]);
        return !btf || write_raw(btf, argv[4], 0);
    }
    if (argc != 5) {
        fprintf(stderr, "usage: btf-distill SPLIT BASE OUT_SPLIT OUT_BASE\n"
                        "       btf-distill --native FILE [BASE] OUT\n"
                        "       btf-distill --relocated FILE BASE OUT\n");
        return 2;
    }
    struct btf* split = parse(argv[1], argv[2]);
    if (!split)
        return 1;
    struct btf *new_base = NULL, *new_split = NULL;
    if (btf__distill_base(split, &new_base, &new_split) != 0) {
        fprintf(stderr, "btf-distill: %s: btf__distill_base failed: %s\n", argv[1],
                strerror(errno));
        return 1;
    }
    return write_raw(new_split, argv[3], 1) || write_raw(new_base, argv[4], 1);
}
