//! Match-action tables: match kinds, priorities, default actions, const entries,
//! hit/miss/action_run, action parameters, control-plane names.

use super::{Program, Stf, Suite};
use crate::packet::h;

pub(super) const ALL: &[fn(&mut Suite)] = &[table_exact_default, table_ternary, table_lpm, table_range_optional,
                                             const_entries, table_results, action_params, control_plane_names];

/// The body of the tests' single action: `set_out(v)` writes `hdr.h.res`.
const SET_OUT: &str = r"
action set_out(bit<8> v) {
    hdr.h.res = v;
}
";

/// The best entry among the matching ones: the largest `rank` (STF priority or prefix length) wins.
fn best<T: Copy>(entries: &[T], matches: impl Fn(&T) -> bool, rank: impl Fn(&T) -> u32) -> Option<T> {
    entries.iter().copied().filter(|e| matches(e)).max_by_key(|e| rank(e))
}

fn table_exact_default(s: &mut Suite) {
    let decls = r"
header h_t {
    bit<8> k;
    bit<8> res;
    bit<8> hit;
}
struct headers_t { h_t h; }
struct meta_t { }
";
    let ingress = format!("{SET_OUT}{}", r"action drop_it() {
    mark_to_drop(sm);
}
table t {
    key = { hdr.h.k: exact; }
    actions = { set_out; drop_it; NoAction; }
    default_action = set_out(0xDD);
}
apply {
    sm.egress_spec = 1;
    if (t.apply().hit) {
        hdr.h.hit = 1;
    }
}
");
    s.program(Program::new("table_exact_default", "exact match, the program's default action, setdefault at run time",
                           decls, &ingress));
    let mut t = Stf::new("table_exact_default");
    t.raw("add t hdr.h.k:1 set_out(v:0x11)");
    t.raw("add t hdr.h.k:3 drop_it()");
    t.comment("hit");
    t.packet(0, &h(&[(1, 8), (0, 16)]));
    t.expect(1, &h(&[(1, 8), (0x11, 8), (1, 8)]));
    t.comment("miss: the declared default action set_out(0xDD)");
    t.packet(0, &h(&[(2, 8), (0, 16)]));
    t.expect(1, &h(&[(2, 8), (0xdd, 8), (0, 8)]));
    t.comment("hit on drop_it: no output");
    t.packet(0, &h(&[(3, 8), (0, 16)]));
    t.comment("new default from the control plane");
    t.raw("setdefault t set_out(v:0x77)");
    t.packet(0, &h(&[(2, 8), (0, 16)]));
    t.expect(1, &h(&[(2, 8), (0x77, 8), (0, 8)]));
    t.raw("setdefault t NoAction()");
    t.packet(0, &h(&[(2, 8), (0, 16)]));
    t.expect(1, &h(&[(2, 8), (0, 8), (0, 8)]));
    s.stf("table_exact_default", t);
}

/// A table `t` with one key `KEY: KIND`, actions `set_out` and `NoAction`, default `NoAction()`.
fn single_key_ingress(key: &str) -> String {
    format!("{SET_OUT}table t {{
    key = {{ {key}; }}
    actions = {{ set_out; NoAction; }}
    default_action = NoAction();
}}
apply {{
    sm.egress_spec = 1;
    t.apply();
}}
")
}

fn table_ternary(s: &mut Suite) {
    let decls = r"
header h_t {
    bit<16> k;
    bit<8>  res;
}
struct headers_t { h_t h; }
struct meta_t { }
";
    let ingress = single_key_ingress("hdr.h.k: ternary");
    s.program(Program::new("table_ternary", "ternary match: masks and priorities", decls, &ingress));
    let mut t = Stf::new("table_ternary: in STF the larger priority wins");
    // (priority, value, mask, result)
    let entries: [(u32, u128, u128, u128); 4] =
        [(10, 0x1200, 0xff00, 1), (20, 0x1234, 0xffff, 2), (5, 0x0034, 0x00ff, 3), (1, 0, 0, 4)];
    t.raw("add t 10 hdr.h.k:0x12** set_out(v:1)");
    t.raw("add t 20 hdr.h.k:0x1234 set_out(v:2)");
    t.raw("add t 5 hdr.h.k:0x0034&&&0x00FF set_out(v:3)");
    t.raw("add t 1 hdr.h.k:0x**** set_out(v:4)");
    for k in [0x1234u128, 0x1299, 0x5634, 0x5678, 0x1334] {
        let Some(e) = best(&entries, |e| k & e.2 == e.1, |e| e.0) else { unreachable!("the catch-all matches") };
        t.comment(format!("k={k:#06x} -> {}", e.3));
        t.packet(0, &h(&[(k, 16), (0, 8)]));
        t.expect(1, &h(&[(k, 16), (e.3, 8)]));
    }
    s.stf("table_ternary", t);
}

