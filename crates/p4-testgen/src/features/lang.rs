//! Language constructs: enums, typedef/type, tuples and structs in expressions, sub-parsers and
//! sub-controls, functions, exit, loops.

use super::{Program, Stf, Suite};
use crate::packet::h;

pub(super) const ALL: &[fn(&mut Suite)] =
    &[enums, typedefs, structs_tuples, sub_blocks, functions, exit_stmt, for_loops, for_in_collections, deparser_control_flow];

/// The `items` stack of `for_loops` and `for_in_collections`: `hdr.h`, then exactly three items.
const ITEMS_PARSER: &str = r"
state start {
    pkt.extract(hdr.h);
    pkt.extract(hdr.items.next);
    pkt.extract(hdr.items.next);
    pkt.extract(hdr.items.next);
    transition accept;
}
";

/// The deparser of the tests with an `items` stack.
const EMIT_H_ITEMS: &str = "pkt.emit(hdr.h);\npkt.emit(hdr.items);";

fn enums(s: &mut Suite) {
    let decls = r"
enum bit<8> Op {
    Add = 1,
    Sub = 2,
    Xor = 0x10
}
enum Verdict { Keep, Flip, Zero }

header h_t {
    Op     op;        // a serializable enum as a header field
    bit<8> a;
    bit<8> b;
    bit<8> r;
    bit<8> parsed;    // which select case the parser took
    bit<8> tag;       // (bit<8>)Op.Xor, written when op is not a known value
}
struct headers_t { h_t h; }
struct meta_t { }
";
    let parser = r"
state start {
    pkt.extract(hdr.h);
    transition select(hdr.h.op) {
        Op.Add: is_add;
        Op.Sub: is_sub;
        default: accept;
    }
}
state is_add { hdr.h.parsed = 1; transition accept; }
state is_sub { hdr.h.parsed = 2; transition accept; }
";
    let ingress = r"
Verdict verdict;

apply {
    switch (hdr.h.op) {
        Op.Add: { hdr.h.r = hdr.h.a + hdr.h.b; }
        Op.Sub: { hdr.h.r = hdr.h.a - hdr.h.b; }
        Op.Xor: { hdr.h.r = hdr.h.a ^ hdr.h.b; }
        default: { hdr.h.tag = (bit<8>)Op.Xor; }
    }
    if (hdr.h.r == 0) {
        verdict = Verdict.Zero;
    } else if (hdr.h.r[7:7] == 1) {
        verdict = Verdict.Flip;
    } else {
        verdict = Verdict.Keep;
    }
    if (verdict == Verdict.Flip) {
        hdr.h.r = ~hdr.h.r;
    } else if (verdict == Verdict.Zero) {
        hdr.h.op = (Op)8w0x10;
    }
    sm.egress_spec = 1;
}
";
    s.program(Program::new("enums", "enums: serializable enums in headers, select and switch; plain enums in variables",
                           decls, ingress)
        .parser(parser));
    let mut t = Stf::new("enums");
    for (op, a, b) in [(1u128, 3u128, 4u128), (2, 3, 4), (0x10, 0x0f, 0x01), (0x10, 5, 5), (7, 1, 1)] {
        let parsed = match op {
            1 | 2 => op,
            _ => 0,
        };
        let (mut r, tag) = match op {
            1 => ((a + b) & 0xff, 0),
            2 => (a.wrapping_sub(b) & 0xff, 0),
            0x10 => (a ^ b, 0),
            _ => (0, 0x10),
        };
        let mut op_out = op;
        if r == 0 {
            op_out = 0x10;
        } else if r & 0x80 != 0 {
            r = !r & 0xff;
        }
        t.comment(format!("op={op:#x} a={a} b={b}"));
        t.packet(0, &h(&[(op, 8), (a, 8), (b, 8), (0, 24)]));
        t.expect(1, &h(&[(op_out, 8), (a, 8), (b, 8), (r, 8), (parsed, 8), (tag, 8)]));
    }
    s.stf("enums", t);
}

