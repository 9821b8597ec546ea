#include <core.p4>
header H {
bit<8> a;
bit<8> a;
}
