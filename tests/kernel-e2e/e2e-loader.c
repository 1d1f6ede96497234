// SPDX-License-Identifier: GPL-2.0
/*
 * The guest side of scripts/kernel-e2e.sh, linked statically with libbpf.
 *
 *   e2e-loader load OBJ   open and load every program of OBJ (libbpf resolves each target in
 *                         the running kernel's BTF), attach nothing
 *   e2e-loader run OBJ    load, attach every program, make the events they trace happen
 *                         (openat, read, fork, a read of /sys/kernel/debug/e2e_shapes), then
 *                         check OBJ's map `counts`: every hits_* member above 0, every tgid_*
 *                         our own pid
 *
 * Prints one line per program and per variable; exit 0 when all is well, 1 otherwise.
 */
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static void read_file(const char *path)
{
	char buf[256];
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return;
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
}

/* The events the test programs trace. */
static void trigger(void)
{
	pid_t child;

	read_file("/proc/version");
	read_file("/sys/kernel/debug/e2e_shapes");
	child = fork();
	if (child == 0)
		_exit(0);
	if (child > 0)
		waitpid(child, NULL, 0);
}

/* Checks the counts map's one element by the names of its struct's members. */
static int check_counts(struct bpf_object *obj)
{
	struct bpf_map *map = bpf_object__find_map_by_name(obj, "counts");
	struct btf *btf = bpf_object__btf(obj);
	const struct btf_member *member;
	const struct btf_type *type;
	unsigned char *values;
	int i, key = 0, failures = 0;
	long long self = getpid();

	if (!map || !btf)
		return fprintf(stderr, "e2e-loader: no counts map or no BTF in the object\n"), 1;
	type = btf__type_by_id(btf, bpf_map__btf_value_type_id(map));
	if (!type || !btf_is_struct(type))
		return fprintf(stderr, "e2e-loader: the counts map's value is not a struct\n"), 1;
	values = calloc(1, bpf_map__value_size(map));
	if (!values || bpf_map__lookup_elem(map, &key, sizeof(key), values,
					    bpf_map__value_size(map), 0))
		return fprintf(stderr, "e2e-loader: cannot read the counts: %s\n", strerror(errno)), 1;
	for (i = 0, member = btf_members(type); i < btf_vlen(type); i++, member++) {
		const char *name = btf__name_by_offset(btf, member->name_off);
		const unsigned char *at = values + btf_member_bit_offset(type, i) / 8;
		unsigned long long value = 0;
		int bad = 0;

		if (btf__resolve_size(btf, member->type) == 8) {
			unsigned long long v;
			memcpy(&v, at, 8);
			value = v;
		} else {
			unsigned int v;
			memcpy(&v, at, 4);
			value = v;
		}
		if (strncmp(name, "hits_", 5) == 0)
			bad = value == 0;
		else if (strncmp(name, "tgid_", 5) == 0)
			bad = (long long)value != self;
		printf("e2e-loader: %s = %llu%s\n", name, value, bad ? " (wrong)" : "");
		failures += bad;
	}
	free(values);
	return failures != 0;
}

int main(int argc, char **argv)
{
	struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };
	struct bpf_object *obj;
	struct bpf_program *prog;
	int attach, err;

	if (argc != 3 || (strcmp(argv[1], "load") && strcmp(argv[1], "run"))) {
		fprintf(stderr, "usage: e2e-loader load|run OBJ\n");
		return 2;
	}
	attach = strcmp(argv[1], "run") == 0;
	setrlimit(RLIMIT_MEMLOCK, &unlimited); /* kernels before 5.11 charge maps to it */
	obj = bpf_object__open_file(argv[2], NULL);
	if (!obj)
		return fprintf(stderr, "e2e-loader: cannot open %s: %s\n", argv[2], strerror(errno)), 1;
	err = bpf_object__load(obj);
	if (err)
		return fprintf(stderr, "e2e-loader: %s: load failed: %s\n", argv[2], strerror(-err)), 1;
	bpf_object__for_each_program(prog, obj) {
		printf("e2e-loader: loaded %s (%s)\n", bpf_program__name(prog),
		       bpf_program__section_name(prog));
		if (attach && !bpf_program__attach(prog))
			return fprintf(stderr, "e2e-loader: %s: attach failed: %s\n",
				       bpf_program__name(prog), strerror(errno)), 1;
	}
	if (!attach)
		return 0;
	trigger();
	return check_counts(obj);
}