fn typedefs(s: &mut Suite) {
    let decls = r"
typedef bit<8> byte_t;
typedef byte_t small_t;          // a typedef of a typedef
type bit<16> FlowId_t;           // a new type: needs explicit casts

header h_t {
    small_t  a;
    FlowId_t id;
    byte_t   res;
}
struct headers_t { h_t h; }
struct meta_t { }

const FlowId_t SPECIAL = (FlowId_t)16w0xBEEF;
";
    let ingress = r"
apply {
    byte_t x = hdr.h.a + 1;
    hdr.h.res = x;
    if (hdr.h.id == SPECIAL) {
        hdr.h.res = 0xEE;
    }
    hdr.h.id = (FlowId_t)((bit<16>)hdr.h.id + 2);
    sm.egress_spec = 1;
}
";
    s.program(Program::new("typedefs", "typedef (an alias) and type (a distinct type needing casts)", decls, ingress));
    let mut t = Stf::new("typedefs");
    t.packet(0, &h(&[(5, 8), (0x1000, 16), (0, 8)]));
    t.expect(1, &h(&[(5, 8), (0x1002, 16), (6, 8)]));
    t.packet(0, &h(&[(5, 8), (0xbeef, 16), (0, 8)]));
    t.expect(1, &h(&[(5, 8), (0xbef1, 16), (0xee, 8)]));
    s.stf("typedefs", t);
}

fn structs_tuples(s: &mut Suite) {
    let decls = r"
struct pair_t {
    bit<8> x;
    bit<8> y;
}
header h_t {
    bit<8>  a;
    bit<8>  b;
    bit<8>  same;     // p == q (struct equality)
    bit<8>  sum;      // from a struct built with named fields
    bit<8>  t0;       // tuple element 0
    bit<16> t1;       // tuple element 1
}
header out_t {
    bit<8> first;
    bit<8> second;
}
struct headers_t {
    h_t   h;
    out_t o;          // assigned from a list expression: becomes valid
}
struct meta_t { }
";
    let ingress = r"
apply {
    pair_t p = { x = hdr.h.a, y = hdr.h.b };
    pair_t q = { hdr.h.b, hdr.h.a };
    hdr.h.same = (p == q) ? 8w1 : 8w0;
    pair_t r = p;
    r.x = r.x + r.y;
    hdr.h.sum = r.x;
    tuple<bit<8>, bit<16>> t = { hdr.h.b, 16w0x1234 };
    hdr.h.t0 = t[0];
    hdr.h.t1 = t[1];
    hdr.o = { p.y, p.x };
    sm.egress_spec = 1;
}
";
    s.program(Program::new("structs_tuples",
                           "struct and tuple values: initialisers, equality, copies, list assignment to a header",
                           decls, ingress)
        .deparser("pkt.emit(hdr.h);\npkt.emit(hdr.o);"));
    let mut t = Stf::new("structs_tuples");
    for (a, b) in [(3u128, 4u128), (9, 9)] {
        t.packet(0, &h(&[(a, 8), (b, 8), (0, 40)]));
        t.expect(1, &h(&[(a, 8), (b, 8), (u128::from(a == b), 8), (a + b, 8), (b, 8), (0x1234, 16), (b, 8), (a, 8)]));
    }
    s.stf("structs_tuples", t);
}

fn sub_blocks(s: &mut Suite) {
    let decls = r"
header h_t {
    bit<8> a;
    bit<8> b;
    bit<8> c;
}
header inner_t {
    bit<8> v;
}
struct headers_t {
    h_t     h;
    inner_t inner;
}
struct meta_t { }

// A parser called from the main parser.
parser InnerParser(packet_in pkt, out inner_t inner) {
    state start {
        pkt.extract(inner);
        transition accept;
    }
}

// A control with a constructor parameter, instantiated twice.
control AddN(inout bit<8> x)(bit<8> n) {
    apply {
        x = x + n;
    }
}

// A control holding its own table (with const entries): each instance has its own.
control Classify(in bit<8> k, out bit<8> cls) {
    action set_class(bit<8> c) { cls = c; }
    table t {
        key = { k: exact; }
        actions = { set_class; }
        const entries = {
            1 : set_class(0x10);
            2 : set_class(0x20);
        }
        default_action = set_class(0xF0);
    }
    apply {
        t.apply();
    }
}
";
    let parser = r"
InnerParser() inner_parser;

state start {
    pkt.extract(hdr.h);
    inner_parser.apply(pkt, hdr.inner);
    transition accept;
}
";
    let ingress = r"
AddN(3) add3;
AddN(100) add100;
Classify() classify;

apply {
    add3.apply(hdr.h.a);
    add100.apply(hdr.h.b);
    add3.apply(hdr.h.b);
    classify.apply(hdr.inner.v, hdr.h.c);
    sm.egress_spec = 1;
}
";
    s.program(Program::new("sub_blocks", "sub-parsers and sub-controls (with constructor parameters and their own tables)",
                           decls, ingress)
        .parser(parser)
        .deparser("pkt.emit(hdr.h);\npkt.emit(hdr.inner);"));
    let mut t = Stf::new("sub_blocks");
    for (a, b, v) in [(1u128, 1u128, 1u128), (250, 200, 2), (0, 0, 9)] {
        let cls = match v {
            1 => 0x10,
            2 => 0x20,
            _ => 0xf0,
        };
        t.packet(0, &h(&[(a, 8), (b, 8), (0, 8), (v, 8)]));
        t.expect(1, &h(&[(a + 3, 8), (b + 103, 8), (cls, 8), (v, 8)]));
    }
    s.stf("sub_blocks", t);
}

