//! Expressions: arithmetic, saturation, signedness, shifts, slices and concatenation, booleans and
//! the ternary operator.

use super::{Program, Stf, Suite};
use crate::packet::{h, wrap_signed};

pub(super) const ALL: &[fn(&mut Suite)] = &[arith_wrap, saturating, signed, shifts, slices_concat, bool_ternary];

const M8: u128 = 0xff;
const M32: u128 = 0xffff_ffff;

/// Two's complement of a signed value, for a field.
fn tc(x: i128) -> u128 {
    x as u128
}

fn arith_wrap(s: &mut Suite) {
    let decls = r"
header h_t {
    bit<8>  a;
    bit<8>  b;
    bit<8>  sum;
    bit<8>  diff;
    bit<8>  prod;
    bit<16> wide_sum;
    bit<8>  neg;
    bit<8>  inv;
    bit<32> x;
    bit<32> y;
    bit<32> x_plus_y;
    bit<32> x_times_y;
}
struct headers_t { h_t h; }
struct meta_t { }

// Folded at compile time; the same wrap-around rules as at run time.
const bit<8> FOLDED_WRAP = 8w250 + 8w10;      // 4
const bit<8> FOLDED_DIV = 8w200 / 8w7;        // 28
const bit<8> FOLDED_MOD = 8w200 % 8w7;        // 4
";
    let ingress = r"
    apply {
        hdr.h.sum = hdr.h.a + hdr.h.b;
        hdr.h.diff = hdr.h.a - hdr.h.b;
        hdr.h.prod = hdr.h.a * hdr.h.b;
        hdr.h.wide_sum = (bit<16>)hdr.h.a + (bit<16>)hdr.h.b;
        hdr.h.neg = -hdr.h.a;
        hdr.h.inv = ~hdr.h.a;
        hdr.h.x_plus_y = hdr.h.x + hdr.h.y;
        hdr.h.x_times_y = hdr.h.x * hdr.h.y;
        if (hdr.h.a == 0) {
            hdr.h.sum = FOLDED_WRAP;
            hdr.h.diff = FOLDED_DIV;
            hdr.h.prod = FOLDED_MOD;
        }
        sm.egress_spec = 1;
    }
";
    s.program(Program::new("arith_wrap", "bit<W> arithmetic wraps modulo 2^W", decls, ingress));
    let mut t = Stf::new("arith_wrap: + - * unary minus and ~ on bit<8> and bit<32> wrap modulo 2^W");
    for (a, b, x, y) in [(200, 100, 0xffffffff, 2), (3, 5, 0x10000, 0x10001), (255, 255, 0x80000000, 0x80000000),
                         (0, 9, 7, 6)] {
        let inp = h(&[(a, 8), (b, 8), (0, 8), (0, 8), (0, 8), (0, 16), (0, 8), (0, 8), (x, 32), (y, 32), (0, 32),
                      (0, 32)]);
        // a == 0 selects the constants folded at compile time.
        let (sum, diff, prod) =
            if a == 0 { (4, 28, 4) } else { ((a + b) & M8, a.wrapping_sub(b) & M8, (a * b) & M8) };
        let out = h(&[(a, 8), (b, 8), (sum, 8), (diff, 8), (prod, 8), (a + b, 16), (a.wrapping_neg(), 8), (!a, 8),
                      (x, 32), (y, 32), ((x + y) & M32, 32), ((x * y) & M32, 32)]);
        t.comment(format!("a={a} b={b} x={x:#x} y={y:#x}"));
        t.packet(0, &inp);
        t.expect(1, &out);
    }
    s.stf("arith_wrap", t);
}

