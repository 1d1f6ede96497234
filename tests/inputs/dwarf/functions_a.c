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
    percpu_local += v; /* written, so it stays a variable in memory at -O2 */
    return same_helper(v, percpu_local) + clashing_helper(v) + drops_parameter(v, v + 1) +
           global_sum(2, v, percpu_counter) + (int)plain_global + everything_a.s;
}
