/* Seed for btf-reader-fuzz: DECL_TAG and TYPE_TAG as clang emits them for BPF. */
#define __tag(x) __attribute__((btf_decl_tag(x)))
#define __user __attribute__((btf_type_tag("user")))
#define __rcu __attribute__((btf_type_tag("rcu")))

struct task {
	int pid __tag("pid_field");
	char __user *buffer;
	struct task __rcu *parent;
} __tag("task_struct");

typedef struct task task_t __tag("typedef_tag");

int tagged_var __tag("global_var") = 3;

int __tag("kfunc") read_task(task_t *t __tag("arg_tag"), int __user *out)
{
	return t->pid + tagged_var + (out != 0);
}