fn saturating(s: &mut Suite) {
    let decls = r"
header h_t {
    bit<8> a;
    bit<8> b;
    int<8> sa;
    int<8> sb;
    bit<8> usat_add;
    bit<8> usat_sub;
    int<8> ssat_add;
    int<8> ssat_sub;
}
struct headers_t { h_t h; }
struct meta_t { }
";
    let ingress = r"
    apply {
        hdr.h.usat_add = hdr.h.a |+| hdr.h.b;
        hdr.h.usat_sub = hdr.h.a |-| hdr.h.b;
        hdr.h.ssat_add = hdr.h.sa |+| hdr.h.sb;
        hdr.h.ssat_sub = hdr.h.sa |-| hdr.h.sb;
        sm.egress_spec = 1;
    }
";
    s.program(Program::new("saturating", "saturating |+| and |-| on bit<8> and int<8>", decls, ingress));
    let mut t = Stf::new("saturating: unsigned clamps to [0, 255], signed to [-128, 127]");
    for (a, b, sa, sb) in [(200i128, 100i128, 100i128, 100i128), (3, 5, -100, 100), (255, 0, -100, -100),
                           (10, 10, 50, -100), (128, 127, -128, 1)] {
        let ua = (a + b).min(255);
        let us = (a - b).max(0);
        let sadd = (sa + sb).clamp(-128, 127);
        let ssub = (sa - sb).clamp(-128, 127);
        let inp = h(&[(tc(a), 8), (tc(b), 8), (tc(sa), 8), (tc(sb), 8), (0, 32)]);
        let out = h(&[(tc(a), 8), (tc(b), 8), (tc(sa), 8), (tc(sb), 8), (tc(ua), 8), (tc(us), 8), (tc(sadd), 8),
                      (tc(ssub), 8)]);
        t.comment(format!("a={a} b={b} sa={sa} sb={sb} -> {ua} {us} {sadd} {ssub}"));
        t.packet(0, &inp);
        t.expect(1, &out);
    }
    s.stf("saturating", t);
}

fn signed(s: &mut Suite) {
    let decls = r"
header h_t {
    int<8>  a;
    int<8>  b;
    bit<8>  u;
    int<16> sext;        // (int<16>)a: sign-extends
    bit<16> zext;        // (bit<16>)u: zero-extends
    bit<16> sext_bits;   // (bit<16>)(int<16>)a: sign-extend, then reinterpret
    bit<8>  as_bits;     // (bit<8>)a: same bits
    int<8>  neg;
    int<16> prod;        // (int<16>)a * (int<16>)b
    bit<8>  slt;         // a < b, signed comparison
    bit<8>  ult;         // (bit<8>)a < (bit<8>)b, unsigned comparison
    int<4>  narrow;      // (int<4>)a: keeps the low 4 bits
    bit<4>  pad;
}
struct headers_t { h_t h; }
struct meta_t { }
";
    let ingress = r"
    apply {
        hdr.h.sext = (int<16>)hdr.h.a;
        hdr.h.zext = (bit<16>)hdr.h.u;
        hdr.h.sext_bits = (bit<16>)(int<16>)hdr.h.a;
        hdr.h.as_bits = (bit<8>)hdr.h.a;
        hdr.h.neg = -hdr.h.a;
        hdr.h.prod = (int<16>)hdr.h.a * (int<16>)hdr.h.b;
        hdr.h.slt = hdr.h.a < hdr.h.b ? 8w1 : 8w0;
        hdr.h.ult = (bit<8>)hdr.h.a < (bit<8>)hdr.h.b ? 8w1 : 8w0;
        hdr.h.narrow = (int<4>)hdr.h.a;
        sm.egress_spec = 1;
    }
";
    s.program(Program::new("signed", "int<W>: casts, sign extension, signed comparison and multiplication", decls,
                           ingress));
    let mut t = Stf::new("signed: two's complement casts and comparisons");
    for (a, b, u) in [(-3i128, 5i128, 0xfdu128), (100, -100, 0x80), (-128, -1, 0x01), (7, 7, 0xff)] {
        let inp = h(&[(tc(a), 8), (tc(b), 8), (u, 8), (0, 16), (0, 16), (0, 16), (0, 8), (0, 8), (0, 16), (0, 8),
                      (0, 8), (0, 4), (0, 4)]);
        let out = h(&[(tc(a), 8), (tc(b), 8), (u, 8), (tc(a), 16), (u, 16), (tc(a), 16), (tc(a), 8),
                      (tc(wrap_signed(-a, 8)), 8), (tc(wrap_signed(a * b, 16)), 16), (u128::from(a < b), 8),
                      (u128::from((a & 0xff) < (b & 0xff)), 8), (tc(a), 4), (0, 4)]);
        t.comment(format!("a={a} b={b} u={u:#x}"));
        t.packet(0, &inp);
        t.expect(1, &out);
    }
    s.stf("signed", t);
}

