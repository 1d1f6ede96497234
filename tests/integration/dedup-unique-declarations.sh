#!/usr/bin/env bash
# dedup-unique-declarations.sh COMPILER: a struct declared in one unit and defined in two others,
# where the two definitions differ only through a declaration no type settles (vsftpd's struct
# vsf_session, with a function pointer typedef in a unit that only declares it). libbpf's
# btf__dedup joins the two definitions, then resolves every declaration of a name left with one
# definition (btf_dedup_resolve_fwds): no FWD is left and the typedef is the definition's.
# btforge's dedup must equal it (libbpf deduplicating btforge's --no-dedup output is the oracle),
# in both unit orders.
source "$(dirname "$0")/lib.sh"
compiler=$1
command -v "$compiler" > /dev/null || skip "$compiler is not installed"

# The address is defined in this unit, so its session points to the definition.
cat > "$work/session.c" << 'EOF'
struct addr { int family; char bytes[16]; };
struct session { int fd; struct addr *remote; };
typedef int (*reader_t)(struct session *s, char *to, unsigned len);
struct session main_session;
int session_read(struct session *s, reader_t read) { return read(s, 0, 0); }
EOF
# Only declares the address: its session points to a declaration, which could stand for either
# definition of struct addr, so nothing settles it before the sessions are compared.
cat > "$work/control.c" << 'EOF'
struct addr;
struct session { int fd; struct addr *remote; };
int control_fd(struct session *s) { return s->fd; }
EOF
# A second, different struct addr.
cat > "$work/cookie.c" << 'EOF'
struct addr { long cookie; };
struct addr cookie_addr;
EOF
# Only declares the session, for a function pointer typedef and a function.
cat > "$work/netstr.c" << 'EOF'
struct session;
typedef int (*reader_t)(struct session *s, char *to, unsigned len);
int netstr_read(struct session *s, reader_t read) { return read(s, 0, 1); }
int main(void) { return 0; }
EOF

cd "$work"
for order in "session.c control.c cookie.c netstr.c" "netstr.c cookie.c control.c session.c"; do
    program=$work/program-${order%%.*}
    "$compiler" -g -O0 -o "$program" $order
    ours=$(equals_libbpf_dedup "$program" "units $order")
    ! "$BPFTOOL" btf dump file "$work/ours.btf" | grep -q "FWD 'session'" ||
        fail "units $order: struct session's declaration is left where libbpf's dedup resolves it"
    [ "$("$BPFTOOL" btf dump file "$work/ours.btf" | grep -c "TYPEDEF 'reader_t'")" = 1 ] ||
        fail "units $order: reader_t is not one typedef"
    echo "units $order: equal to libbpf's btf__dedup ($ours)"
done
echo "PASS: dedup-unique-declarations $compiler"
