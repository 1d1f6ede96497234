/* Seed for dwarf-loader-fuzz: the type shapes the unit mapper turns into BTF. */
typedef unsigned long long u64;
typedef int (*handler_fn)(void *ctx, const char *restrict name, ...);

enum color { RED, GREEN = 5, BLUE = -1 };

struct flags {
	unsigned int ready : 1;
	signed int level : 12;
	unsigned long long tail : 40;
};

union value {
	int i;
	float f;
	char bytes[8];
};

struct node;

struct record {
	struct record *next;
	struct node *opaque;
	const volatile u64 stamp;
	_Atomic int refs;
	struct flags flags;
	union value value;
	struct {
		short x, y;
	};
	int matrix[2][3];
	handler_fn handler;
	enum color color;
	_Complex double phase;
	char tail[];
};

struct record *records[4];
static struct flags defaults = {.ready = 1};

u64 size_of_record(void) { return sizeof(struct record) + sizeof(defaults); }
