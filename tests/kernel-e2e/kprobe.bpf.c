// SPDX-License-Identifier: GPL-2.0
/*
 * A kprobe on the openat syscall wrapper (E2E_SYS_OPENAT) reading the current task with CO-RE
 * relocations against the kernel's BTF: the group leader's tgid must be e2e-loader's pid.
 */
#include "e2e.bpf.h"
#include <bpf/bpf_core_read.h>

struct kprobe_counts {
	__u64 hits_openat;
	int tgid_openat;
};
E2E_COUNTS_MAP(struct kprobe_counts);

E2E_SEC("kprobe", E2E_SYS_OPENAT)
int on_openat(void *ctx)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct kprobe_counts *c = E2E_COUNTS();

	if (c) {
		c->hits_openat++;
		c->tgid_openat = BPF_CORE_READ(task, group_leader, tgid);
	}
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
