// Casting a sized constant to `int` folds to its numeric value (signed values stay negative).
const bit<4> four_bits = 0b0110;
const int as_int = (int)four_bits;
const int<5> minus_two = -2;
const int neg = (int)minus_two;
control C(inout bit<9> a, inout bit<6> b, inout int<6> c);
package P(C c);
control Use(inout bit<9> a, inout bit<6> b, inout int<6> c) {
    apply {
        a = (bit<9>)as_int;
        b = (bit<6>)neg;
        c = (int<6>)neg;
    }
}
P(Use()) main;
