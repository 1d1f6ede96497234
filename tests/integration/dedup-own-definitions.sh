#!/usr/bin/env bash
# dedup-own-definitions.sh COMPILER PAHOLE_MASTER: a module defining its own struct of a name the
# base defines too (amdgpu.ko's struct gpio beside vmlinux's), built at test time in both unit
# orders. A unit that only declares it may mean either: libbpf's dedup (what pahole uses) pairs
# the declaration with the definition its context compares it with. A unit declaring gpio in
# struct link, beside one defining gpio and link: the module's gpio, so one struct link (btforge
# once took every such declaration for the base's gpio, and wrote a second struct link). A unit
# declaring gpio in struct board, which the base defines: the base's, so no struct board of the
# module's. The oracles: upstream pahole master encoding the same module over the same base, and
# libbpf's dedup of btforge's --no-dedup output.
# Not tested: both kinds of units in one module. libbpf makes a module's declarations of a name
# one, paired by the first comparison in type order, and btforge then follows the unit order
# only in part (docs/kernel-build.md).
source "$(dirname "$0")/lib.sh"
compiler=$1 master=$2
command -v "$compiler" > /dev/null || skip "$compiler is not installed"
[ -x "$master/pahole" ] || skip "no upstream pahole in $master"
runnable_copy "$master" "$work/master"

cat > "$work/base.c" << 'EOF'
struct gpio {
	unsigned int gpio;
	unsigned long flags;
	const char *label;
};
struct board {
	struct gpio *pins;
	int count;
};
struct board the_board;
int main(void) { return the_board.count; }
EOF
# Units that only declare gpio: in link (the module's), and in board (the base's).
cat > "$work/declaring.c" << 'EOF'
struct gpio;
struct link {
	struct gpio *hpd;
	int id;
};
struct link first_link;
EOF
cat > "$work/board.c" << 'EOF'
struct gpio;
struct board {
	struct gpio *pins;
	int count;
};
struct board *boards;
EOF
# The module's own gpio, and link again.
cat > "$work/defining.c" << 'EOF'
struct gpio {
	int pin;
	void *service;
};
struct link {
	struct gpio *hpd;
	int id;
};
struct link second_link;
struct gpio own_gpio;
EOF

cd "$work"
"$compiler" -g -O0 -o base base.c
"$BTFORGE" --quiet convert base -o base.btf
"$compiler" -g -O0 -c declaring.c board.c defining.c
for order in "declaring.o defining.o" "defining.o declaring.o" "board.o defining.o" \
    "defining.o board.o"; do
    ld -r -o module.ko $order
    "$work/master/pahole" -J --btf_features=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs \
        --lang_exclude=rust --btf_base base.btf --btf_encode_detached=pahole.btf module.ko \
        > /dev/null 2>&1 || fail "upstream pahole failed on the module ($order)"
    "$BTFORGE" --quiet convert -B base.btf module.ko -o ours.btf
    "$BTFORGE" --quiet convert -B base.btf module.ko --no-dedup -o raw.btf
    libbpf=$("$BTF_ORACLE" dedup raw.btf base.btf libbpf.btf)
    ours=$("$BTF_ORACLE" parse ours.btf base.btf)
    master=$("$BTF_ORACLE" parse pahole.btf base.btf)
    for oracle in pahole libbpf; do
        if ! "$BTFORGE" diff -f btf -B base.btf "$oracle.btf" ours.btf --max 20 > diff.txt; then
            cat diff.txt
            fail "units $order: btforge's split BTF differs from $oracle's (A: $oracle)"
        fi
    done
    [ "$ours" = "$master" ] && [ "$ours" = "$libbpf" ] ||
        fail "units $order: pahole master has $master, libbpf's dedup $libbpf, btforge $ours"
    # Without board, the declaration can only be the module's gpio.
    "$BPFTOOL" --base-btf base.btf btf dump file ours.btf > ours.txt
    links=$(grep -c "STRUCT 'link'" ours.txt) || true
    [ "$links" = 1 ] || fail "units $order: $links struct link"
    ! grep -q "STRUCT 'board'" ours.txt || fail "units $order: struct board is not the base's"
    # Without dedup, the declaring units keep their declarations, as pahole's units do.
    "$BPFTOOL" --base-btf base.btf btf dump file raw.btf > raw.txt
    grep -q "FWD 'gpio'" raw.txt ||
        fail "units $order: --no-dedup took the declaration for one of the definitions"
    echo "units $order: equal to pahole master and to libbpf's btf__dedup ($ours)"
done

