/* btf-oracle: asks libbpf and the kernel (tools nobody here wrote) what they make of a BTF file.
 *
 *   btf-oracle parse FILE [BASE]   libbpf's btf__parse / btf__parse_split; prints the type count
 *   btf-oracle load FILE           the kernel's verifier via BPF_BTF_LOAD; exit 77 when the call
 *                                  is not permitted here (tests skip on that)
 *   btf-oracle finalize OBJ OUT    the BTF of a BPF object after libbpf fixed its DATASEC sizes and
 *                                  offsets, as libbpf does before any load
 *   btf-oracle tags FILE [BASE]    every TYPE_TAG and DECL_TAG of FILE as libbpf reads it, one per
 *                                  line: ID KIND kind_flag=0|1 'VALUE' type_id=ID (bpftool's dumps
 *                                  do not show the kind_flag)
 *   btf-oracle dedup FILE [BASE OUT]
 *                                  the type count libbpf's btf__dedup reaches on FILE; split over
 *                                  BASE (none when empty), the deduplicated BTF is written to OUT
 */
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

enum { EXIT_OK = 0, EXIT_REJECTED = 1, EXIT_USAGE = 2, EXIT_SKIP = 77 };

static int warnings_only(enum libbpf_print_level level, const char* fmt, va_list args) {
    return level == LIBBPF_WARN ? vfprintf(stderr, fmt, args) : 0;
}

static struct btf* parse(const char* path, const char* base_path, struct btf** base) {
    *base = NULL;
    if (base_path) {
        *base = btf__parse(base_path, NULL);
        if (!*base) {
            fprintf(stderr, "btf-oracle: libbpf rejects base %s: %s\n", base_path, strerror(errno));
            return NULL;
        }
    }
    struct btf* btf = *base ? btf__parse_split(path, *base) : btf__parse(path, NULL);
    if (!btf)
        fprintf(stderr, "btf-oracle: libbpf rejects %s: %s\n", path, strerror(errno));
    return btf;
}

static int cmd_tags(const char* path, const char* base_path) {
    struct btf* base;
    struct btf* btf = parse(path, base_path, &base);
    if (!btf)
        return EXIT_REJECTED;
    for (__u32 id = base ? btf__type_cnt(base) : 1; id < btf__type_cnt(btf); id++) {
        const struct btf_type* t = btf__type_by_id(btf, id);
        if (btf_kind(t) != BTF_KIND_TYPE_TAG && btf_kind(t) != BTF_KIND_DECL_TAG)
            continue;
        printf("%u %s kind_flag=%d '%s' type_id=%u\n", id,
               btf_kind(t) == BTF_KIND_TYPE_TAG ? "TYPE_TAG" : "DECL_TAG", btf_kflag(t),
               btf__name_by_offset(btf, t->name_off), t->type);
    }
    btf__free(btf);
    btf__free(base);
    return EXIT_OK;
}

static int cmd_parse(const char* path, const char* base_path) {
    struct btf* base;
    struct btf* btf = parse(path, base_path, &base);
    if (!btf)
        return EXIT_REJECTED;
    printf("%u types\n", btf__type_cnt(btf) - 1);
    btf__free(btf);
    btf__free(base);
    return EXIT_OK;
}

static int cmd_load(const char* path) {
    struct btf* base;
    struct btf* btf = parse(path, NULL, &base);
    if (!btf)
        return EXIT_REJECTED;
    int err = btf__load_into_kernel(btf);
    int code = EXIT_OK;
    if (err == -EPERM || err == -EACCES) {
        printf("BPF_BTF_LOAD not permitted here (%s)\n", strerror(-err));
        code = EXIT_SKIP;
    } else if (err) {
        fprintf(stderr, "btf-oracle: the kernel rejects %s: %s\n", path, strerror(-err));
        code = EXIT_REJECTED;
    } else {
        printf("kernel accepts %s\n", path);
    }
    btf__free(btf);
    return code;
}

static int write_raw(const struct btf* btf, const char* out_path) {
    __u32 size = 0;
    const void* data = btf__raw_data(btf, &size);
    FILE* out = fopen(out_path, "wb");
    int ok = data && out && fwrite(data, 1, size, out) == size;
    if (out && fclose(out) != 0)
        ok = 0;
    if (!ok)
        fprintf(stderr, "btf-oracle: cannot write %s\n", out_path);
    return ok ? EXIT_OK : EXIT_REJECTED;
}

static int cmd_dedup(const char* path, const char* base_path, const char* out_path) {
    struct btf* base;
    struct btf* btf = parse(path, base_path, &base);
    if (!btf)
        return EXIT_REJECTED;
    int err = btf__dedup(btf, NULL);
    int code = EXIT_OK;
    if (err) {
        fprintf(stderr, "btf-oracle: btf__dedup fails on %s: %s\n", path, strerror(-err));
        code = EXIT_REJECTED;
    } else {
        printf("%u types\n", btf__type_cnt(btf) - 1);
        if (out_path)
            code = write_raw(btf, out_path);
    }
    btf__free(btf);
    btf__free(base);
    return code;
}

static int cmd_finalize(const char* object_path, const char* out_path) {
    struct bpf_object* obj = bpf_object__open_file(object_path, NULL);
    if (!obj) {
        fprintf(stderr, "btf-oracle: libbpf cannot open %s: %s\n", object_path, strerror(errno));
        return EXIT_REJECTED;
    }
    int code = write_raw(bpf_object__btf(obj), out_path);
    bpf_object__close(obj);
    return code;
}

int main(int argc, char** argv) {
    libbpf_set_print(warnings_only);
    if (argc >= 3 && argc <= 4 && strcmp(argv[1], "parse") == 0)
        return cmd_parse(argv[2], argc == 4 ? argv[3] : NULL);
    if (argc >= 3 && argc <= 4 && strcmp(argv[1], "tags") == 0)
        return cmd_tags(argv[2], argc == 4 ? argv[3] : NULL);
    if (argc == 3 && strcmp(argv[1], "load") == 0)
        return cmd_load(argv[2]);
    if ((argc == 3 || argc == 5) && strcmp(argv[1], "dedup") == 0)
        return cmd_dedup(argv[2], argc == 5 && *argv[3] ? argv[3] : NULL,
                         argc == 5 ? argv[4] : NULL);
    if (argc == 4 && strcmp(argv[1], "finalize") == 0)
        return cmd_finalize(argv[2], argv[3]);
    fprintf(stderr, "usage: btf-oracle parse FILE [BASE] | tags FILE [BASE] | load FILE | dedup "
                    "FILE [BASE OUT] | "
                    "finalize OBJ OUT\n");
    return EXIT_USAGE;
}
