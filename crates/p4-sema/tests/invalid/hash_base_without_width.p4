#include <core.p4>
extern void hash<O, T, D, M>(out O result, in bit<8> algo, in T base, in D data, in M max);
control c(in bit<32> a, out bit<16> h) { apply { hash(h, 1, 0, { a }, 32w1024); } }