# A module's enum declared in one unit (`enum req;`, as amdgpu's enum idh_request) inside struct
# ops, defined in two others otherwise, one of them inside struct ops too: libbpf takes the
# declaration for the definition the other ops uses, so one struct ops. btforge once kept the
# declaration over a base (its name has two definitions), and both ops. libbpf also keeps the
# function prototype of the declaring unit, unused once its ops is the other's: btforge does not.
cat > "$work/enum-declaring.c" << 'EOF'
enum req;
struct ops {
	void (*send)(void *dev, enum req r);
	int n;
};
struct ops declared_ops;
EOF
cat > "$work/enum-ops.c" << 'EOF'
enum req { REQ_INIT = 1, REQ_FINI = 2, REQ_DATA = 6 };
struct ops {
	void (*send)(void *dev, enum req r);
	int n;
};
struct ops full_ops;
EOF
cat > "$work/enum-other.c" << 'EOF'
enum req { REQ_INIT = 1, REQ_FINI = 2 };
enum req last_request;
EOF
"$compiler" -g -O0 -c enum-declaring.c enum-ops.c enum-other.c 2> /dev/null
for order in "enum-declaring.o enum-ops.o enum-other.o" "enum-other.o enum-ops.o enum-declaring.o"; do
    ld -r -o enums.ko $order
    "$work/master/pahole" -J --btf_base base.btf --btf_encode_detached=pahole.btf enums.ko \
        > /dev/null 2>&1 || fail "upstream pahole failed on the module ($order)"
    "$BTFORGE" --quiet convert -B base.btf enums.ko -o ours.btf
    if ! "$BTFORGE" diff -f btf -B base.btf pahole.btf ours.btf --max 20 > diff.txt; then
        cat diff.txt
        fail "enum units $order: btforge's split BTF differs from pahole's (A: pahole)"
    fi
    "$BPFTOOL" --base-btf base.btf btf dump file ours.btf > ours.txt
    ops=$(grep -c "STRUCT 'ops'" ours.txt) || true
    [ "$ops" = 1 ] || fail "enum units $order: $ops struct ops"
    ! grep -q "ENUM 'req' .* vlen=0" ours.txt || fail "enum units $order: the declaration is left"
    echo "enum units $order: equal to pahole master by meaning, one struct ops"
done
# A module defining its own struct of a base name that base structs reach (cxgb4.ko's struct
# sched_class, which task_struct points to): its units' copies of those structs reach it. One
# unit defines struct mm, another only declares it. libbpf compares the declaration as equal to
# the defining unit's mm, so the module has one struct task; btforge once took the declaration
# for the base's mm (the base defines one), and wrote two (cxgb4.ko: three task_struct). A unit
# declaring sched_class too has the base's task. Not tested: that unit after the other two when
# the declaring one comes first (sched-user.o sched.o task-user.o): libbpf pairs the declaration
# of mm with the definition the first comparison meets it with, btforge with the first
# definition met (the base's), and writes two.
cat > "$work/sched-base.c" << 'EOF'
struct sched_class { int (*enqueue)(void *rq); int priority; };
struct mm;
struct task { const struct sched_class *sched; int pid; struct mm *mm; };
struct mm { struct task *owner; long pages; };
struct task init_task;
int main(void) { return init_task.pid; }
EOF
cat > "$work/sched.c" << 'EOF'
struct sched_class { int port; int rate; };
struct mm;
struct task { const struct sched_class *sched; int pid; struct mm *mm; };
struct mm { struct task *owner; long pages; };
struct mm *sched_mm;
struct sched_class *classes;
EOF
cat > "$work/sched-user.c" << 'EOF'
struct sched_class { int port; int rate; };
struct mm;
struct task { const struct sched_class *sched; int pid; struct mm *mm; };
struct task *user_task;
EOF
cat > "$work/task-user.c" << 'EOF'
struct sched_class;
struct mm;
struct task { const struct sched_class *sched; int pid; struct mm *mm; };
struct task *other_task;
EOF
"$compiler" -g -O0 -o sched-base sched-base.c
"$BTFORGE" --quiet convert sched-base -o sched-base.btf
"$compiler" -g -O0 -c sched.c sched-user.c task-user.c
for order in "sched.o sched-user.o" "sched-user.o sched.o" "task-user.o sched.o sched-user.o" \
    "sched.o task-user.o sched-user.o"; do
    ld -r -o sched.ko $order
    "$work/master/pahole" -J --btf_features=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs \
        --lang_exclude=rust --btf_base sched-base.btf --btf_encode_detached=pahole.btf sched.ko \
        > /dev/null 2>&1 || fail "upstream pahole failed on the module ($order)"
    "$BTFORGE" --quiet convert -B sched-base.btf sched.ko -o ours.btf
    "$BTFORGE" --quiet convert -B sched-base.btf sched.ko --no-dedup -o raw.btf
    libbpf=$("$BTF_ORACLE" dedup raw.btf sched-base.btf libbpf.btf)
    ours=$("$BTF_ORACLE" parse ours.btf sched-base.btf)
    master=$("$BTF_ORACLE" parse pahole.btf sched-base.btf)
    for oracle in pahole libbpf; do
        if ! "$BTFORGE" diff -f btf -B sched-base.btf "$oracle.btf" ours.btf --max 20 > diff.txt
        then
            cat diff.txt
            fail "sched units $order: btforge's split BTF differs from $oracle's (A: $oracle)"
        fi
    done
    [ "$ours" = "$master" ] && [ "$ours" = "$libbpf" ] ||
        fail "sched units $order: pahole master has $master, libbpf's dedup $libbpf, btforge $ours"
    tasks=$("$BPFTOOL" --base-btf sched-base.btf btf dump file ours.btf |
        grep -c "STRUCT 'task'") || true
    [ "$tasks" = 1 ] || fail "sched units $order: $tasks struct task of the module's, not 1"
    echo "sched units $order: equal to pahole master and to libbpf's btf__dedup ($ours)"
done
echo "PASS: dedup-own-definitions $compiler"
