/* Shapes whose layouts tests/integration/layout.sh compares with upstream pahole's: bitfields
 * (zero-width, unnamed, spanning units, enums and _Bool), packed and aligned structs and members,
 * anonymous and nested types (clang declares them inside their struct), flexible and zero-length
 * arrays, function pointers, enums of every size, qualifiers, typedefs, a function-local type,
 * clang's btf_type_tag annotations. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum color { RED, GREEN = 5, BLUE = -3 };
enum __attribute__((packed)) small_enum { S0, S1, S2 };
enum wide_enum { W0 = 1, W1 = 0x1ffffffffULL };
typedef struct { int x, y; } point_t;
typedef union { int i; float f; } number_t;
typedef enum { T0, T1 } anon_enum_t;
typedef int (*handler_t)(void *ctx, int op);
typedef char name_t[16];

struct bits {
    unsigned int a : 3;
    signed int b : 5;
    unsigned char c;
    uint64_t wide : 40;
    int tail : 1;
    unsigned int : 0;
    unsigned int after : 7;
    bool flag : 1;
    enum color hue : 4;
    unsigned short s : 9;
    unsigned char u : 2, : 3, v : 2;
    long long ll : 33;
};

struct __attribute__((packed)) packed {
    char c;
    int i;
    short s;
    struct bits b;
};

struct packed_member {
    char c;
    struct { long x; char y; } __attribute__((packed)) inner;
    int z;
};

struct aligned {
    char c;
    int i __attribute__((aligned(16)));
    char tail;
} __attribute__((aligned(64)));

struct holder {
    char c;
    struct aligned a;
    short s;
    struct packed p;
    _Alignas(32) int forced;
    long double ld;
    __int128 big;
};

struct anonymous {
    int kind;
    union {
        int as_int;
        float as_float;
        struct {
            short lo, hi;
            union {
                char deep[3];
                struct { unsigned char d1 : 4, d2 : 4; };
            };
        };
    };
    struct {
        char tag;
        long value;
    } named_inner;
    struct { int p; } *pointed;
    const struct { int q; char r; } constant;
    volatile int vol;
    const char *const names[2];
    volatile struct { int w; } volatile_inner;
};

struct flexible {
    unsigned int count;
    long items[];
};

struct zero_length {
    int n;
    char zero[0];
    int after;
    struct flexible f;
};

struct with_flexible_member {
    int before;
    struct flexible f;
};

struct nests_flexible {
    struct with_flexible_member w;
    struct zero_length z;
    char last;
};

/* Through a typedef the struct still embeds a flexible array (mips64's bpf_perf_event_data). */
typedef struct flexible flexible_t;
struct typedef_flexible {
    flexible_t f;
    long after;
};
struct holds_typedef_flexible {
    struct typedef_flexible t;
    int n;
};

/* A flexible array of an anonymous struct, which clang declares after it: pahole prints "[0]". */
struct id_pairs {
    unsigned int count;
    struct { unsigned int id, flags; } pairs[];
};

/* A struct clang declares an anonymous union in, as a member's type: -E expands it there, and
 * pahole closes the union with that member's name where the member's type is a typedef. */
struct lock_like {
    union {
        int raw;
        long wide;
    };
};
typedef struct lock_like lock_like_t;
struct holds_lock {
    int n;
    struct lock_like lock;
    lock_like_t through_typedef;
};

/* clang's btf_type_tag annotations (the kernel's __user), which gcc ignores: pahole prints none. */
#define TAGGED(t) __attribute__((btf_type_tag(t)))
struct user_pointers {
    char TAGGED("user") *name;
    const char TAGGED("user") *const_name;
    int TAGGED("user") TAGGED("rcu") *twice;
    long (*read)(char TAGGED("user") *buf, unsigned long n);
    /* A tagged function pointer, a parameter one, and a const pointer behind a tag (the 6.12
     * kernel's rethook handler, __rcu, and compat's `const char __user *const __user *`). */
    void (TAGGED("rcu") *handler)(int, void (TAGGED("rcu") *done)(void));
    const char TAGGED("user") *const TAGGED("user") *native;
};

struct functions {
    void (*callback)(int, char *);
    int (*table[4])(void);
    handler_t handler;
    struct bits *(*factory)(const struct bits *, size_t, ...);
    void (*(*nested)(int))(long);
    int (*varargs)(const char *fmt, ...);
    void (*noargs)();
};

