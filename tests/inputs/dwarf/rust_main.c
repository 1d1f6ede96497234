/* The C side of the Rust test program: it only knows the Rust type by a pointer. */
struct c_side {
    int answer;
};

struct RustTriangle;
unsigned long rust_perimeter(const struct RustTriangle *triangle);

int main(void) {
    /* sides {3, 4, 5}, padding, scale 1, as the little-endian words of a RustTriangle */
    static const unsigned long triangle[3] = {3 | 4UL << 32, 5, 1};
    struct c_side side = {(int)rust_perimeter((const struct RustTriangle *)triangle)};
    return side.answer == 12 ? 0 : 1;
}
