// Seed for dwarf-loader-fuzz: what C++ adds (references, classes, bases, members, namespaces).
namespace shapes {

class Base {
public:
    virtual ~Base() = default;
    int id = 0;
};

class Circle : public Base {
public:
    static int count;
    double radius = 1.0;
    int Circle::*field = nullptr;
    double area(const Circle& other, Circle&& moved) const {
        return radius * other.radius + moved.radius;
    }
};

int Circle::count = 0;

} // namespace shapes

double use(shapes::Circle& c, decltype(nullptr)) {
    return c.area(c, shapes::Circle());
}