fn shifts(s: &mut Suite) {
    let decls = r"
header h_t {
    bit<8>  a;
    bit<8>  n;
    int<8>  s;
    bit<8>  shl;        // a << n
    bit<8>  shr;        // a >> n
    bit<8>  shl3;       // a << 3
    bit<8>  shr3;       // a >> 3
    bit<16> widened;    // (bit<16>)a << 4
    int<8>  sar2;       // s >> 2 (arithmetic)
    int<8>  sal1;       // s << 1
    int<8>  sar_n;      // s >> n
}
struct headers_t { h_t h; }
struct meta_t { }
";
    let ingress = r"
    apply {
        hdr.h.shl = hdr.h.a << hdr.h.n;
        hdr.h.shr = hdr.h.a >> hdr.h.n;
        hdr.h.shl3 = hdr.h.a << 3;
        hdr.h.shr3 = hdr.h.a >> 3;
        hdr.h.widened = (bit<16>)hdr.h.a << 4;
        hdr.h.sar2 = hdr.h.s >> 2;
        hdr.h.sal1 = hdr.h.s << 1;
        hdr.h.sar_n = hdr.h.s >> hdr.h.n;
        sm.egress_spec = 1;
    }
";
    s.program(Program::new("shifts", "shifts: by constants and run-time amounts, logical and arithmetic, amounts >= width",
                           decls, ingress));
    let mut t = Stf::new("shifts: shifting bit<8> by >= 8 gives 0; int<8> >> n fills with the sign bit");
    for (a, n, sv) in [(0x81u128, 1u128, -16i128), (0xff, 9, 64), (0x3c, 0, -1), (0x96, 7, -128), (0x01, 200, 5)] {
        let shl = if n < 8 { (a << n) & 0xff } else { 0 };
        let shr = if n < 8 { a >> n } else { 0 };
        let sar_n = sv >> n.min(7);
        let inp = h(&[(a, 8), (n, 8), (tc(sv), 8), (0, 56), (0, 16)]);
        let out = h(&[(a, 8), (n, 8), (tc(sv), 8), (shl, 8), (shr, 8), ((a << 3) & 0xff, 8), (a >> 3, 8),
                      (a << 4, 16), (tc(sv >> 2), 8), (tc(sv << 1), 8), (tc(sar_n), 8)]);
        t.comment(format!("a={a:#x} n={n} s={sv}"));
        t.packet(0, &inp);
        t.expect(1, &out);
    }
    s.stf("shifts", t);
}

fn slices_concat(s: &mut Suite) {
    let decls = r"
header h_t {
    bit<16> x;
    bit<8>  y;
    bit<8>  hi;      // x[15:8]
    bit<8>  lo;      // x[7:0]
    bit<8>  mid;     // x[11:4]
    bit<16> z;       // x with z[3:0] = y[7:4] and z[15:12] = 0xA
    bit<24> cat;     // x ++ y
    bit<8>  swap;    // y[3:0] ++ y[7:4]
    bit<1>  top;     // x[15:15]
    bit<7>  rest;    // x[6:0]
}
struct headers_t { h_t h; }
struct meta_t { }
";
    let ingress = r"
    apply {
        hdr.h.hi = hdr.h.x[15:8];
        hdr.h.lo = hdr.h.x[7:0];
        hdr.h.mid = hdr.h.x[11:4];
        hdr.h.z = hdr.h.x;
        hdr.h.z[3:0] = hdr.h.y[7:4];
        hdr.h.z[15:12] = 4w0xA;
        hdr.h.cat = hdr.h.x ++ hdr.h.y;
        hdr.h.swap = hdr.h.y[3:0] ++ hdr.h.y[7:4];
        hdr.h.top = hdr.h.x[15:15];
        hdr.h.rest = hdr.h.x[6:0];
        sm.egress_spec = 1;
    }
";
    s.program(Program::new("slices_concat", "bit slices (read and write) and concatenation", decls, ingress));
    let mut t = Stf::new("slices_concat: x[h:l] reads, x[h:l] = v writes only those bits, ++ concatenates");
    for (x, y) in [(0x1234u128, 0xabu128), (0xffff, 0x0f), (0x8001, 0x5a)] {
        let z = (x & 0xfff0) | (y >> 4);
        let z = (z & 0x0fff) | 0xa000;
        let inp = h(&[(x, 16), (y, 8), (0, 8 * 10)]);
        let out = h(&[(x, 16), (y, 8), (x >> 8, 8), (x & 0xff, 8), ((x >> 4) & 0xff, 8), (z, 16), ((x << 8) | y, 24),
                      (((y & 0xf) << 4) | (y >> 4), 8), (x >> 15, 1), (x & 0x7f, 7)]);
        t.comment(format!("x={x:#x} y={y:#x}"));
        t.packet(0, &inp);
        t.expect(1, &out);
    }
    s.stf("slices_concat", t);
}

