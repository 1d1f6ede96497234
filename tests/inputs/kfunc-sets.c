/* Functions listed in .BTF_ids set8 tables, laid out as the kernel's btf_ids.h lays them out
 * (written from that layout, kernel 6.9+): a set is a `__BTF_ID__set8__<set>` label over
 * {u32 cnt; u32 flags;} and one {u32 id; u32 flags;} per function, each entry labelled
 * `__BTF_ID__func__<name>__<n>`. Sets whose flags have BTF_SET8_KFUNCS (bit 0) list kfuncs;
 * other set8 tables (BTF id sets) do not. KF_ARENA_* flags say which of a kfunc's pointers (the
 * return value, argument 1, argument 2) point into a BPF arena (feature attributes). */
#define SET8_KFUNCS "1"
#define KF_ACQUIRE "1"
#define KF_RET_NULL "2"
#define KF_FASTCALL "4096"
#define KF_ARENA_RET_ARG2 "40960"      /* 1 << 13 | 1 << 15 */
#define KF_ARENA_ARG2 "32768"          /* 1 << 15 */
#define KF_ARENA_ARG1_RET_NULL "16386" /* 1 << 14 | KF_RET_NULL */

__attribute__((noinline)) long kf_plain(long a) { return a + 1; }
__attribute__((noinline)) long kf_fast(long a, long b) { return a * b; }
__attribute__((noinline)) long kf_acquire(long a) { return a - 1; }
__attribute__((noinline)) long kf_in_two_sets(long a) { return a << 1; }
__attribute__((noinline)) long listed_in_id_set(long a) { return a ^ 3; }
__attribute__((noinline)) long not_listed(long a) { return a | 8; }
__attribute__((noinline)) void *kf_arena_alloc(void *map, void *addr, long count) {
    return (char *)addr + count + (map != 0);
}
__attribute__((noinline)) void kf_arena_free(void *map, int *ptr, long count) {
    ptr[count] = map != 0;
}
__attribute__((noinline)) long kf_arena_first(char *first, char *second) {
    return first[0] + second[1];
}

asm(".pushsection .BTF_ids,\"a\"\n"
    ".balign 8\n"
    "__BTF_ID__set8__test_kfunc_set:\n"
    ".long 0\n.long " SET8_KFUNCS "\n"
    "__BTF_ID__func__kf_plain__1:\n.long 0\n.long 0\n"
    "__BTF_ID__func__kf_fast__2:\n.long 0\n.long " KF_FASTCALL "\n"
    "__BTF_ID__func__kf_acquire__3:\n.long 0\n.long " KF_ACQUIRE "\n"
    "__BTF_ID__func__kf_in_two_sets__4:\n.long 0\n.long " KF_RET_NULL "\n"
    "__BTF_ID__func__kf_arena_alloc__7:\n.long 0\n.long " KF_ARENA_RET_ARG2 "\n"
    "__BTF_ID__func__kf_arena_free__8:\n.long 0\n.long " KF_ARENA_ARG2 "\n"
    "__BTF_ID__func__kf_arena_first__9:\n.long 0\n.long " KF_ARENA_ARG1_RET_NULL "\n"
    ".size __BTF_ID__set8__test_kfunc_set, .-__BTF_ID__set8__test_kfunc_set\n"
    ".balign 8\n"
    "__BTF_ID__set8__test_id_set:\n"
    ".long 0\n.long 0\n"
    "__BTF_ID__func__listed_in_id_set__5:\n.long 0\n.long 0\n"
    ".size __BTF_ID__set8__test_id_set, .-__BTF_ID__set8__test_id_set\n"
    ".balign 8\n"
    "__BTF_ID__set8__test_fastcall_set:\n"
    ".long 0\n.long " SET8_KFUNCS "\n"
    "__BTF_ID__func__kf_in_two_sets__6:\n.long 0\n.long " KF_FASTCALL "\n"
    ".size __BTF_ID__set8__test_fastcall_set, .-__BTF_ID__set8__test_fastcall_set\n"
    ".popsection\n");

int main(int argc, char **argv) {
    int cells[4] = {0};
    kf_arena_free(argv, cells, argc & 3);
    return (int)(kf_plain(argc) + kf_fast(argc, 2) + kf_acquire(argc) + kf_in_two_sets(argc) +
                 listed_in_id_set(argc) + not_listed(argc) +
                 (kf_arena_alloc(argv, argv[0], argc) != 0) + kf_arena_first(argv[0], argv[0]) +
                 cells[0]);
}
