/* Seed for btf-reader-fuzz: the common kinds as clang emits them for BPF. */
typedef unsigned long long u64;
typedef int (*handler_fn)(void *ctx, const char *restrict name, ...);

enum color { RED, GREEN = 5, BLUE };
enum delta { BELOW = -2, ZERO, ABOVE };
enum wide { SMALL = 1, HUGE = 0x100000000ULL };

struct flags {
	unsigned int ready : 1;
	unsigned int mode : 3;
	signed int level : 12;
	unsigned long long tail : 40;
};

union value {
	int i;
	float f;
	double d;
	char bytes[8];
};

struct node;

struct record {
	struct record *next;
	struct node *opaque;
	const volatile u64 stamp;
	struct flags flags;
	union value value;
	enum color color;
	enum delta delta;
	enum wide wide;
	handler_fn handler;
	short matrix[2][3];
	long double precise;
};

struct record records[4];
int counter = 7;
const int limit = 64;
static volatile u64 hidden;

int process(struct record *r, int n)
{
	hidden += r->stamp;
	return r->flags.mode + n + counter + limit + (r->handler ? r->handler(r, 0) : 0);
}

u64 total(struct record *r)
{
	return r->wide + records[1].color + process(r, 1);
}
