//! More features: wide arithmetic, exit from nested controls, byte meters, random with a one-value
//! range, parser-local state and errors raised inside sub-parsers, recirculation of a packet that
//! grew, traffic-manager combinations, mixed key kinds and control-plane updates between packets.

use super::{Program, Stf, Suite};
use crate::packet::{h, hx, wrap_signed};

pub(super) const ALL: &[fn(&mut Suite)] = &[wide_arith, exit_nested, meter_bytes, random_fixed, parser_state,
                                             recirculate_grow, tm_combinations, table_mixed_keys,
                                             control_plane_updates];

/// The low `w` bits set (w <= 128).
fn mask(w: u32) -> u128 {
    if w >= 128 { u128::MAX } else { (1u128 << w) - 1 }
}

fn wide_arith(s: &mut Suite) {
    let decls = r"
header h_t {
    bit<128> x;
    bit<128> y;
    bit<128> sum;     // carries across every 64-bit boundary
    bit<128> diff;
    bit<128> shl;     // x << 68
    bit<128> shr;     // x >> 68
    bit<65>  odd;     // (bit<65>)x + 1 wraps at 2^65
    int<64>  smin;    // -(int<64>)y[63:0] (negating the minimum wraps to itself)
    bit<7>   pad;
}
struct headers_t { h_t h; }
struct meta_t { }
";
    let ingress = r"
apply {
    hdr.h.sum = hdr.h.x + hdr.h.y;
    hdr.h.diff = hdr.h.x - hdr.h.y;
    hdr.h.shl = hdr.h.x << 68;
    hdr.h.shr = hdr.h.x >> 68;
    hdr.h.odd = (bit<65>)hdr.h.x + 1;
    hdr.h.smin = -(int<64>)hdr.h.y[63:0];
    sm.egress_spec = 1;
}
";
    s.program(Program::new("wide_arith", "arithmetic on fields wider than 64 bits (bit<128>, bit<65>, int<64>)", decls,
                           ingress));
    let mut t = Stf::new("wide_arith");
    for (x, y) in [(u128::MAX, 1u128), (mask(64), 0x8000000000000000), (0x0123456789ABCDEF_FEDCBA9876543210, 5)] {
        let inp = h(&[(x, 128), (y, 128), (0, 128 * 4 + 65 + 64 + 7)]);
        let smin = wrap_signed(-wrap_signed((y & mask(64)) as i128, 64), 64);
        let out = h(&[(x, 128), (y, 128), (x.wrapping_add(y), 128), (x.wrapping_sub(y), 128), (x << 68, 128),
                      (x >> 68, 128), (((x & mask(65)) + 1) & mask(65), 65), (smin as u128, 64), (0, 7)]);
        t.comment(format!("x={x:#x} y={y:#x}"));
        t.packet(0, &inp);
        t.expect(1, &out);
    }
    s.stf("wide_arith", t);
}

fn exit_nested(s: &mut Suite) {
    let decls = r"
header h_t {
    bit<8> k;
    bit<8> inner;     // written by the sub-control before it exits or returns
    bit<8> outer;     // written by ingress after the sub-control: skipped by exit
}
struct headers_t { h_t h; }
struct meta_t { }

control Stopper(inout h_t hh) {
    apply {
        hh.inner = 1;
        if (hh.k == 1) {
            exit;     // ends ingress as a whole, not just Stopper
        }
        if (hh.k == 2) {
            return;   // ends only Stopper
        }
        hh.inner = 2;
    }
}
";
    let ingress = r"
Stopper() stopper;
apply {
    sm.egress_spec = 1;
    stopper.apply(hdr.h);
    hdr.h.outer = 1;
}
";
    s.program(Program::new("exit_nested",
                           "exit in a sub-control ends the whole top-level control; return ends only the sub-control",
                           decls, ingress));
    let mut t = Stf::new("exit_nested: inout arguments are copied back even when exit ends the call");
    for (k, inner, outer) in [(0, 2, 1), (1, 1, 0), (2, 1, 1)] {
        t.packet(0, &h(&[(k, 8), (0, 16)]));
        t.expect(1, &h(&[(k, 8), (inner, 8), (outer, 8)]));
    }
    s.stf("exit_nested", t);
}