/// Whether `a` lies in the prefix `v/len` of a 32-bit address.
fn lpm_match(a: u128, v: u128, len: u32) -> bool {
    let mask = ((1u128 << len) - 1) << (32 - len);
    a & mask == v & mask
}

fn table_lpm(s: &mut Suite) {
    let decls = r"
header h_t {
    bit<32> addr;
    bit<8>  res;
}
struct headers_t { h_t h; }
struct meta_t { }
";
    let ingress = single_key_ingress("hdr.h.addr: lpm");
    s.program(Program::new("table_lpm", "longest-prefix match, including /0 and /32", decls, &ingress));
    let mut t = Stf::new("table_lpm: the longest matching prefix wins, whatever the insertion order");
    let routes: [(u128, u32, u128); 6] = [(0x0a000000, 8, 1), (0x0a010100, 24, 3), (0x0a010000, 16, 2),
                                          (0x0a010101, 32, 4), (0x00000000, 0, 5), (0x0a020000, 16, 6)];
    for (v, l, o) in routes {
        if (v, l) == (0x0a020000, 16) {
            // One prefix written as a ternary-style wildcard, the STF spelling of /16.
            t.raw(format!("add t hdr.h.addr:0x0A02**** set_out(v:{o})"));
        } else {
            t.raw(format!("add t hdr.h.addr:0x{v:08X}/{l} set_out(v:{o})"));
        }
    }
    for a in [0x0a010101u128, 0x0a010102, 0x0a010202, 0x0a020304, 0x0a030000, 0x0b000000] {
        let Some(r) = best(&routes, |r| lpm_match(a, r.0, r.1), |r| r.1) else { unreachable!("/0 matches") };
        t.comment(format!("{}.{}.{}.{} -> {}", a >> 24, (a >> 16) & 255, (a >> 8) & 255, a & 255, r.2));
        t.packet(0, &h(&[(a, 32), (0, 8)]));
        t.expect(1, &h(&[(a, 32), (r.2, 8)]));
    }
    s.stf("table_lpm", t);
}

fn table_range_optional(s: &mut Suite) {
    let decls = r"
header h_t {
    bit<8> a;
    bit<8> b;
    bit<8> res;
}
struct headers_t { h_t h; }
struct meta_t { }
";
    let ingress = format!("{SET_OUT}{}", r"table t {
    key = {
        hdr.h.a: range;
        hdr.h.b: optional;
    }
    actions = { set_out; NoAction; }
    default_action = set_out(0xEE);
}
apply {
    sm.egress_spec = 1;
    t.apply();
}
");
    s.program(Program::new("table_range_optional", "v1model range and optional match kinds", decls, &ingress));
    let mut t = Stf::new("table_range_optional: ranges are inclusive; an omitted optional key is a wildcard");
    // (priority, low, high, optional b, result)
    let entries: [(u32, u128, u128, Option<u128>, u128); 3] =
        [(10, 0x10, 0x1f, Some(5), 1), (5, 0x00, 0xfe, None, 2), (20, 0x18, 0x18, Some(7), 3)];
    t.raw("add t 10 hdr.h.a:0x10->0x1F hdr.h.b:5 set_out(v:1)");
    t.raw("add t 5 hdr.h.a:0x00->0xFE set_out(v:2)");
    t.raw("add t 20 hdr.h.a:0x18->0x18 hdr.h.b:7 set_out(v:3)");
    for (a, b) in [(0x12u128, 5u128), (0x12, 6), (0x18, 7), (0x18, 5), (0x20, 5), (0x1f, 5), (0xff, 0)] {
        let o = best(&entries, |e| (e.1..=e.2).contains(&a) && e.3.is_none_or(|v| v == b), |e| e.0)
            .map_or(0xee, |e| e.4);
        t.comment(format!("a={a:#x} b={b} -> {o}"));
        t.packet(0, &h(&[(a, 8), (b, 8), (0, 8)]));
        t.expect(1, &h(&[(a, 8), (b, 8), (o, 8)]));
    }
    s.stf("table_range_optional", t);
}

/// `t_ternary`'s const entries in `const_entries`: the first listed match wins.
fn const_ternary(k: u128, j: u128) -> u128 {
    if k & 0xf0 == 0x10 && j == 1 {
        1
    } else if k == 0x1f {
        2
    } else if j == 1 {
        3
    } else {
        4
    }
}

