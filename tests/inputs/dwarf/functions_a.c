/* First unit of the function-rule program. */
#include <stdarg.h>

#include "layouts.h"

#define PERCPU __attribute__((section(".data..percpu")))

/* Same static function, same prototype, in both units (a header-style helper). */
static __attribute__((noinline)) int same_helper(int x, long y) { return x * 3 + (int)y; }

/* Same name, different prototypes in the two units. */
static __attribute__((noinline)) int clashing_helper(int x) { return x + 11; }

/* A parameter the optimizer can drop: never used. */
__attribute__((noinline)) static int drops_parameter(int used, int unused) {
    (void)unused;
    return used * 7;
}

/* Eight integer and pointer arguments, all used and never moved: each arrives where the target's
 * calling convention puts its slot (the first ones in argument registers, the rest on the stack),
 * so the FUNC is kept on every target. i386 gets the kernel's -mregparm=3 for this function only
 * (the whole program cannot: glibc is built without it). */
#if defined(__i386__)
#define KERNEL_REGPARM __attribute__((regparm(3)))
#else
#define KERNEL_REGPARM
#endif
__attribute__((noinline, used)) KERNEL_REGPARM long follows_convention(long a, int b, const char *c,
                                                                        long d, unsigned int e,
                                                                        long *f, int g, long h) {
    return a + b * 3 + c[d & 1] + (long)e * d + f[g & 1] - h;
}

/* The same for a 64-bit scalar (a register pair on 32-bit targets: on arm, an even-numbered
 * one) and a small struct by value, which each ABI places its own way. */
struct arg_pair {
    int lo;
    short hi;
};
__attribute__((noinline, used)) KERNEL_REGPARM long long wide_arguments(int a, long long b, int c,
                                                                        struct arg_pair p, int d) {
    return a + b * c + p.lo - p.hi + d;
}

int global_sum(int count, ...) {
    va_list ap;
    int total = 0;
    va_start(ap, count);
    for (int i = 0; i < count; i++)
        total += va_arg(ap, int);
    va_end(ap);
    return total;
}

struct layout_everything everything_a;
int percpu_counter PERCPU = 1;
static long percpu_local PERCPU = 2;
long plain_global = 3;

int unit_a(int v) {
    long pair[2] = {v, plain_global};
    struct arg_pair small = {v, (short)plain_global};
    percpu_local += v; /* written, so it stays a variable in memory at -O2 */
    return (int)follows_convention(v, v + 1, "ab", plain_global, (unsigned int)v * 2u, pair, v - 1,
                                   percpu_local) +
           (int)wide_arguments(v, plain_global * 3LL, v + 2, small, v - 3) + same_helper(v, percpu_local) + clashing_helper(v) + drops_parameter(v, v + 1) +
           global_sum(2, v, percpu_counter) + (int)plain_global + everything_a.s;
}