fn meter_bytes(s: &mut Suite) {
    let decls = r"
header h_t {
    bit<8> color;
}
struct headers_t { h_t h; }
struct meta_t { }
";
    let ingress = r"
meter(2, MeterType.bytes) m;
apply {
    m.execute_meter(32w1, hdr.h.color);
    sm.egress_spec = 1;
}
";
    s.program(Program::new("meter_bytes", "byte meters: each packet takes its length in tokens; meter_array_set_rates",
                           decls, ingress));
    let mut t = Stf::new("meter_bytes: committed burst 100 bytes, peak burst 200 bytes, negligible refill; 60-byte packets");
    t.raw("meter_array_set_rates m 0.0000001:100 0.0000001:200");
    // Tokens (c, p): (100, 200) -> green (40, 140) -> yellow (40, 80) -> yellow (40, 20) -> red.
    for color in [0, 1, 1, 2, 2] {
        t.packet(0, &h(&[(0xff, 8), (0, 59 * 8)]));
        t.expect(1, &h(&[(color, 8), (0, 59 * 8)]));
    }
    s.stf("meter_bytes", t);
}

fn random_fixed(s: &mut Suite) {
    let decls = r"
header h_t {
    bit<8>  lo;
    bit<16> r1;     // random(5, 5): always 5
    bit<8>  r2;     // random(lo, lo): always lo
}
struct headers_t { h_t h; }
struct meta_t { }
";
    let ingress = r"
apply {
    random(hdr.h.r1, 16w5, 16w5);
    random(hdr.h.r2, hdr.h.lo, hdr.h.lo);
    sm.egress_spec = 1;
}
";
    s.program(Program::new("random_fixed", "random() over a one-value range (run-time bounds too)", decls, ingress));
    let mut t = Stf::new("random_fixed");
    for lo in [0, 9, 255] {
        t.packet(0, &h(&[(lo, 8), (0xffff, 16), (0, 8)]));
        t.expect(1, &h(&[(lo, 8), (5, 16), (lo, 8)]));
    }
    s.stf("random_fixed", t);
}

fn parser_state(s: &mut Suite) {
    let decls = r"
header h_t {
    bit<8> count;      // how many items follow
    bit<8> seen;       // written by ingress from meta.seen
    bit<8> result;     // 0 ok, 1 the sub-parser's verify failed, 2 other error
}
header item_t { bit<8> v; }
struct headers_t {
    h_t       h;
    item_t[3] items;
}
struct meta_t { bit<8> seen; }
error { ItemZero }

// Extracts one item and refuses a zero: its error ends the caller's parse too.
parser ItemParser(packet_in pkt, out item_t item) {
    state start {
        pkt.extract(item);
        verify(item.v != 0, error.ItemZero);
        transition accept;
    }
}
";
    let parser = r"
ItemParser() item_parser;
bit<8> left;

state start {
    pkt.extract(hdr.h);
    left = hdr.h.count;
    meta.seen = 0;
    transition select(left) {
        0: accept;
        default: first;
    }
}
state first {
    pkt.extract(hdr.items[0]);     // a constant index, not .next
    left = left - 1;
    meta.seen = meta.seen + 1;
    transition select(left) {
        0: accept;
        default: rest;
    }
}
state rest {
    item_parser.apply(pkt, hdr.items[1]);
    meta.seen = meta.seen + 1;
    transition accept;
}
";
    let ingress = r"
apply {
    hdr.h.seen = meta.seen;
    if (sm.parser_error == error.ItemZero) {
        hdr.h.result = 1;
    } else if (sm.parser_error != error.NoError) {
        hdr.h.result = 2;
    }
    sm.egress_spec = 1;
}
";
    s.program(Program::new("parser_state", "parser-local variables, constant-index extract, errors raised in a sub-parser",
                           decls, ingress)
        .parser(parser)
        .deparser("pkt.emit(hdr.h);\npkt.emit(hdr.items);"));
    let mut t = Stf::new("parser_state");
    t.comment("two items: both parsed");
    t.packet(0, &hx("020000 0506"));
    t.expect(1, &hx("020200 0506"));
    t.comment("one item");
    t.packet(0, &hx("010000 05 FF"));
    t.expect(1, &hx("010100 05 FF"));
    t.comment("the second item is 0: ItemZero from the sub-parser; seen counts only the first state");
    t.packet(0, &hx("020000 0500"));
    t.expect(1, &hx("020101 0500"));
    s.stf("parser_state", t);
}

