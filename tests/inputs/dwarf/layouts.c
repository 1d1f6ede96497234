/* Prints each test struct's layout as the compiler sees it, in the shape the BTF test compares:
 *   STRUCT name size=N
 *   	'member' bits_offset=N [bitfield_size=N]
 * Bitfield positions are found by setting the field in a zeroed object and scanning its bits in
 * BTF's order: bytes by address, and within a byte from the least significant bit on a
 * little-endian target, from the most significant on a big-endian one (as the kernel reads
 * bits_offset there). */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "layouts.h"

#define BEGIN(kind, type) printf("%s %s size=%zu\n", kind, #type, sizeof(struct type))
#define BEGIN_UNION(type) printf("UNION %s size=%zu\n", #type, sizeof(union type))
#define MEMBER(type, m) printf("\t'%s' bits_offset=%zu\n", #m, offsetof(type, m) * 8)

static int lowest_set_bit(const unsigned char *p, size_t n) {
    for (size_t i = 0; i < n * 8; i++)
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        if (p[i / 8] & (0x80u >> (i % 8)))
#else
        if (p[i / 8] & (1u << (i % 8)))
#endif
            return (int)i;
    return -1;
}

#define BITFIELD(type, m, width)                                                                   \
    do {                                                                                           \
        type x;                                                                                    \
        memset(&x, 0, sizeof x);                                                                   \
        x.m = -1;                                                                                  \
        printf("\t'%s' bits_offset=%d bitfield_size=%d\n", #m,                                    \
               lowest_set_bit((const unsigned char *)&x, sizeof x), width);                        \
    } while (0)

int layouts_print(void) {
    BEGIN("STRUCT", layout_bitfields);
    BITFIELD(struct layout_bitfields, a, 3);
    BITFIELD(struct layout_bitfields, b, 5);
    MEMBER(struct layout_bitfields, c);
    BITFIELD(struct layout_bitfields, wide, 40);
    BITFIELD(struct layout_bitfields, tail, 1);
    BITFIELD(struct layout_bitfields, after, 7);

    BEGIN("STRUCT", layout_packed);
    MEMBER(struct layout_packed, c);
    MEMBER(struct layout_packed, i);
    MEMBER(struct layout_packed, s);

    BEGIN("STRUCT", layout_aligned);
    MEMBER(struct layout_aligned, c);
    MEMBER(struct layout_aligned, i);
    MEMBER(struct layout_aligned, tail);

    BEGIN("STRUCT", layout_anonymous);
    MEMBER(struct layout_anonymous, kind);
    printf("\t'(anon)' bits_offset=%zu\n", offsetof(struct layout_anonymous, as_int) * 8);
    MEMBER(struct layout_anonymous, named_inner);

    BEGIN("STRUCT", layout_flexible);
    MEMBER(struct layout_flexible, count);
    MEMBER(struct layout_flexible, items);

    BEGIN_UNION(layout_union);
    MEMBER(union layout_union, bytes);
    MEMBER(union layout_union, word);
    MEMBER(union layout_union, packed);

    BEGIN("STRUCT", layout_everything);
    MEMBER(struct layout_everything, bits);
    MEMBER(struct layout_everything, packed);
    MEMBER(struct layout_everything, aligned);
    MEMBER(struct layout_everything, anon);
    MEMBER(struct layout_everything, u);
    MEMBER(struct layout_everything, s);
    MEMBER(struct layout_everything, us);
    MEMBER(struct layout_everything, w);
    MEMBER(struct layout_everything, cb);
    MEMBER(struct layout_everything, matrix);
    MEMBER(struct layout_everything, name);
    MEMBER(struct layout_everything, flex);
    return 0;
}