struct arrays {
    int matrix[3][4];
    char cube[2][3][4];
    name_t names[2];
    point_t points[3];
    struct { int a; } anon_array[2];
    double d[0];
};

struct typedefs {
    point_t p;
    number_t n;
    anon_enum_t e;
    handler_t h;
    name_t name;
    enum color color;
    enum small_enum small;
    enum wide_enum wide;
    enum { LOCAL_A, LOCAL_B = 7 } local;
};

struct big {
    char head;
    long l[9];
    char mid;
    struct holder h[2];
    int tail;
    char pad[100];
    struct anonymous anon;
};

union mixed {
    struct bits b;
    struct packed p;
    char raw[40];
    struct { int x; char y; } pair;
    long long ll;
    struct flexible f;
};

/* Packed only by how it is used: aligned inside, at an odd offset in a struct with a hole (as the
 * kernel's struct usb_eusb2_isoc_ep_comp_descriptor in usb_host_endpoint). pahole marks it packed
 * when it first looks into a struct using it by value: struct endpoint, here while it prints
 * device_like, which clang emits before the other two. */
struct __attribute__((packed)) descriptor { uint8_t len, type; uint16_t size; uint32_t bytes; };
struct endpoint { uint8_t head[3]; struct descriptor d; void *extra; };
struct device_like { struct descriptor *first; struct endpoint ep0; int n; };

/* Tail padding DWARF does not explain (compilers leave unnamed bitfields out): pahole shows it as
 * unnamed bitfields of the last member's type when it is more than a pointer and that type's size
 * a power of two (struct timex), not when it is a pointer or less (the kernel's
 * bpf_insn_array_value: 4 bytes) nor after a member of three bytes. */
struct tail_small { uint32_t a, b, c; uint32_t :32; };
struct tail_pointer { int64_t a; int64_t :64; };
struct tail_large { int32_t x; int32_t :32; int32_t :32; int32_t :32; int32_t :32; };
struct tail_odd { uint32_t a; char s[3]; char :8; uint32_t :32; uint32_t :32; uint32_t :32; };
/* ... and after the comment on a last member with bit holes, set off by a blank line (s390x's
 * struct esw_eadm). */
struct some_bits { uint32_t f:18; };
struct tail_after_comment { uint32_t a; struct some_bits b; uint32_t :32, :32, :32; };

/* ... and of a last member whose type is an array behind a typedef (the kernel's cpumask_var_t
 * at the end of struct rq): -E writes the struct in place, its dimensions before the width. */
typedef struct mask { unsigned long bits[1]; } mask_var_t[1];
struct tail_array { int64_t a; mask_var_t m; int64_t :64; int64_t :64; };

struct tail_small tail_small; struct tail_pointer tail_pointer; struct tail_large tail_large;
struct tail_array tail_array;
struct tail_odd tail_odd; struct tail_after_comment tail_after_comment;
/* A struct in a union whose size its alignment does not divide: packed, as an array of the union
 * would misalign it (pahole marks it when it prints the union; i386's u64 in a union of 28). */
#pragma pack(push, 4)
union packed_union { struct { uint64_t a; } s; char c[12]; };
#pragma pack(pop)
union packed_union packed_union;

/* Two versions of one union (shapes_v2.c has the other): the same size, members at the same
 * offsets, unnamed members of other sizes. pahole lists the first only: it compares names where
 * both members have one, offsets and bitfield sizes, not types (amdgpu's MESAPI unions). */
union api_frame { struct { uint32_t header; uint32_t queue; }; uint32_t dwords[4]; };
union api_frame api_frame;

struct bits bits; struct packed packed; struct packed_member packed_member; struct aligned aligned;
struct holder holder; struct anonymous anonymous; struct flexible *flexible;
struct zero_length zero_length; struct with_flexible_member *wfm; struct nests_flexible *nf;
struct holds_typedef_flexible *htf; struct id_pairs *id_pairs;
struct user_pointers user_pointers; struct holds_lock holds_lock;
struct functions functions; struct arrays arrays; struct typedefs typedefs; struct big big;
union mixed mixed; struct device_like device_like;
int main(void) {
    struct local_only { int hidden; } local = {0}; /* pahole lists it only when asked by name */
    return local.hidden;
}
