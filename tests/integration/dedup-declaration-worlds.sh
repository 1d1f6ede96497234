#!/usr/bin/env bash
# dedup-declaration-worlds.sh COMPILER: one declaration standing in for two different definitions,
# as glibc's `struct _IO_jump_t` does. glibc builds `FILE` in two worlds, with a void lock
# (public) and a struct lock (internal); units of both only declare the jump table, inside a
# `struct _IO_wide_data` they all share. libbpf's btf__dedup (what pahole uses) compares a
# declaration as equal to any definition of its name, so each world's declaring units join that
# world's FILE; pairing the declaration with one definition gave the other world's declaring
# units a FILE of their own, with its lock but the first world's types behind it.
# Built at test time in several unit orders; btforge's output must equal libbpf's dedup of the
# same types (btforge --no-dedup) by meaning (btforge diff) and in type count.
source "$(dirname "$0")/lib.sh"
compiler=$1
command -v "$compiler" > /dev/null || skip "$compiler is not installed"

cat > "$work/common.h" << 'EOF'
struct jump_table;
struct wide_data {
	const struct jump_table *vtable;
	int state;
};
#ifdef INTERNAL
typedef struct { int owner; int count; } lock_t;
#else
typedef void lock_t;
#endif
struct file {
	lock_t *lock;
	struct wide_data *wide;
	int flags;
};
typedef struct file FILE;
#ifdef DEFINE_JUMPS
struct jump_table {
	int (*put)(FILE *f, int c);
	int (*get)(FILE *f);
};
#endif
EOF
# unit NAME FLAGS...: one unit of a world, defining the jump table or only declaring it.
unit() {
    local name=$1
    shift
    cat > "$work/$name.c" << EOF
#include "common.h"
FILE *${name}_file;
int ${name}_flags(FILE *f) { return f->flags + f->wide->state; }
EOF
    "$compiler" -g -O0 -c "$@" -o "$work/$name.o" "$work/$name.c"
}
unit internal -DINTERNAL -DDEFINE_JUMPS
unit public -DDEFINE_JUMPS
unit internal_user -DINTERNAL
unit public_user
echo 'int main(void) { return 0; }' > "$work/main.c"
"$compiler" -g -O0 -c -o "$work/main.o" "$work/main.c"

cd "$work"
# Definitions first (glibc's order: libio's units), declarations first, and mixed.
for order in "internal public internal_user public_user" \
    "internal_user public_user internal public" \
    "public_user internal_user public internal" \
    "public internal_user public_user internal"; do
    objects=()
    for name in $order main; do objects+=("$name.o"); done
    "$compiler" -o program "${objects[@]}"
    ours=$(equals_libbpf_dedup program "units $order")
    echo "units $order: equal to libbpf's btf__dedup ($ours)"
done
# With the definitions first, each world has one FILE, as libbpf's dedup leaves it: no unit's
# FILE mixes the internal lock with the public world's types.
"$compiler" -o program internal.o public.o internal_user.o public_user.o main.o
"$BTFORGE" --quiet convert program -o ours.btf
files=$("$BPFTOOL" btf dump file ours.btf | grep -c "STRUCT 'file'")
[ "$files" = 2 ] || fail "definitions first: $files struct file, libbpf's dedup keeps 2"
echo "PASS: dedup-declaration-worlds $compiler"
