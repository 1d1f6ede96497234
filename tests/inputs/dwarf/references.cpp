// A C++ unit for the DWARF loader: references (T&, T&&) that BTF can only spell as pointers, a
// class that must come out as a STRUCT, a base class and a static member that must not become
// members, and a namespace.
#include <utility>

namespace shapes {

class Shape {
public:
    virtual ~Shape() = default;
    int id = 0;
};

class Circle : public Shape {
public:
    static int instances;
    double radius = 1.0;
    long center[2] = {0, 0};

    double scaled(const Circle& other, Circle&& moved) const {
        return radius * other.radius + moved.radius;
    }
};

int Circle::instances = 0;

} // namespace shapes

struct plain_pair {
    int& first;
    const long&& second;
};

__attribute__((noinline)) double measure(shapes::Circle& circle, const plain_pair& pair) {
    return circle.scaled(circle, shapes::Circle()) + pair.first;
}

int main(int argc, char**) {
    shapes::Circle circle;
    long second = argc;
    plain_pair pair{argc, std::move(second)};
    return static_cast<int>(measure(circle, pair)) + shapes::Circle::instances;
}
