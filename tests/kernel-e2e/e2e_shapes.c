// SPDX-License-Identifier: GPL-2.0
/*
 * Test module for scripts/kernel-e2e.sh: types of its own (an enum, bitfields, an anonymous
 * union, a self-reference) that its split BTF must describe over vmlinux's, and a function a
 * BPF fentry program attaches to, called on each read of /sys/kernel/debug/e2e_shapes.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/module.h>

enum e2e_shape_kind { E2E_SQUARE = 1, E2E_RECTANGLE, E2E_TRIANGLE };

struct e2e_shape {
	enum e2e_shape_kind kind;
	unsigned int width : 12;
	unsigned int height : 12;
	unsigned int flags : 8;
	union {
		long cached_area;
		const void *owner;
	};
	struct e2e_shape *next;
	char name[8];
};

static struct e2e_shape e2e_triangle = {
	.kind = E2E_TRIANGLE, .width = 6, .height = 4, .name = "tri",
};
static struct dentry *e2e_file;

/* Reached through file->private_data, so the compiler cannot specialise it away. */
noinline long e2e_shape_area(const struct e2e_shape *shape)
{
	long area = (long)shape->width * shape->height;

	return shape->kind == E2E_TRIANGLE ? area / 2 : area;
}

/*
 * Never reads 'unused', but is external: its callers still pass every argument where the
 * calling convention puts it, so its FUNC keeps the DWARF prototype and an fentry program reads
 * 'scale' as the third argument. pahole 1.31's rule (and btforge's before issue 25) left such a
 * function out as "optimized parameters". Called with arguments the compiler cannot know, so it
 * makes no .constprop copy.
 */
noinline long e2e_shape_scaled(const struct e2e_shape *shape, long unused, long scale)
{
	return e2e_shape_area(shape) * scale;
}

static ssize_t e2e_shapes_read(struct file *file, char __user *buf, size_t len, loff_t *pos)
{
	char text[24];
	int n = scnprintf(text, sizeof(text), "%ld\n",
			  e2e_shape_scaled(file->private_data, (long)len, (long)*pos + 1));

	return simple_read_from_buffer(buf, len, pos, text, n);
}

static const struct file_operations e2e_shapes_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = e2e_shapes_read,
};

static int __init e2e_shapes_init(void)
{
	e2e_file = debugfs_create_file("e2e_shapes", 0444, NULL, &e2e_triangle, &e2e_shapes_fops);
	return 0;
}

static void __exit e2e_shapes_exit(void)
{
	debugfs_remove(e2e_file);
}

module_init(e2e_shapes_init);
module_exit(e2e_shapes_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("btforge kernel-e2e test module: own types and an fentry target");
