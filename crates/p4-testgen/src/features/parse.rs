//! Parsing and header manipulation: validity, stacks, unions, varbit, lookahead/advance, parser
//! errors, select, value sets.

use super::{Program, Stf, Suite};
use crate::packet::{h, hx};

pub(super) const ALL: &[fn(&mut Suite)] = &[header_validity, header_stack, header_union, varbit, varbit_compare,
                                             lookahead_advance, parser_errors, select_cases, value_set];

/// Appends `packet 0 IN` and `expect PORT OUT`, both given as hex text.
fn io(t: &mut Stf, inp: &str, port: u32, out: &str) {
    t.packet(0, &hx(inp));
    t.expect(port, &hx(out));
}

fn header_validity(s: &mut Suite) {
    let decls = r"
header h_t {
    bit<8> kind;
    bit<8> had_second;
}
header second_t { bit<16> v; }
header third_t { bit<8> x; }
struct headers_t {
    h_t      h;
    second_t second;
    third_t  third;
}
struct meta_t { }
";
    let parser = r"
state start {
    pkt.extract(hdr.h);
    transition select(hdr.h.kind) {
        1: parse_second;
        default: accept;
    }
}
state parse_second {
    pkt.extract(hdr.second);
    transition accept;
}
";
    let ingress = r"
apply {
    if (hdr.second.isValid()) {
        hdr.h.had_second = 1;
        hdr.second.setInvalid();          // removed from the output
    } else {
        hdr.third.setValid();             // inserted after h
        hdr.third.x = 0x33;
    }
    if (!hdr.third.isValid() && !hdr.second.isValid()) {
        hdr.h.had_second = hdr.h.had_second + 0x10;
    }
    sm.egress_spec = 1;
}
";
    s.program(Program::new("header_validity", "setValid / setInvalid / isValid; invalid headers are not emitted",
                           decls, ingress)
        .parser(parser)
        .deparser("pkt.emit(hdr.h);\npkt.emit(hdr.second);\npkt.emit(hdr.third);"));
    let mut t = Stf::new("header_validity");
    t.comment("kind 1: second parsed, then invalidated: it disappears, the payload CAFE stays");
    io(&mut t, "0100BEEFCAFE", 1, "0111CAFE");
    t.comment("kind 0: second not parsed; third is made valid and inserted before the payload");
    io(&mut t, "0000BEEFCAFE", 1, "000033BEEFCAFE");
    s.stf("header_validity", t);
}

fn header_stack(s: &mut Suite) {
    let decls = r"
header ctl_t {
    bit<8> op;      // 1 push_front(1), 2 pop_front(1), 3 push_front(2)
    bit<8> size;    // written by ingress: hdr.items.size
    bit<8> first;   // written by ingress: hdr.items[0].v if valid, else 0xFF
}
header item_t { bit<8> v; }   // v[7:7] == 1 marks the last item
struct headers_t {
    ctl_t     ctl;
    item_t[4] items;
}
struct meta_t { }
";
    let parser = r"
state start {
    pkt.extract(hdr.ctl);
    transition parse_item;
}
state parse_item {
    pkt.extract(hdr.items.next);
    transition select(hdr.items.last.v[7:7]) {
        1: accept;
        default: parse_item;
    }
}
";
    let ingress = r"
apply {
    hdr.ctl.size = (bit<8>)hdr.items.size;
    sm.egress_spec = 1;
    if (sm.parser_error == error.StackOutOfBounds) {
        hdr.ctl.op = 0xEE;
        sm.egress_spec = 2;
        return;
    }
    if (hdr.ctl.op == 1) {
        hdr.items.push_front(1);
        hdr.items[0].setValid();
        hdr.items[0].v = 0x11;
    } else if (hdr.ctl.op == 2) {
        hdr.items.pop_front(1);
    } else if (hdr.ctl.op == 3) {
        hdr.items.push_front(2);
    }
    hdr.ctl.first = hdr.items[0].isValid() ? hdr.items[0].v : 8w0xFF;
}
";
    s.program(Program::new("header_stack",
                           "header stacks: next/last in the parser, push_front/pop_front, size, overflow", decls,
                           ingress)
        .parser(parser)
        .deparser("pkt.emit(hdr.ctl);\npkt.emit(hdr.items);"));
    let mut t = Stf::new("header_stack: a 4-element stack of 1-byte items; an item with the top bit set ends the list");
    t.comment("push_front(1) on 3 items: [new, 01, 02, 83]");
    io(&mut t, "010000 010283 AAAA", 1, "010411 11010283 AAAA");
    t.comment("push_front(1) on a full stack drops the last item (84)");
    io(&mut t, "010000 01020384 AAAA", 1, "010411 11010203 AAAA");
    t.comment("pop_front(1): [02, 83]");
    io(&mut t, "020000 010283 AAAA", 1, "020402 0283 AAAA");
    t.comment("push_front(2) on one item: items 0 and 1 invalid, not emitted");
    io(&mut t, "030000 81 AAAA", 1, "0304FF 81 AAAA");
    t.comment("5 items: the 5th extract overflows -> StackOutOfBounds; the 4 extracted stay, 85 is payload");
    io(&mut t, "000000 0102030485 AAAA", 2, "EE0400 0102030485 AAAA");
    s.stf("header_stack", t);
}

