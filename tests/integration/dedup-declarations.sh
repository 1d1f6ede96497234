#!/usr/bin/env bash
# dedup-declarations.sh COMPILER: a struct declared in one unit and defined differently in two
# others (ipmi_si's struct si_sm_data, cxgb's struct _cmac_instance in the kernel), built at test
# time in both unit orders. libbpf's btf__dedup (what pahole uses) takes the declaration for the
# definition an otherwise equal type uses, the one it met first where several fit, and the types
# that differ only there become one. btforge's dedup must equal it: btforge writes the units'
# types without dedup (--no-dedup), libbpf deduplicates them, and the result must equal
# btforge's own output by meaning (btforge diff) and in type count.
source "$(dirname "$0")/lib.sh"
compiler=$1
command -v "$compiler" > /dev/null || skip "$compiler is not installed"

cat > "$work/common.h" << 'EOF'
/* Two state machines define their own struct sm_data; the interface only declares it. */
struct sm_data;
struct handlers {
	const char *name;
	int (*init)(struct sm_data *data, int flags);
	long (*size)(void);
};
/* Two MACs define their own instance; the core only declares it, through a typedef, inside
   structs whose names have several definitions too (through the instance). */
typedef struct _mac_instance mac_instance;
struct mac;
struct mac_ops {
	int (*start)(struct mac *mac);
	void (*stop)(struct mac *mac);
};
struct mac {
	const struct mac_ops *ops;
	mac_instance *instance;
	int port;
};
struct adapter {
	struct mac *mac;
	const struct handlers *sm;
	struct adapter *next;
};
struct port {
	struct mac *mac;
	int id;
};
EOF
# A unit that only declares struct mac, whose definitions differ (through the instance).
cat > "$work/port.c" << 'EOF'
struct mac;
struct port {
	struct mac *mac;
	int id;
};
struct port first_port;
EOF
# machine NAME STATE_MEMBERS INSTANCE_MEMBERS READ_STATE READ_INSTANCE: one unit of each kind.
machine() {
    cat > "$work/$1.c" << EOF
#include "common.h"
struct sm_data { $2 };
struct _mac_instance { $3 };
static int $1_init(struct sm_data *data, int flags) { return (int)$4 + flags; }
static long $1_size(void) { return sizeof(struct sm_data); }
const struct handlers $1_handlers = { "$1", $1_init, $1_size };
static int $1_start(struct mac *mac) { return (int)$5; }
static void $1_stop(struct mac *mac) { mac->port = 0; }
const struct mac_ops $1_mac_ops = { $1_start, $1_stop };
struct adapter $1_adapter = { 0, &$1_handlers, 0 };
struct port $1_port;
EOF
}
machine kcs "int state; char buf[8];" "int speed; int duplex;" "data->state" "mac->instance->speed"
machine bt "long seq; void *pending;" "long stats[4];" "data->seq" "mac->instance->stats[0]"
cat > "$work/intf.c" << 'EOF'
#include "common.h"
extern struct adapter kcs_adapter, bt_adapter;
struct adapter *adapters(int which) { return which ? &bt_adapter : &kcs_adapter; }
int main(int argc, char **argv)
{
	struct adapter *a = adapters(argc > 1);
	return (int)a->sm->size() + (argv != 0) + a->mac->port;
}
EOF

cd "$work"
for order in "intf.c port.c kcs.c bt.c" "kcs.c bt.c port.c intf.c"; do
    program=$work/program-${order%%.*}
    "$compiler" -g -O0 -o "$program" $order
    ours=$(equals_libbpf_dedup "$program" "units $order")
    # The declaration is gone: each use names one of the two definitions.
    ! "$BPFTOOL" btf dump file "$work/ours.btf" | grep -q "FWD '\(sm_data\|_mac_instance\|mac\)'" ||
        fail "units $order: a declaration is left where libbpf's dedup resolves it"
    echo "units $order: equal to libbpf's btf__dedup ($ours)"
done
echo "PASS: dedup-declarations $compiler"