fn functions(s: &mut Suite) {
    let decls = r"
header h_t {
    bit<8> a;
    bit<8> b;
    bit<8> mx;       // max8(a, b)
    bit<8> sat;      // clamp_add(a, b, ovf)
    bit<8> ovf;
    bit<8> z;        // set_both(z, z): copy-out left to right, so the second wins
    bit<8> sw_a;     // a and b swapped through inout parameters
    bit<8> sw_b;
}
struct headers_t { h_t h; }
struct meta_t { }

bit<8> max8(in bit<8> x, in bit<8> y) {
    if (x > y) {
        return x;
    }
    return y;
}

bit<8> clamp_add(in bit<8> x, in bit<8> y, out bool overflow) {
    bit<9> s = (bit<9>)x + (bit<9>)y;
    overflow = s[8:8] == 1;
    return overflow ? 8w255 : s[7:0];
}

void set_both(out bit<8> first, out bit<8> second) {
    first = 1;
    second = 2;
}

void swap(inout bit<8> x, inout bit<8> y) {
    bit<8> t = x;
    x = y;
    y = t;
}
";
    let ingress = r"
apply {
    bool overflow;
    hdr.h.mx = max8(hdr.h.a, hdr.h.b);
    hdr.h.sat = clamp_add(hdr.h.a, hdr.h.b, overflow);
    hdr.h.ovf = overflow ? 8w1 : 8w0;
    set_both(hdr.h.z, hdr.h.z);
    hdr.h.sw_a = hdr.h.a;
    hdr.h.sw_b = hdr.h.b;
    swap(hdr.h.sw_a, hdr.h.sw_b);
    sm.egress_spec = 1;
}
";
    s.program(Program::new("functions", "functions: return values, early return, out/inout copy-in/copy-out", decls,
                           ingress));
    let mut t = Stf::new("functions");
    for (a, b) in [(3u128, 9u128), (200, 100), (255, 0)] {
        t.packet(0, &h(&[(a, 8), (b, 8), (0, 48)]));
        t.expect(1, &h(&[(a, 8), (b, 8), (a.max(b), 8), ((a + b).min(255), 8), (u128::from(a + b > 255), 8), (2, 8),
                         (b, 8), (a, 8)]));
    }
    s.stf("functions", t);
}

fn exit_stmt(s: &mut Suite) {
    let decls = r"
header h_t {
    bit<8> k;
    bit<8> before;
    bit<8> after;     // not written when ingress exits early
    bit<8> egress;    // egress still runs after an exit in ingress
}
struct headers_t { h_t h; }
struct meta_t { }
";
    let ingress = r"
action stop() {
    hdr.h.before = 0xA1;
    exit;
}
table t {
    key = { hdr.h.k: exact; }
    actions = { stop; NoAction; }
    const entries = {
        2 : stop();
    }
    default_action = NoAction();
}
apply {
    sm.egress_spec = 1;
    hdr.h.before = 1;
    if (hdr.h.k == 1) {
        exit;
    }
    t.apply();
    hdr.h.after = 1;
}
";
    let egress = r"
apply {
    hdr.h.egress = 1;
}
";
    s.program(Program::new("exit_stmt", "exit ends the current control (from apply and from an action); egress still runs",
                           decls, ingress)
        .egress(egress));
    let mut t = Stf::new("exit_stmt");
    for (k, before, after) in [(0, 1, 1), (1, 1, 0), (2, 0xa1, 0)] {
        t.packet(0, &h(&[(k, 8), (0, 24)]));
        t.expect(1, &h(&[(k, 8), (before, 8), (after, 8), (1, 8)]));
    }
    s.stf("exit_stmt", t);
}