fn const_entries(s: &mut Suite) {
    let decls = r"
header h_t {
    bit<8> k;
    bit<8> j;
    bit<8> out1;
    bit<8> out2;
}
struct headers_t { h_t h; }
struct meta_t { }
";
    let ingress = r"
action set_out1(bit<8> v) {
    hdr.h.out1 = v;
}
action set_out2(bit<8> v) {
    hdr.h.out2 = v;
}
table t_exact {
    key = { hdr.h.k: exact; }
    actions = { set_out1; }
    const entries = {
        1 : set_out1(0x11);
        2 : set_out1(0x22);
    }
    const default_action = set_out1(0xDD);
}
// Entries listed earlier win over later ones that also match.
table t_ternary {
    key = {
        hdr.h.k: ternary;
        hdr.h.j: ternary;
    }
    actions = { set_out2; NoAction; }
    const entries = {
        (0x10 &&& 0xF0, 1) : set_out2(1);
        (0x1F, _)          : set_out2(2);
        (_, 1)             : set_out2(3);
        (_, _)             : set_out2(4);
    }
    default_action = NoAction();
}
apply {
    sm.egress_spec = 1;
    t_exact.apply();
    t_ternary.apply();
}
";
    s.program(Program::new("const_entries",
                           "const entries (exact and ternary, first listed wins) and const default_action", decls,
                           ingress));
    let mut t = Stf::new("const_entries: no control-plane entries needed");
    for (k, j) in [(1u128, 0u128), (2, 1), (0x1f, 1), (0x1f, 2), (0x20, 1), (0x13, 1), (0x30, 0)] {
        let o1 = match k {
            1 => 0x11,
            2 => 0x22,
            _ => 0xdd,
        };
        t.comment(format!("k={k:#x} j={j}"));
        t.packet(0, &h(&[(k, 8), (j, 8), (0, 16)]));
        t.expect(1, &h(&[(k, 8), (j, 8), (o1, 8), (const_ternary(k, j), 8)]));
    }
    s.stf("const_entries", t);
}

fn table_results(s: &mut Suite) {
    let decls = r"
header h_t {
    bit<8> k;
    bit<8> x;      // each action adds to it
    bit<8> run;    // which switch case ran
    bit<8> hit;    // t_hit: 1 hit, 2 miss
    bit<8> miss;   // t_miss: 1 when it missed (even though its default action ran)
}
struct headers_t { h_t h; }
struct meta_t { }
";
    let ingress = r"
action a1() { hdr.h.x = hdr.h.x + 1; }
action a2() { hdr.h.x = hdr.h.x + 2; }
action a3() { hdr.h.x = hdr.h.x + 3; }
table t_run {
    key = { hdr.h.k: exact; }
    actions = { a1; a2; a3; NoAction; }
    default_action = NoAction();
}
table t_hit {
    key = { hdr.h.k: exact; }
    actions = { a1; NoAction; }
    default_action = NoAction();
}
table t_miss {
    key = { hdr.h.k: exact; }
    actions = { a2; a3; }
    default_action = a2();
}
apply {
    switch (t_run.apply().action_run) {
        a1:
        a2: { hdr.h.run = 12; }
        a3: { hdr.h.run = 3; }
        default: { hdr.h.run = 0xD0; }
    }
    if (t_hit.apply().hit) {
        hdr.h.hit = 1;
    } else {
        hdr.h.hit = 2;
    }
    bool missed = t_miss.apply().miss;
    hdr.h.miss = missed ? 8w1 : 8w0;
    sm.egress_spec = 1;
}
";
    s.program(Program::new("table_results", "apply().hit, .miss and switch on .action_run (with fall-through labels)",
                           decls, ingress));
    let mut t = Stf::new("table_results");
    t.raw("add t_run hdr.h.k:1 a1()");
    t.raw("add t_run hdr.h.k:2 a2()");
    t.raw("add t_run hdr.h.k:3 a3()");
    t.raw("add t_hit hdr.h.k:1 a1()");
    t.raw("add t_miss hdr.h.k:3 a3()");
    for (k, x, run, hit, miss) in [(1, 4, 12, 1, 1), (2, 4, 12, 2, 1), (3, 6, 3, 2, 0), (4, 2, 0xd0, 2, 1)] {
        t.comment(format!("k={k}"));
        t.packet(0, &h(&[(k, 8), (0x10, 8), (0, 24)]));
        t.expect(1, &h(&[(k, 8), (0x10 + x, 8), (run, 8), (hit, 8), (miss, 8)]));
    }
    s.stf("table_results", t);
}

