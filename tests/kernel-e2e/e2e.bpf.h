/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the kernel-e2e BPF programs. Their results go to the one element of an array map
 * named `counts`, a struct whose member names tell e2e-loader what to check (hits_* above 0,
 * tgid_* its own pid). A map and not global variables: libbpf probes for global data with a
 * socket filter program, which a kernel without CONFIG_NET cannot load.
 */
#ifndef E2E_BPF_H
#define E2E_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#define E2E_STR(x) #x
#define E2E_SEC(kind, func) SEC(kind "/" E2E_STR(func))

#define E2E_COUNTS_MAP(value_type)                 \
	struct {                                   \
		__uint(type, BPF_MAP_TYPE_ARRAY);  \
		__uint(max_entries, 1);            \
		__type(key, __u32);                \
		__type(value, value_type);         \
	} counts SEC(".maps")

/* The counts element, or NULL (never, for an array; the verifier wants the check). */
#define E2E_COUNTS() ({ __u32 e2e_key = 0; bpf_map_lookup_elem(&counts, &e2e_key); })

#endif
