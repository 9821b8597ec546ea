#include <core.p4>
@tag[1, "two", true] @info[size = 4, name = "x"]
const bit<8> a = 1;
control c(in bit<8> x, out int<8> y) {
    @hint["fast"] action act() { y = (int<8>) x; }
    apply { act(); }
}
