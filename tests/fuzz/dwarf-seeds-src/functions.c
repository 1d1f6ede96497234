/* Seed for dwarf-loader-fuzz: functions and variables with the facts the rules look at. */
#include <stdarg.h>

struct pair {
	long a, b;
};

int counter;
static int hidden = 3;

static int __attribute__((noinline)) unused_param(int used, int unused) { return used * 2; }

static inline int twice(int x) { return x + x; }

int sum(int n, ...)
{
	va_list ap;
	int total = 0;
	va_start(ap, n);
	for (int i = 0; i < n; i++)
		total += va_arg(ap, int);
	va_end(ap);
	return total;
}

long by_value(struct pair p, const struct pair *q)
{
	{
		typedef long inner_t;
		inner_t local = p.a + q->b;
		return local + twice(hidden) + unused_param(counter, 7);
	}
}
