#include <core.p4>
header H {
bit<(-1)> a;
}