fn header_union(s: &mut Suite) {
    let decls = r"
header sel_t {
    bit<8> sel;
    bit<8> union_valid;
}
header small_t { bit<8> kind; bit<16> a; }
header big_t   { bit<8> kind; bit<32> a; }
header_union addr_u {
    small_t small;
    big_t   big;
}
struct headers_t {
    sel_t  s;
    addr_u u;
}
struct meta_t { }
";
    let parser = r"
state start {
    pkt.extract(hdr.s);
    transition select(hdr.s.sel) {
        4: parse_small;
        6: parse_big;
        default: accept;
    }
}
state parse_small {
    pkt.extract(hdr.u.small);
    transition accept;
}
state parse_big {
    pkt.extract(hdr.u.big);
    transition accept;
}
";
    let ingress = r"
apply {
    hdr.s.union_valid = hdr.u.isValid() ? 8w1 : 8w0;
    if (hdr.u.small.isValid()) {
        // Widen: making `big` valid invalidates `small`, so keep its value first.
        bit<16> a = hdr.u.small.a;
        hdr.u.big.setValid();
        hdr.u.big.kind = 6;
        hdr.u.big.a = (bit<32>)a;
        if (hdr.u.small.isValid()) {
            hdr.s.union_valid = 0xBB;   // must not happen
        }
    } else if (hdr.u.big.isValid()) {
        hdr.u.big.setInvalid();
    }
    sm.egress_spec = 1;
}
";
    s.program(Program::new("header_union",
                           "header unions: at most one member valid; setValid of one invalidates the other", decls,
                           ingress)
        .parser(parser)
        .deparser("pkt.emit(hdr.s);\npkt.emit(hdr.u);"));
    let mut t = Stf::new("header_union");
    t.comment("small member converted to big");
    io(&mut t, "0400 041234 FF", 1, "0401 0600001234 FF");
    t.comment("big member invalidated: the union emits nothing");
    io(&mut t, "0600 06AABBCCDD FF", 1, "0601 FF");
    t.comment("no member parsed");
    io(&mut t, "0900 FF", 1, "0900 FF");
    s.stf("header_union", t);
}

