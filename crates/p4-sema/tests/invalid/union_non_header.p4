#include <core.p4>
header_union U {
bit<8> a;
}
