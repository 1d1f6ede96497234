// Compiled with clang: see unit_a.c.
struct point {
    int x, y;
};

static __attribute__((noinline)) int helper(struct point *p, int k) {
    return p->y * k - p->x;
}

static __attribute__((noinline)) int differ(const char *s) {
    return s[0] + s[1];
}

int from_b(int k, const char *s) {
    struct point p = {1, k};
    return helper(&p, k) + differ(s);
}

int from_a(int k);

int main(int argc, char **argv) {
    return from_a(argc) + from_b(argc, argv[0]);
}
