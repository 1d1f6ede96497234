// SPDX-License-Identifier: GPL-2.0
/*
 * Test module for scripts/kernel-e2e.sh: a per-CPU variable (a VAR in the module's
 * .data..percpu DATASEC) and a struct built from vmlinux's types, which the module's split
 * BTF must refer to in the base rather than repeat.
 */
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/sched.h>

struct e2e_task_note {
	struct list_head link;
	struct task_struct *task;
	pid_t tgid;
	atomic_t seen;
	u64 stamp;
};

static DEFINE_PER_CPU(struct e2e_task_note, e2e_notes);
static int e2e_repeat = 1;
module_param(e2e_repeat, int, 0444);

noinline void e2e_note_task(struct e2e_task_note *note, struct task_struct *task)
{
	note->task = task;
	note->tgid = task->tgid;
	atomic_add(e2e_repeat, &note->seen);
}

static int __init e2e_percpu_init(void)
{
	struct e2e_task_note *note = get_cpu_ptr(&e2e_notes);

	INIT_LIST_HEAD(&note->link);
	e2e_note_task(note, current);
	put_cpu_ptr(&e2e_notes);
	return 0;
}

static void __exit e2e_percpu_exit(void)
{
}

module_init(e2e_percpu_init);
module_exit(e2e_percpu_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("btforge kernel-e2e test module: a per-CPU variable over vmlinux's types");
