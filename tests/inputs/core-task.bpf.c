// A CO-RE program against a generated vmlinux.h (c-header.sh core): reads task_struct fields
// through relocations, as libbpf tools do.
#include "vmlinux.h"

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

SEC("kprobe/do_exit")
int on_exit(void *ctx) {
    struct task_struct *task = (struct task_struct *)bpf_get_current_task();
    pid_t parent = BPF_CORE_READ(task, real_parent, tgid);
    struct file *exe = BPF_CORE_READ(task, mm, exe_file);
    bpf_printk("exit of a child of %d, exe %p", parent, exe);
    return 0;
}
