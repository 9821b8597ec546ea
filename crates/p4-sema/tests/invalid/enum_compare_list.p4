#include <core.p4>
enum X { a } const bool same = (X.a == { });
