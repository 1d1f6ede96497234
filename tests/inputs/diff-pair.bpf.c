// Compiled once per VARIANT: 0 is the reference, and each other variant changes exactly one thing
// in it (tests/integration/diff.sh checks that `btforge diff` names just that thing).
//   1: a member inserted   2: a member's offset   3: an enum value   4: a parameter's type
#ifndef VARIANT
#define VARIANT 0
#endif

struct event {
    char kind;
#if VARIANT == 1
    char flags; // into the hole before pid, so nothing else moves
#endif
    int pid;
    long ts;
};

struct sample {
    char tag;
#if VARIANT == 2
    int value __attribute__((packed)); // at byte 1 instead of 4; the size stays 16
#else
    int value;
#endif
    long total;
};

enum level {
    LEVEL_LOW = 1,
#if VARIANT == 3
    LEVEL_HIGH = 5,
#else
    LEVEL_HIGH = 4,
#endif
};

#if VARIANT == 4
#define COUNT long
#else
#define COUNT int
#endif

struct event last_event;
struct sample last_sample;
enum level current_level;

int record(struct event *e, COUNT n) {
    last_event = *e;
    current_level = n > 10 ? LEVEL_HIGH : LEVEL_LOW;
    return e->pid + (int)n + last_sample.value;
}
