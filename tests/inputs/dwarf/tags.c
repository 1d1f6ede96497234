/* BTF type and declaration tags as the kernel uses them (__user, __rcu, __percpu, kfunc and
 * member annotations), in the DWARF of a program built for the host. clang writes them as
 * DW_TAG_LLVM_annotation for any target; gcc 12 ignores both attributes (with a warning). */
#define TAG(x) __attribute__((btf_decl_tag(x)))
#define __user __attribute__((btf_type_tag("user")))
#define __rcu __attribute__((btf_type_tag("rcu")))
#define __percpu __attribute__((btf_type_tag("percpu")))

struct tagged_node {
    struct tagged_node __rcu *next;
    int __user *buffer TAG("member_tag");
    long __percpu *counters;
    const char __user *const __user *argv;
} TAG("struct_tag");

union tagged_value {
    int as_int TAG("union_member");
    void __user *as_pointer;
};

typedef struct tagged_node tagged_node_t TAG("typedef_tag");

int tagged_global TAG("var_tag") = 3;
static tagged_node_t tagged_static;

__attribute__((noinline)) int tagged_function(int __user *arg TAG("param_tag"), long count)
    TAG("func_tag") TAG("kfunc");
__attribute__((noinline)) int tagged_function(int __user *arg, long count) {
    return arg ? (int)count + tagged_global : tagged_static.next != 0;
}

__attribute__((noinline)) long tagged_walk(struct tagged_node *node, union tagged_value *value) {
    long sum = 0;
    for (; node; node = node->next)
        sum += node->counters ? 1 : 0;
    return sum + (value ? value->as_int : 0);
}

int main(int argc, char **argv) {
    struct tagged_node node = {0};
    union tagged_value value = {argc};
    tagged_static.argv = (const char *const *)argv;
    return tagged_function(&value.as_int, argc) + (int)tagged_walk(&node, &value);
}
