#include <core.p4>
bit<8> f(in bit<8> x) {
if (x == 0) {
return 1;
} }
