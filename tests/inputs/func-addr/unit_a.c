// Compiled with gcc: a static function of the same name and prototype as one in unit_b.c, and one
// of the same name with another prototype. noinline/noclone keep them at their own symbols.
struct point {
    int x, y;
};

static __attribute__((noinline, noclone)) int helper(struct point *p, int k) {
    return p->x * k + p->y;
}

static __attribute__((noinline, noclone)) long differ(long a) {
    return a * 3;
}

int from_a(int k) {
    struct point p = {k, 2};
    return helper(&p, k) + (int)differ(k);
}