fn bool_ternary(s: &mut Suite) {
    let decls = r"
header h_t {
    bit<8> a;
    bit<8> b;
    bit<8> r_and;    // a > b && a != 0
    bit<8> r_or;     // a == 0 || b == 0
    bit<8> r_not;    // !(a > b)
    bit<8> r_max;    // a > b ? a : b
    bit<8> r_cmp;    // a == b ? 0xEE : (a < b ? 1 : 2)
    bit<8> r_band;   // a & b
    bit<8> r_bor;    // a | b
    bit<8> r_bxor;   // a ^ b
    bit<8> r_cast;   // (bit<8>)(bit<1>)(a >= b)
    bit<8> r_eqb;    // (a > 10) == (b > 10)
}
struct headers_t { h_t h; }
struct meta_t { }
";
    let ingress = r"
    apply {
        bool greater = hdr.h.a > hdr.h.b;
        hdr.h.r_and = (greater && hdr.h.a != 0) ? 8w1 : 8w0;
        hdr.h.r_or = (hdr.h.a == 0 || hdr.h.b == 0) ? 8w1 : 8w0;
        hdr.h.r_not = !greater ? 8w1 : 8w0;
        hdr.h.r_max = greater ? hdr.h.a : hdr.h.b;
        hdr.h.r_cmp = hdr.h.a == hdr.h.b ? 8w0xEE : (hdr.h.a < hdr.h.b ? 8w1 : 8w2);
        hdr.h.r_band = hdr.h.a & hdr.h.b;
        hdr.h.r_bor = hdr.h.a | hdr.h.b;
        hdr.h.r_bxor = hdr.h.a ^ hdr.h.b;
        hdr.h.r_cast = (bit<8>)(bit<1>)(hdr.h.a >= hdr.h.b);
        hdr.h.r_eqb = ((hdr.h.a > 10) == (hdr.h.b > 10)) ? 8w1 : 8w0;
        sm.egress_spec = 1;
    }
";
    s.program(Program::new("bool_ternary", "bool operators, comparisons, bitwise operators and ?:", decls, ingress));
    let mut t = Stf::new("bool_ternary");
    for (a, b) in [(5u128, 3u128), (0, 9), (7, 7), (0x0f, 0xf0), (11, 0)] {
        let cmp = if a == b { 0xee } else if a < b { 1 } else { 2 };
        let out = h(&[(a, 8), (b, 8), (u128::from(a > b && a != 0), 8), (u128::from(a == 0 || b == 0), 8),
                      (u128::from(a <= b), 8), (a.max(b), 8), (cmp, 8), (a & b, 8), (a | b, 8), (a ^ b, 8),
                      (u128::from(a >= b), 8), (u128::from((a > 10) == (b > 10)), 8)]);
        t.comment(format!("a={a} b={b}"));
        t.packet(0, &h(&[(a, 8), (b, 8), (0, 80)]));
        t.expect(1, &out);
    }
    s.stf("bool_ternary", t);
}