fn varbit(s: &mut Suite) {
    let decls = r"
header len_t { bit<8> nbytes; }
header opt_t { varbit<64> data; }
header trailer_t { bit<8> t; }
struct headers_t {
    len_t     len;
    opt_t     opt;
    trailer_t trailer;
}
struct meta_t { }
";
    let parser = r"
state start {
    pkt.extract(hdr.len);
    pkt.extract(hdr.opt, ((bit<32>)hdr.len.nbytes) << 3);
    pkt.extract(hdr.trailer);
    transition accept;
}
";
    let ingress = r"
apply {
    sm.egress_spec = 1;
    if (sm.parser_error == error.HeaderTooShort) {
        hdr.len.nbytes = 0xEE;
        sm.egress_spec = 2;
    } else {
        hdr.trailer.t = hdr.trailer.t + 1;
    }
}
";
    s.program(Program::new("varbit", "varbit fields: extract with a run-time size, emit with the extracted size",
                           decls, ingress)
        .parser(parser)
        .deparser("pkt.emit(hdr.len);\npkt.emit(hdr.opt);\npkt.emit(hdr.trailer);"));
    let mut t = Stf::new("varbit: a length byte, that many bytes of varbit<64>, a trailer byte");
    t.comment("3 bytes of data");
    io(&mut t, "03AABBCC10 99", 1, "03AABBCC11 99");
    t.comment("empty varbit");
    io(&mut t, "0010 99", 1, "0011 99");
    t.comment("8 bytes: the maximum");
    io(&mut t, "080102030405060708 20", 1, "080102030405060708 21");
    t.comment("9 bytes > varbit<64>: HeaderTooShort; only len was extracted");
    io(&mut t, "09010203040506070809 20", 2, "EE010203040506070809 20");
    s.stf("varbit", t);
}

fn varbit_compare(s: &mut Suite) {
    let decls = r"
header len_t { bit<8> a; bit<8> b; }   // bytes of x and of y
header opt_t { varbit<32> data; }
header res_t {
    bit<8> eq;    // 1: x.data == y.data
    bit<8> heq;   // 1: x == y (whole headers); | 0x10: a copy of x equals x
}
struct headers_t {
    len_t len;
    opt_t x;
    opt_t y;
    res_t res;
}
struct meta_t { }
";
    let parser = r"
state start {
    pkt.extract(hdr.len);
    pkt.extract(hdr.x, ((bit<32>)hdr.len.a) << 3);
    pkt.extract(hdr.y, ((bit<32>)hdr.len.b) << 3);
    pkt.extract(hdr.res);
    transition accept;
}
";
    let ingress = r"
apply {
    opt_t copy = hdr.x;
    hdr.res.eq = hdr.x.data == hdr.y.data ? 8w1 : 8w0;
    hdr.res.heq = hdr.x == hdr.y ? 8w1 : 8w0;
    if (copy == hdr.x && copy.data == hdr.x.data) {
        hdr.res.heq = hdr.res.heq | 0x10;
    }
    sm.egress_spec = 1;
}
";
    s.program(Program::new("varbit_compare", "varbit fields and headers with them compared: equal lengths and equal bits",
                           decls, ingress)
        .parser(parser)
        .deparser("pkt.emit(hdr.len);\npkt.emit(hdr.x);\npkt.emit(hdr.y);\npkt.emit(hdr.res);"));
    let mut t = Stf::new("varbit_compare: lengths a and b, x (a bytes), y (b bytes), then the results");
    t.comment("the same two bytes: equal fields, equal headers");
    io(&mut t, "0202 AABB AABB 0000", 1, "0202 AABB AABB 0111");
    t.comment("one bit differs: neither equal");
    io(&mut t, "0202 AABB AABC 0000", 1, "0202 AABB AABC 0010");
    t.comment("AA and AA00: the same bits once padded, but lengths 8 and 16: not equal");
    io(&mut t, "0102 AA AA00 0000", 1, "0102 AA AA00 0010");
    t.comment("both empty: equal");
    io(&mut t, "0000 0000", 1, "0000 0111");
    s.stf("varbit_compare", t);
}