fn for_loops(s: &mut Suite) {
    let decls = r"
header h_t {
    bit<8>  n;
    bit<16> sum;       // 1 + 2 + ... + n, with a 3-clause for
    bit<16> sum_in;    // the same with for-in over a range
    bit<8>  firstbig;  // index of the first item > 0x7F (break), 0xFF if none
    bit<8>  odd;       // how many items are odd (continue)
}
header item_t { bit<8> v; }
struct headers_t {
    h_t       h;
    item_t[3] items;
}
struct meta_t { }
";
    let ingress = r"
apply {
    bit<16> s = 0;
    for (bit<8> i = 1; i <= hdr.h.n; i = i + 1) {
        s = s + (bit<16>)i;
    }
    hdr.h.sum = s;
    s = 0;
    for (bit<8> i in 1 .. hdr.h.n) {
        s = s + (bit<16>)i;
    }
    hdr.h.sum_in = s;
    hdr.h.firstbig = 0xFF;
    for (bit<8> i = 0; i < 3; i = i + 1) {
        if (hdr.items[i].v > 0x7F) {
            hdr.h.firstbig = i;
            break;
        }
    }
    bit<8> odd = 0;
    for (bit<8> i = 0; i < 3; i = i + 1) {
        if (hdr.items[i].v[0:0] == 0) {
            continue;
        }
        odd = odd + 1;
    }
    hdr.h.odd = odd;
    sm.egress_spec = 1;
}
";
    s.program(Program::new("for_loops", "for loops: 3-clause and for-in over a range, break, continue", decls, ingress)
        .parser(ITEMS_PARSER)
        .deparser(EMIT_H_ITEMS));
    let mut t = Stf::new("for_loops");
    for (n, items) in [(4u128, [1u8, 0x80, 0x81]), (1, [2, 4, 6]), (10, [3, 5, 0xff])] {
        let sum: u128 = (1..=n).sum();
        let big = items.iter().position(|&v| v > 0x7f).map_or(0xff, |i| i as u128);
        let odd = items.iter().filter(|&&v| v & 1 == 1).count() as u128;
        t.packet(0, &[h(&[(n, 8), (0, 48)]), items.to_vec()].concat());
        t.expect(1, &[h(&[(n, 8), (sum, 16), (sum, 16), (big, 8), (odd, 8)]), items.to_vec()].concat());
    }
    s.stf("for_loops", t);
}

fn for_in_collections(s: &mut Suite) {
    let decls = r"
header h_t {
    bit<8> odd;      // odd items, iterating the header stack itself
    bit<8> total;    // sum of a list expression's elements
}
header item_t { bit<8> v; }
struct headers_t {
    h_t       h;
    item_t[3] items;
}
struct meta_t { }
";
    let ingress = r"
apply {
    bit<8> odd = 0;
    for (item_t it in hdr.items) {
        if (it.v[0:0] == 1) {
            odd = odd + 1;
        }
    }
    hdr.h.odd = odd;
    bit<8> total = 0;
    for (bit<8> x in { hdr.items[0].v, hdr.items[2].v, 8w100 }) {
        total = total + x;
    }
    hdr.h.total = total;
    sm.egress_spec = 1;
}
";
    s.program(Program::new("for_in_collections", "for-in over a header stack and over a list expression", decls,
                           ingress)
        .parser(ITEMS_PARSER)
        .deparser(EMIT_H_ITEMS));
    let mut t = Stf::new("for_in_collections");
    for items in [[1u8, 0x80, 0x81], [2, 4, 6]] {
        let odd = items.iter().filter(|&&v| v & 1 == 1).count() as u128;
        let total = (u128::from(items[0]) + u128::from(items[2]) + 100) & 0xff;
        t.packet(0, &[h(&[(0, 16)]), items.to_vec()].concat());
        t.expect(1, &[h(&[(odd, 8), (total, 8)]), items.to_vec()].concat());
    }
    s.stf("for_in_collections", t);
}

