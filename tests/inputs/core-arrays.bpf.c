// A CO-RE program as users write them against a distribution kernel's vmlinux.h (made from
// pahole's BTF, where `u64 total[2][6]` is `u64 total[12]`): its field relocations must find
// their targets in the BTF under test (tests/integration/core-arrays.sh).
#include "vmlinux.h"

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";
__u64 seen;

SEC("kprobe/psi_group_change")
int BPF_KPROBE(read_totals, struct psi_group* group) {
    seen = BPF_CORE_READ(group, total[7]) + BPF_CORE_READ(group, avg_nr_triggers[1]);
    return 0;
}
