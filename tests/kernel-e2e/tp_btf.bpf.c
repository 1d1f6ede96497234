// SPDX-License-Identifier: GPL-2.0
/*
 * A BTF-typed tracepoint: the verifier types the arguments from the kernel's BTF
 * (btf_trace_sched_process_fork), and checks the direct reads of parent against it.
 * e2e-loader forks: the parent's tgid must be its pid.
 */
#include "e2e.bpf.h"
#include <bpf/bpf_tracing.h>

struct tp_btf_counts {
	__u64 hits_fork;
	int tgid_fork_parent;
};
E2E_COUNTS_MAP(struct tp_btf_counts);

SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	struct tp_btf_counts *c = E2E_COUNTS();

	if (!c || !parent->mm) /* kernel threads fork too */
		return 0;
	c->hits_fork++;
	c->tgid_fork_parent = parent->tgid;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