fn recirculate_grow(s: &mut Suite) {
    let decls = r"
header h_t {
    bit<8> passes;
}
header tag_t {
    bit<8> t;
}
struct headers_t {
    h_t   h;
    tag_t tag;
}
struct meta_t { }
";
    let parser = r"
state start {
    pkt.extract(hdr.h);
    transition select(hdr.h.passes) {
        0: accept;
        default: parse_tag;
    }
}
state parse_tag {
    pkt.extract(hdr.tag);
    transition accept;
}
";
    let ingress = r"
apply {
    sm.egress_spec = 1;
    if (!hdr.tag.isValid()) {
        hdr.tag.setValid();     // the packet grows by one byte
        hdr.tag.t = 0x70;
    }
    hdr.tag.t = hdr.tag.t + 1;
    hdr.h.passes = hdr.h.passes + 1;
}
";
    let egress = r"
apply {
    if (hdr.h.passes < 3) {
        recirculate_preserving_field_list(0);
    }
}
";
    s.program(Program::new("recirculate_grow", "a recirculated packet is re-parsed with the headers the last pass added",
                           decls, ingress)
        .parser(parser)
        .egress(egress)
        .deparser("pkt.emit(hdr.h);\npkt.emit(hdr.tag);"));
    let mut t = Stf::new("recirculate_grow: three passes; the first adds a tag, the others find it in the parser");
    t.packet(0, &hx("00 AB"));
    t.expect(1, &hx("03 73 AB"));
    s.stf("recirculate_grow", t);
}

fn tm_combinations(s: &mut Suite) {
    let decls = r"
header h_t {
    bit<8> op;       // 1: resubmit + clone; 2: multicast + clone
    bit<8> pass;     // ingress pass count (resubmit)
    bit<8> itype;    // egress writes instance_type
    bit<8> eport;    // egress writes egress_port
}
struct headers_t { h_t h; }
struct meta_t {
    @field_list(1)
    bit<8> pass;
}
";
    let ingress = r"
apply {
    sm.egress_spec = 1;
    meta.pass = meta.pass + 1;
    hdr.h.pass = meta.pass;
    if (hdr.h.op == 1 && sm.instance_type == 0) {
        clone(CloneType.I2E, 8);
        resubmit_preserving_field_list(1);
    } else if (hdr.h.op == 2) {
        clone(CloneType.I2E, 8);
        sm.mcast_grp = 4;
    }
}
";
    let egress = r"
apply {
    hdr.h.itype = (bit<8>)sm.instance_type;
    hdr.h.eport = (bit<8>)sm.egress_port;
}
";
    s.program(Program::new("tm_combinations", "clone together with resubmit, and clone together with multicast", decls,
                           ingress)
        .egress(egress));
    let mut t = Stf::new("tm_combinations: the clone is taken as well as the resubmit / the replicas");
    for line in ["mirroring_add 8 7", "mc_mgrp_create 4", "mc_node_create 3 2 3", "mc_node_associate 4 0"] {
        t.raw(line);
    }
    let fields = |op, pass, itype, eport| h(&[(op, 8), (pass, 8), (itype, 8), (eport, 8)]);
    t.comment("resubmit + clone: the clone (original bytes) on port 7; the resubmitted pass (pass 2) on port 1");
    t.packet(0, &h(&[(1, 8), (0, 24)]));
    t.expect(7, &fields(1, 0, 1, 7));
    t.expect(1, &fields(1, 2, 6, 1));
    t.comment("multicast + clone: replicas on ports 2 and 3, the clone on port 7");
    t.packet(0, &h(&[(2, 8), (0, 24)]));
    t.expect(2, &fields(2, 1, 5, 2));
    t.expect(3, &fields(2, 1, 5, 3));
    t.expect(7, &fields(2, 0, 1, 7));
    s.stf("tm_combinations", t);
}