fn lookahead_advance(s: &mut Suite) {
    let decls = r"
header h_t {
    bit<16> v;
    bit<16> peek;    // the first 16 bits of the packet, read with lookahead
}
struct headers_t { h_t h; }
struct meta_t { bit<16> first16; }
";
    let parser = r"
state start {
    meta.first16 = pkt.lookahead<bit<16>>();
    transition select(pkt.lookahead<bit<8>>()) {
        0xAA: skip_marker;
        default: parse_h;
    }
}
state skip_marker {
    pkt.advance(16);    // drop the 2-byte marker AA xx
    transition parse_h;
}
state parse_h {
    pkt.extract(hdr.h);
    transition accept;
}
";
    let ingress = r"
apply {
    hdr.h.peek = meta.first16;
    sm.egress_spec = 1;
}
";
    s.program(Program::new("lookahead_advance", "lookahead<T>() reads without consuming; advance(n) skips n bits",
                           decls, ingress)
        .parser(parser));
    let mut t = Stf::new("lookahead_advance");
    t.comment("marker AA55 is skipped and not re-emitted");
    io(&mut t, "AA55 12340000 CAFE", 1, "1234AA55 CAFE");
    t.comment("no marker");
    io(&mut t, "12340000 CAFE", 1, "12341234 CAFE");
    s.stf("lookahead_advance", t);
}

fn parser_errors(s: &mut Suite) {
    let decls = r"
header h_t {
    bit<8> kind;
    bit<8> code;
    bit<8> result;   // written by ingress from standard_metadata.parser_error
}
header body_t { bit<32> v; }
struct headers_t {
    h_t    h;
    body_t body;
}
struct meta_t { }

error { BadCode }
";
    let parser = r"
state start {
    pkt.extract(hdr.h);
    transition select(hdr.h.kind) {
        1: parse_body;
        2: check_code;
        3: accept;
        // no default: any other kind is NoMatch
    }
}
state parse_body {
    pkt.extract(hdr.body);
    transition accept;
}
state check_code {
    verify(hdr.h.code == 0x42, error.BadCode);
    transition accept;
}
";
    let ingress = r"
apply {
    if (sm.parser_error == error.NoError) {
        hdr.h.result = 0;
    } else if (sm.parser_error == error.PacketTooShort) {
        hdr.h.result = 1;
    } else if (sm.parser_error == error.NoMatch) {
        hdr.h.result = 2;
    } else if (sm.parser_error == error.BadCode) {
        hdr.h.result = 3;
    } else {
        hdr.h.result = 0xFF;
    }
    sm.egress_spec = 1;
}
";
    s.program(Program::new("parser_errors",
                           "parser errors reach ingress in standard_metadata.parser_error (v1model does not drop)",
                           decls, ingress)
        .parser(parser)
        .deparser("pkt.emit(hdr.h);\npkt.emit(hdr.body);"));
    let mut t = Stf::new("parser_errors: the packet continues to ingress with what was extracted before the error");
    t.comment("complete body: NoError");
    io(&mut t, "010000 11223344", 1, "010000 11223344");
    t.comment("body cut short: PacketTooShort, the 2 bytes stay as payload");
    io(&mut t, "010000 ABCD", 1, "010001 ABCD");
    t.comment("kind 4 matches no select case: NoMatch");
    io(&mut t, "040000 55", 1, "040002 55");
    t.comment("verify holds");
    io(&mut t, "024200", 1, "024200");
    t.comment("verify fails: the program's own error BadCode");
    io(&mut t, "024100", 1, "024103");
    t.comment("header h itself too short");
    io(&mut t, "0300", 1, "0300");
    s.stf("parser_errors", t);
}

/// The parser state `select_cases` reaches, as its select expressions decide (first match wins).
fn select_path(a: u128, b: u128, c: u128) -> u128 {
    if (a, b) == (1, 1) {
        1
    } else if a == 1 {
        2
    } else if a & 0xf0 == 0x10 && b == 2 {
        3
    } else if (0x20..=0x2f).contains(&a) {
        4
    } else if c & 0xff00 == 0x0800 {
        5
    } else if (0x1000..=0x10ff).contains(&c) {
        6
    } else {
        7
    }
}

