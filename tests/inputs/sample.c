/* The bundled default input of the main job: a small C program whose DWARF btforge turns into
 * BTF. Built with gcc -g -O2 by the build (tests/inputs/CMakeLists.txt). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

enum entry_state { ENTRY_FREE, ENTRY_USED, ENTRY_DELETED = -1 };

struct entry {
    char key[24];
    uint64_t value;
    enum entry_state state;
    uint32_t hits : 20;
    uint32_t flags : 12;
};

struct table {
    unsigned int capacity;
    unsigned int used;
    struct entry *slots;
    int (*compare)(const char *a, const char *b);
};

/* Per-CPU style counters, in the section the kernel uses for them. */
struct table_stats {
    uint64_t lookups;
    uint64_t misses;
} table_stats __attribute__((section(".data..percpu")));

static struct entry storage[64];
struct table global_table = {64, 0, storage, strcmp};

__attribute__((noinline)) static unsigned int hash_key(const char *key) {
    unsigned int h = 2166136261u;
    while (*key)
        h = (h ^ (unsigned char)*key++) * 16777619u;
    return h;
}

__attribute__((noinline)) struct entry *table_find(struct table *t, const char *key) {
    table_stats.lookups++;
    for (unsigned int i = 0, h = hash_key(key); i < t->capacity; i++) {
        struct entry *e = &t->slots[(h + i) % t->capacity];
        if (e->state == ENTRY_FREE)
            break;
        if (e->state == ENTRY_USED && t->compare(e->key, key) == 0) {
            e->hits++;
            return e;
        }
    }
    table_stats.misses++;
    return NULL;
}

__attribute__((noinline)) int table_put(struct table *t, const char *key, uint64_t value) {
    for (unsigned int i = 0, h = hash_key(key); i < t->capacity; i++) {
        struct entry *e = &t->slots[(h + i) % t->capacity];
        if (e->state != ENTRY_USED) {
            snprintf(e->key, sizeof e->key, "%s", key);
            e->value = value;
            e->state = ENTRY_USED;
            t->used++;
            return 0;
        }
    }
    return -1;
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++)
        table_put(&global_table, argv[i], (uint64_t)i);
    struct entry *e = table_find(&global_table, argc > 1 ? argv[1] : "none");
    printf("%s\n", e ? e->key : "(none)");
    return 0;
}
