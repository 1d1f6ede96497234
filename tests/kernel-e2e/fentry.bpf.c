// SPDX-License-Identifier: GPL-2.0
/*
 * fentry programs on vmlinux functions and on two functions of the e2e_shapes module: libbpf
 * finds each target's FUNC in the kernel's BTF (vmlinux's, or the module's split BTF), so
 * loading them proves the FUNCs are there with usable prototypes. E2E_FENTRY_OPENAT is the
 * architecture's openat syscall wrapper, or the function it is an alias of (kernel-e2e.sh
 * passes it).
 */
#include "e2e.bpf.h"
#include <bpf/bpf_tracing.h>

struct fentry_counts {
	__u64 hits_vfs_read;
	__u64 hits_kernel_clone;
	__u64 hits_openat;
	__u64 hits_e2e_shape_area;
	__u64 hits_e2e_shape_scaled; /* only where 'scale' reads as the module passes it */
	__u64 bytes_asked;
};
E2E_COUNTS_MAP(struct fentry_counts);

SEC("fentry/vfs_read")
int BPF_PROG(on_vfs_read, struct file *file, char *buf, size_t count, loff_t *pos)
{
	struct fentry_counts *c = E2E_COUNTS();

	if (c) {
		c->hits_vfs_read++;
		c->bytes_asked += count; /* an argument typed by the FUNC's prototype */
	}
	return 0;
}

SEC("fentry/kernel_clone")
int BPF_PROG(on_kernel_clone)
{
	struct fentry_counts *c = E2E_COUNTS();

	if (c)
		c->hits_kernel_clone++;
	return 0;
}

E2E_SEC("fentry", E2E_FENTRY_OPENAT)
int BPF_PROG(on_openat)
{
	struct fentry_counts *c = E2E_COUNTS();

	if (c)
		c->hits_openat++;
	return 0;
}

SEC("fentry/e2e_shape_area")
int BPF_PROG(on_e2e_shape_area)
{
	struct fentry_counts *c = E2E_COUNTS();

	if (c)
		c->hits_e2e_shape_area++;
	return 0;
}

/* A function with a parameter it never reads (see e2e_shapes.c): the first read of the file
 * passes scale = *pos + 1 = 1. */
SEC("fentry/e2e_shape_scaled")
int BPF_PROG(on_e2e_shape_scaled, const void *shape, long unused, long scale)
{
	struct fentry_counts *c = E2E_COUNTS();

	if (c && scale == 1)
		c->hits_e2e_shape_scaled++;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