fn table_mixed_keys(s: &mut Suite) {
    let decls = r"
header h_t {
    bit<8>  vrf;
    bit<32> dst;
    bit<16> port;
    bit<8>  res;
}
struct headers_t { h_t h; }
struct meta_t { }
";
    let ingress = r"
action set(bit<8> v) { hdr.h.res = v; }
// exact + lpm: the longest prefix among entries whose exact part matches.
table routes {
    key = {
        hdr.h.vrf: exact;
        hdr.h.dst: lpm;
    }
    actions = { set; NoAction; }
    default_action = set(0xEE);
}
// Ranges and masks in const entries; the first listed match wins.
table ports {
    key = {
        hdr.h.port: range;
        hdr.h.vrf: ternary;
    }
    actions = { set; NoAction; }
    const entries = {
        (0 .. 1023, 1)              : set(0x10);
        (1024 .. 0xFFFF, 0x0 &&& 0x0) : set(0x20);
        (80 .. 80, _)               : set(0x30);
    }
    default_action = NoAction();
}
apply {
    if (hdr.h.port == 0) {
        routes.apply();
    } else {
        ports.apply();
    }
    sm.egress_spec = 1;
}
";
    s.program(Program::new("table_mixed_keys", "exact+lpm keys, and range+ternary keys in const entries", decls,
                           ingress));
    let mut t = Stf::new("table_mixed_keys");
    for line in ["add routes hdr.h.vrf:1 hdr.h.dst:0x0A000000/8 set(v:1)",
                 "add routes hdr.h.vrf:1 hdr.h.dst:0x0A010000/16 set(v:2)",
                 "add routes hdr.h.vrf:2 hdr.h.dst:0x0A010100/24 set(v:3)",
                 "add routes hdr.h.vrf:2 hdr.h.dst:0x00000000/0 set(v:4)"] {
        t.raw(line);
    }
    for (vrf, dst, port, res) in [(1, 0x0a010101, 0, 2), (1, 0x0a020202, 0, 1), (2, 0x0a010101, 0, 3),
                                  (2, 0x0a010201, 0, 4), (3, 0x0a010101, 0, 0xee), (1, 0, 80, 0x10),
                                  (2, 0, 80, 0x30), (2, 0, 5000, 0x20), (2, 0, 81, 0)] {
        t.packet(0, &h(&[(vrf, 8), (dst, 32), (port, 16), (0, 8)]));
        t.expect(1, &h(&[(vrf, 8), (dst, 32), (port, 16), (res, 8)]));
    }
    s.stf("table_mixed_keys", t);
}

/// One `control_plane_updates` packet for key `k`, multicast group `grp` and clone flag, and the
/// copies expected as (port, res) pairs.
fn update_packet(t: &mut Stf, k: u128, grp: u128, clone: u128, outs: &[(u32, u128)]) {
    t.packet(0, &h(&[(k, 8), (0, 8), (grp, 8), (clone, 8)]));
    for &(port, res) in outs {
        t.expect(port, &h(&[(k, 8), (res, 8), (grp, 8), (clone, 8)]));
    }
}

fn control_plane_updates(s: &mut Suite) {
    let decls = r"
header h_t {
    bit<8> k;
    bit<8> res;
    bit<8> grp;      // nonzero: multicast to this group
    bit<8> do_clone;
}
struct headers_t { h_t h; }
struct meta_t { }
";
    let ingress = r"
counter(2, CounterType.packets) c;
action set(bit<8> v) { hdr.h.res = v; }
table t {
    key = { hdr.h.k: exact; }
    actions = { set; NoAction; }
    default_action = NoAction();
}
apply {
    c.count(0);
    t.apply();
    sm.egress_spec = 1;
    if (hdr.h.grp != 0) {
        sm.mcast_grp = (bit<16>)hdr.h.grp;
    }
    if (hdr.h.do_clone == 1) {
        clone(CloneType.I2E, 2);
    }
}
";
    s.program(Program::new("control_plane_updates",
                           "control-plane changes between packets: remove all, multicast node update/dissociate, \
                            mirroring_delete, counter_write/reset",
                           decls, ingress));
    let mut t = Stf::new("control_plane_updates");
    for line in ["add t hdr.h.k:1 set(v:0x11)", "mc_mgrp_create 1", "mc_node_create 0 2", "mc_node_associate 1 0",
                 "mirroring_add 2 5"] {
        t.raw(line);
    }
    t.comment("entry hits; group 1 = port 2; clone to port 5");
    update_packet(&mut t, 1, 1, 1, &[(2, 0x11), (5, 0)]);
    t.comment("after `remove all` the entry is gone");
    t.raw("remove all");
    update_packet(&mut t, 1, 0, 0, &[(1, 0)]);
    t.comment("the node now replicates to ports 3 and 4");
    t.raw("mc_node_update 0 3 4");
    update_packet(&mut t, 1, 1, 0, &[(3, 0), (4, 0)]);
    t.comment("node dissociated: the group is empty, nothing leaves");
    t.raw("mc_node_dissociate 1 0");
    update_packet(&mut t, 1, 1, 0, &[]);
    t.comment("clone session deleted: no clone, the original still goes out");
    t.raw("mirroring_delete 2");
    update_packet(&mut t, 1, 0, 1, &[(1, 0)]);
    t.raw("check_counter c(0) packets == 5");
    t.raw("counter_write c 0 100 0");
    update_packet(&mut t, 1, 0, 0, &[(1, 0)]);
    t.raw("check_counter c(0) packets == 101");
    t.raw("counter_reset c");
    t.raw("check_counter c(0) packets == 0");
    s.stf("control_plane_updates", t);
}