/// What the deparser of `deparser_control_flow` emits after `h` for kind `kind`, `n` more `b`s,
/// with `a` invalid when `drop_a`: the headers as the program's `switch` chooses them.
fn chosen_headers(kind: u8, n: u8, drop_a: bool) -> Vec<u8> {
    let a = if drop_a { vec![] } else { vec![0x11; 4] };
    let b = vec![0x22; 8];
    let mut out = match kind {
        1 => [a.clone(), b.clone()].concat(),
        2 => [b.clone(), a.clone()].concat(),
        3 if n > 2 => [b.clone(), if n > 4 { a.clone() } else { vec![] }].concat(),
        4 => [a.clone(), a.clone()].concat(),
        _ => a.clone(),
    };
    for _ in 0..n {
        out.extend_from_slice(&b);
    }
    out
}

fn deparser_control_flow(s: &mut Suite) {
    let decls = r"
header h_t {
    bit<8> kind;   // which headers the deparser's switch emits
    bit<1> drop_s1;
    bit<1> drop_a;
    bit<2> unused;
    bit<4> n;      // how many more copies of b a loop emits
}
header a_t { bit<32> a; }
header b_t { bit<64> b; }
struct headers_t {
    h_t    h;
    a_t    a;
    b_t    b;
    a_t[4] s;
}
struct meta_t { }

void emit_twice(packet_out pkt, in a_t x) {
    pkt.emit(x);
    pkt.emit(x);
}
";
    let parser = r"
state start {
    pkt.extract(hdr.h);
    pkt.extract(hdr.a);
    pkt.extract(hdr.b);
    pkt.extract(hdr.s[0]);
    pkt.extract(hdr.s[1]);
    pkt.extract(hdr.s[2]);
    pkt.extract(hdr.s[3]);
    transition accept;
}
";
    let ingress = r"
apply {
    sm.egress_spec = 1;
    if (hdr.h.drop_s1 == 1) { hdr.s[1].setInvalid(); }
    if (hdr.h.drop_a == 1) { hdr.a.setInvalid(); }
}
";
    let deparser = r"pkt.emit(hdr.h);
switch (hdr.h.kind) {
    1: { pkt.emit(hdr.a); pkt.emit(hdr.b); }
    2: { pkt.emit(hdr.b); pkt.emit(hdr.a); }
    3: {
        if (hdr.h.n > 2) {
            pkt.emit(hdr.b);
            if (hdr.h.n > 4) { pkt.emit(hdr.a); }
        } else {
            pkt.emit(hdr.a);
        }
    }
    4: { emit_twice(pkt, hdr.a); }
    default: { pkt.emit(hdr.a); }
}
for (bit<4> i = 0; i < hdr.h.n; i = i + 1) {
    pkt.emit(hdr.b);
}
for (a_t x in hdr.s) {
    pkt.emit(x);
}
pkt.emit(hdr.s);";
    s.program(
        Program::new("deparser_control_flow", "a deparser emits under switch, nested if, a 3-clause loop, for-in over a stack and a function call", decls, ingress)
            .parser(parser)
            .deparser(deparser),
    );
    let mut t = Stf::new("deparser_control_flow");
    let stack: [[u8; 4]; 4] = [[0x33; 4], [0x44; 4], [0x55; 4], [0x66; 4]];
    for (kind, n, drop_s1, drop_a) in [(1u8, 0u8, false, false), (2, 1, false, false), (3, 2, false, false), (3, 5, true, true), (4, 0, false, false), (4, 3, false, true), (7, 15, true, false)] {
        let first = h(&[(u128::from(kind), 8), (u128::from(drop_s1), 1), (u128::from(drop_a), 1), (0, 2), (u128::from(n), 4)]);
        let mut packet = first.clone();
        packet.extend_from_slice(&[0x11; 4]);
        packet.extend_from_slice(&[0x22; 8]);
        stack.iter().for_each(|e| packet.extend_from_slice(e));
        packet.extend_from_slice(&[0xee, 0xff]);
        t.packet(0, &packet);
        let valid: Vec<&[u8; 4]> = stack.iter().enumerate().filter(|&(i, _)| i != 1 || !drop_s1).map(|(_, e)| e).collect();
        let mut out = first;
        out.extend(chosen_headers(kind, n, drop_a));
        for _ in 0..2 {
            valid.iter().for_each(|e| out.extend_from_slice(*e));
        }
        out.extend_from_slice(&[0xee, 0xff]);
        t.expect(1, &out);
    }
    s.stf("deparser_control_flow", t);
}
