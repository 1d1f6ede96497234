/* Every BTF kind clang emits for a BPF object: bitfields, enums of every signedness and width,
 * tags, variables in several data sections, function pointers and varargs prototypes. */
typedef unsigned long long u64;
typedef int s32;

#define SEC(name) __attribute__((section(name), used))
#define TAG(x) __attribute__((btf_decl_tag(x)))
#define USER __attribute__((btf_type_tag("user")))

struct bits {
    unsigned int a : 3;
    signed int b : 5;
    unsigned char c;
    u64 wide : 40;
    int tail : 1;
} TAG("struct_tag");

union overlay {
    int i;
    float f;
    struct bits b;
    char raw[24];
};

enum color { RED, GREEN = 7, BLUE = -3 };
enum big_unsigned { BU_ZERO = 0, BU_HIGH = 0x80000000u, BU_MAX = 0xffffffffu };
enum wide64 { W_SMALL = 1, W_HUGE = 0xffffffffffffffffull, W_MID = 0x100000000ull };
enum swide64 { SW_NEG = -5ll, SW_BIG = 0x7fffffffffffffffll, SW_LOW = -0x100000000ll };

struct forward_only;
union forward_union;

struct node {
    struct node *next;
    struct forward_only *opaque;
    union forward_union *u;
    int (*callback)(struct node *self, const char *fmt, ...);
    const volatile int *restrict cv;
    int USER *user_ptr TAG("member_tag");
    double weight;
    long double precise;
    _Bool flag;
    int matrix[3][4];
    char flexible[];
};

#ifdef NO_EXTERNS /* the kernel refuses extern VARs and FUNCs that libbpf has not resolved */
static int printk_like(const char *fmt, ...) { return fmt[0]; }
static int extern_var = 2;
#else
extern int printk_like(const char *fmt, ...);
extern int extern_var;
#endif

int global_counter SEC(".data") = 3;
static volatile int static_counter SEC(".data") = 4;
struct node zeroed_node;
const enum color default_color = GREEN;
enum big_unsigned unsigned_value SEC(".data.custom") = BU_HIGH;
enum wide64 wide_value SEC(".data.custom") = W_HUGE;
enum swide64 swide_value SEC(".data.custom") = SW_NEG;
union overlay overlay_value SEC(".data.custom");
char _license[] SEC("license") = "GPL";

static __attribute__((noinline)) int helper(struct bits *b TAG("param_tag"), int n) {
    return b->a + b->b + n + static_counter;
}

SEC("tp/syscalls/sys_enter_write") int TAG("func_tag") handle(struct node *n) {
    struct bits b = {.a = 1, .b = -2, .wide = 5};
    int r = helper(&b, n ? n->matrix[1][2] : 0) + extern_var;
    if (n && n->callback)
        r += n->callback(n, "%d", r);
    return r + printk_like("x", 1) + global_counter + (int)wide_value + (int)swide_value +
           (int)unsigned_value + default_color + overlay_value.i;
}
