/* The bundled default input: a small tracing program of the kind BPF users write. */
#define SEC(name) __attribute__((section(name), used))

typedef unsigned int u32;
typedef unsigned long long u64;

enum event_kind { EVENT_OPEN = 1, EVENT_CLOSE, EVENT_EXEC };

struct event {
    u64 timestamp_ns;
    u32 pid;
    u32 kind : 4;
    u32 flags : 28;
    char comm[16];
};

struct stats {
    u64 events;
    u64 dropped;
};

struct stats global_stats;
const volatile u32 target_pid = 0;
char LICENSE[] SEC("license") = "GPL";

static __attribute__((noinline)) int record(struct event *e, enum event_kind kind) {
    e->kind = kind;
    global_stats.events++;
    return 0;
}

SEC("tracepoint/syscalls/sys_enter_openat") int trace_open(void *ctx) {
    struct event e = {.pid = target_pid};
    return record(&e, EVENT_OPEN);
}