fn action_params(s: &mut Suite) {
    let decls = r"
header h_t {
    bit<8> k;
    bit<8> acc;
    bit<8> o;
    bit<8> direct;
}
struct headers_t { h_t h; }
struct meta_t { }
";
    let ingress = r"
// Directional parameters come first and are bound where the action is listed;
// the directionless ones are filled in by the control plane.
action add_to(inout bit<8> target, bit<8> amount) {
    target = target + amount;
}
action copy_out(out bit<8> dst, in bit<8> src, bit<8> extra) {
    dst = src ^ extra;
}
table t_add {
    key = { hdr.h.k: exact; }
    actions = { add_to(hdr.h.acc); NoAction; }
    default_action = NoAction();
}
table t_copy {
    key = { hdr.h.k: exact; }
    actions = { copy_out(hdr.h.o, hdr.h.k); }
    default_action = copy_out(hdr.h.o, hdr.h.k, 0xFF);
}
apply {
    t_add.apply();
    t_copy.apply();
    add_to(hdr.h.direct, 5);    // an action called directly
    sm.egress_spec = 1;
}
";
    s.program(Program::new("action_params",
                           "action parameters: in/out/inout bound in the actions list, control-plane data", decls,
                           ingress));
    let mut t = Stf::new("action_params");
    t.raw("add t_add hdr.h.k:1 add_to(amount:10)");
    t.raw("add t_copy hdr.h.k:1 copy_out(extra:0x0F)");
    t.packet(0, &h(&[(1, 8), (5, 8), (0, 8), (2, 8)]));
    t.expect(1, &h(&[(1, 8), (15, 8), (1 ^ 0x0f, 8), (7, 8)]));
    t.packet(0, &h(&[(2, 8), (5, 8), (0, 8), (2, 8)]));
    t.expect(1, &h(&[(2, 8), (5, 8), (2 ^ 0xff, 8), (7, 8)]));
    s.stf("action_params", t);
}

fn control_plane_names(s: &mut Suite) {
    let decls = r"
header h_t {
    bit<8> k;
    bit<8> r1;     // from first.t
    bit<8> r2;     // from second.t
    bit<8> r3;     // from the table renamed with @name
    bit<8> r4;     // from the table keyed on validity and a stack element
}
header item_t { bit<8> v; }
struct headers_t {
    h_t       h;
    item_t[2] items;
    item_t    opt;    // present when k == 0xAA
}
struct meta_t { }

// One table type, two instances: control-plane names TestIngress.first.t and TestIngress.second.t.
control Lookup(in bit<8> k, inout bit<8> r) {
    action set(bit<8> v) { r = v; }
    table t {
        key = { k: exact; }
        actions = { set; NoAction; }
        default_action = NoAction();
    }
    apply { t.apply(); }
}
";
    let parser = r"
state start {
    pkt.extract(hdr.h);
    pkt.extract(hdr.items.next);
    pkt.extract(hdr.items.next);
    transition select(hdr.h.k) {
        0xAA: parse_opt;
        default: accept;
    }
}
state parse_opt {
    pkt.extract(hdr.opt);
    transition accept;
}
";
    let ingress = r#"
Lookup() first;
Lookup() second;

action set3(bit<8> v) { hdr.h.r3 = v; }
@name("renamed_table")
table original_name {
    key = { hdr.h.k: exact; }
    actions = { set3; NoAction; }
    default_action = NoAction();
}

action set4(bit<8> v) { hdr.h.r4 = v; }
table by_validity {
    key = {
        hdr.opt.isValid(): exact;
        hdr.items[1].v: exact;
    }
    actions = { set4; NoAction; }
    default_action = NoAction();
}

apply {
    first.apply(hdr.h.k, hdr.h.r1);
    second.apply(hdr.h.k, hdr.h.r2);
    original_name.apply();
    by_validity.apply();
    sm.egress_spec = 1;
}
"#;
    s.program(Program::new("control_plane_names",
                           "control-plane names: nested instances, @name, isValid() and stack-element keys", decls,
                           ingress)
        .parser(parser)
        .deparser("pkt.emit(hdr.h);\npkt.emit(hdr.items);\npkt.emit(hdr.opt);"));
    let mut t = Stf::new("control_plane_names");
    t.raw("add TestIngress.first.t k:1 TestIngress.first.set(v:0x11)");
    t.raw("add TestIngress.second.t k:1 TestIngress.second.set(v:0x22)");
    t.raw("add renamed_table hdr.h.k:1 set3(v:0x33)");
    t.raw("add by_validity $valid$:1 hdr.items$1.v:7 set4(v:0x44)");
    t.raw("add by_validity $valid$:0 hdr.items$1.v:7 set4(v:0x55)");
    t.packet(0, &h(&[(1, 8), (0, 32), (0, 8), (7, 8)]));
    t.expect(1, &h(&[(1, 8), (0x11, 8), (0x22, 8), (0x33, 8), (0x55, 8), (0, 8), (7, 8)]));
    t.packet(0, &h(&[(0xaa, 8), (0, 32), (0, 8), (7, 8), (9, 8)]));
    t.expect(1, &h(&[(0xaa, 8), (0, 8), (0, 8), (0, 8), (0x44, 8), (0, 8), (7, 8), (9, 8)]));
    s.stf("control_plane_names", t);
}
