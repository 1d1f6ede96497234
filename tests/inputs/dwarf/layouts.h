/* Layouts whose BTF must equal what the compiler itself says (offsetof, sizeof, bit scans). */
#include <stdint.h>

struct layout_bitfields {
    unsigned int a : 3;
    signed int b : 5;
    unsigned char c;
    uint64_t wide : 40;
    int tail : 1;
    unsigned int : 0; /* unnamed zero-width: forces alignment, not a member */
    unsigned int after : 7;
};

struct layout_packed {
    char c;
    int i;
    short s;
} __attribute__((packed));

struct layout_aligned {
    char c;
    int i __attribute__((aligned(16)));
    char tail;
} __attribute__((aligned(64)));

struct layout_anonymous {
    int kind;
    union {
        int as_int;
        float as_float;
        struct {
            short lo, hi;
        };
    };
    struct {
        char tag;
        long value;
    } named_inner;
};

struct layout_flexible {
    unsigned int count;
    long items[];
};

union layout_union {
    char bytes[12];
    uint64_t word;
    struct layout_packed packed;
};

enum layout_signed { LS_NEG = -7, LS_POS = 9 };
enum layout_unsigned { LU_A = 1, LU_BIG = 0xfffffff0u };
enum layout_wide { LW_SMALL = 1, LW_HUGE = 0x123456789abcdefull };

typedef int (*layout_callback)(const char *fmt, ...);

struct layout_everything {
    struct layout_bitfields bits;
    struct layout_packed packed;
    struct layout_aligned aligned;
    struct layout_anonymous anon;
    union layout_union u;
    enum layout_signed s;
    enum layout_unsigned us;
    enum layout_wide w;
    layout_callback cb;
    int matrix[2][3];
    const volatile char *restrict name;
    struct layout_flexible flex;
};