fn select_cases(s: &mut Suite) {
    let decls = r"
header h_t {
    bit<8>  a;
    bit<8>  b;
    bit<16> c;
    bit<8>  path;    // which parser state was reached
}
struct headers_t { h_t h; }
struct meta_t { }
";
    let parser = r"
state start {
    pkt.extract(hdr.h);
    transition select(hdr.h.a, hdr.h.b) {
        (1, 1): p1;
        (1, _): p2;
        (8w0x10 &&& 8w0xF0, 2): p3;
        (0x20 .. 0x2F, default): p4;
        default: on_c;
    }
}
state on_c {
    transition select(hdr.h.c) {
        16w0x0800 &&& 16w0xFF00: p5;
        0x1000 .. 0x10FF: p6;
        default: p7;
    }
}
state p1 { hdr.h.path = 1; transition accept; }
state p2 { hdr.h.path = 2; transition accept; }
state p3 { hdr.h.path = 3; transition accept; }
state p4 { hdr.h.path = 4; transition accept; }
state p5 { hdr.h.path = 5; transition accept; }
state p6 { hdr.h.path = 6; transition accept; }
state p7 { hdr.h.path = 7; transition accept; }
";
    let ingress = r"
apply {
    sm.egress_spec = 1;
    if (sm.parser_error != error.NoError) {
        hdr.h.path = 0xEE;
    }
}
";
    s.program(Program::new("select_cases", "select: tuples, _ and default, masks (&&&), ranges (..), first match wins",
                           decls, ingress)
        .parser(parser));
    let mut t = Stf::new("select_cases");
    for (a, b, c) in [(1, 1, 0), (1, 7, 0), (0x15, 2, 0), (0x15, 3, 0x0800), (0x25, 9, 0), (0x2f, 0, 0),
                      (0x30, 0, 0x08ab), (0x30, 0, 0x1080), (0x30, 0, 0x10ff), (0x30, 0, 0x2000), (0x1f, 2, 0),
                      (0x20, 2, 0), (0x31, 1, 0xffff), (0x10, 2, 0x0800)] {
        let path = select_path(a, b, c);
        t.comment(format!("a={a:#x} b={b} c={c:#x} -> {path}"));
        t.packet(0, &h(&[(a, 8), (b, 8), (c, 16), (0, 8)]));
        t.expect(1, &h(&[(a, 8), (b, 8), (c, 16), (path, 8)]));
    }
    s.stf("select_cases", t);
}

fn value_set(s: &mut Suite) {
    let decls = r"
header h_t {
    bit<16> t;
    bit<8>  path;
}
struct headers_t { h_t h; }
struct meta_t { }
";
    let parser = r"
value_set<bit<16>>(4) special_types;

state start {
    pkt.extract(hdr.h);
    transition select(hdr.h.t) {
        special_types: in_set;
        0x0800: ipv4ish;
        default: accept;
    }
}
state in_set { hdr.h.path = 1; transition accept; }
state ipv4ish { hdr.h.path = 2; transition accept; }
";
    s.program(Program::new("value_set", "parser value sets (members added by the control plane)", decls,
                           "apply { sm.egress_spec = 1; }")
        .parser(parser));
    let mut t = Stf::new("value_set: members are added with pvs_add; the set is tried in select order");
    t.comment("empty set: nothing matches it");
    io(&mut t, "080000", 1, "080002");
    io(&mut t, "123400", 1, "123400");
    t.comment("after adding 0x1234 and 0x0800: both go to in_set (it comes first in the select)");
    t.raw("pvs_add special_types 0x1234");
    t.raw("pvs_add special_types 0x0800");
    io(&mut t, "123400", 1, "123401");
    io(&mut t, "080000", 1, "080001");
    io(&mut t, "123500", 1, "123500");
    s.stf("value_set", t);
}
