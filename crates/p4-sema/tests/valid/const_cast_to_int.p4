// Casting a sized constant to `int` folds to its numeric value (signed values stay negative).
const bit<4> four_bits = 0b0110;
const int as_int = (int)four_bits;
const bit<9> widened = (bit<9>)as_int;
const int<5> minus_two = -2;
const int neg = (int)minus_two;
const bit<6> all_but_one = (bit<6>)neg;
const int<6> still_neg = (int<6>)neg;
