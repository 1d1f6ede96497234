/* Second unit of the function-rule program. */
#include "layouts.h"

#define PERCPU __attribute__((section(".data..percpu")))

static __attribute__((noinline)) int same_helper(int x, long y) { return x * 5 - (int)y; }

static __attribute__((noinline)) long clashing_helper(const char *s, long n) {
    return s[0] + n;
}

struct layout_everything everything_b;
struct percpu_stats {
    unsigned long events;
    unsigned int cpu;
} stats PERCPU;

int unit_a(int v);
int layouts_print(void);

int main(int argc, char **argv) {
    (void)argv;
    if (argc > 1)
        return layouts_print();
    stats.events++;
    return unit_a(argc) + same_helper(argc, 2) + (int)clashing_helper("x", argc) + everything_b.s;
}
