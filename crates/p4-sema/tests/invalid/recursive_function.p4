#include <core.p4>
bit<8> f(in bit<8> x) {
return f(x);
}
