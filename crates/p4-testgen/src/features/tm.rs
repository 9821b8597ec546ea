//! The v1model traffic manager: clone, resubmit, recirculate, multicast, truncate, drops,
//! instance_type and packet_length, plus digest, log_msg and assert.

use super::{Program, Stf, Suite};
use crate::packet::h;

pub(super) const ALL: &[fn(&mut Suite)] = &[clone, resubmit, recirculate, multicast, truncate, drops,
                                             digest_log_assert, clone_field_list, default_port];

// BMv2's instance_type values.
const NORMAL: u128 = 0;
const I2E_CLONE: u128 = 1;
const E2E_CLONE: u128 = 2;
const RECIRC: u128 = 4;
const REPLICATION: u128 = 5;
const RESUBMIT: u128 = 6;

fn clone(s: &mut Suite) {
    let decls = r"
header h_t {
    bit<8> op;      // 1: clone I2E to session 5; 2: clone E2E to session 6
    bit<8> itype;   // egress writes instance_type
    bit<8> eport;   // egress writes egress_port
    bit<8> mark;    // ingress writes 0x11 (the I2E clone does not see it)
}
struct headers_t { h_t h; }
struct meta_t { }
";
    let ingress = r"
apply {
    if (hdr.h.op == 1) {
        clone(CloneType.I2E, 5);
    }
    hdr.h.mark = 0x11;
    sm.egress_spec = 1;
}
";
    let egress = r"
apply {
    hdr.h.itype = (bit<8>)sm.instance_type;
    hdr.h.eport = (bit<8>)sm.egress_port;
    if (hdr.h.op == 2 && sm.instance_type == 0) {
        clone(CloneType.E2E, 6);
    }
}
";
    s.program(Program::new("clone",
                           "clone I2E (copy of the packet as it entered ingress) and E2E (copy as egress left it)",
                           decls, ingress)
        .egress(egress));
    let mut t = Stf::new("clone: instance_type 1 for an I2E clone, 2 for an E2E clone");
    t.raw("mirroring_add 5 3");
    t.raw("mirroring_add 6 4");
    t.comment("I2E: the original to port 1, the clone (unmodified by ingress) to port 3");
    t.packet(0, &h(&[(1, 8), (0, 24)]));
    t.expect(1, &h(&[(1, 8), (NORMAL, 8), (1, 8), (0x11, 8)]));
    t.expect(3, &h(&[(1, 8), (I2E_CLONE, 8), (3, 8), (0, 8)]));
    t.comment("E2E: the clone carries egress's changes, then runs egress again on port 4");
    t.packet(0, &h(&[(2, 8), (0, 24)]));
    t.expect(1, &h(&[(2, 8), (NORMAL, 8), (1, 8), (0x11, 8)]));
    t.expect(4, &h(&[(2, 8), (E2E_CLONE, 8), (4, 8), (0x11, 8)]));
    t.comment("no clone");
    t.packet(0, &h(&[(0, 8), (0, 24)]));
    t.expect(1, &h(&[(0, 8), (NORMAL, 8), (1, 8), (0x11, 8)]));
    s.stf("clone", t);
}

fn resubmit(s: &mut Suite) {
    let decls = r"
header h_t {
    bit<8> itype;
    bit<8> kept;     // meta.kept after resubmit (in field list 1)
    bit<8> lost;     // meta.lost after resubmit (not in the field list: 0)
    bit<8> mark;     // written on the first pass only: resubmit discards it
}
struct headers_t { h_t h; }
struct meta_t {
    @field_list(1)
    bit<8> kept;
    bit<8> lost;
}
";
    let ingress = r"
apply {
    sm.egress_spec = 1;
    if (sm.instance_type == 0) {
        meta.kept = 0x77;
        meta.lost = 0x99;
        hdr.h.mark = 0x11;
        resubmit_preserving_field_list(1);
    } else {
        hdr.h.itype = (bit<8>)sm.instance_type;
        hdr.h.kept = meta.kept;
        hdr.h.lost = meta.lost;
    }
}
";
    s.program(Program::new("resubmit", "resubmit_preserving_field_list: ingress runs again on the original packet",
                           decls, ingress));
    let mut t = Stf::new("resubmit: only the second pass leaves the switch; instance_type 6");
    t.packet(0, &h(&[(0, 32), (0xab, 8)]));
    t.expect(1, &h(&[(RESUBMIT, 8), (0x77, 8), (0, 8), (0, 8), (0xab, 8)]));
    s.stf("resubmit", t);
}

fn recirculate(s: &mut Suite) {
    let decls = r"
header h_t {
    bit<8> pass;     // incremented by every ingress pass
    bit<8> itype;    // instance_type seen by ingress
    bit<8> kept;     // meta.kept as ingress sees it
}
struct headers_t { h_t h; }
struct meta_t {
    @field_list(1)
    bit<8> kept;
}
";
    let ingress = r"
apply {
    hdr.h.pass = hdr.h.pass + 1;
    hdr.h.itype = (bit<8>)sm.instance_type;
    hdr.h.kept = meta.kept;
    sm.egress_spec = 1;
}
";
    let egress = r"
apply {
    if (hdr.h.pass == 1) {
        meta.kept = 0x42;
        recirculate_preserving_field_list(1);
    }
}
";
    s.program(Program::new("recirculate", "recirculate_preserving_field_list: the deparsed packet is parsed again",
                           decls, ingress)
        .egress(egress));
    let mut t = Stf::new("recirculate: the second pass sees the first pass's changes and instance_type 4");
    t.packet(0, &h(&[(0, 24), (0xcd, 8)]));
    t.expect(1, &h(&[(2, 8), (RECIRC, 8), (0x42, 8), (0xcd, 8)]));
    s.stf("recirculate", t);
}

fn multicast(s: &mut Suite) {
    let decls = r"
header h_t {
    bit<8> op;       // 1: multicast to group grp; 2: same, then mark_to_drop
    bit<8> grp;
    bit<8> rid;      // egress writes egress_rid
    bit<8> itype;    // egress writes instance_type
    bit<8> eport;    // egress writes egress_port
}
struct headers_t { h_t h; }
struct meta_t { }
";
    let ingress = r"
apply {
    sm.egress_spec = 1;
    if (hdr.h.op != 0) {
        sm.mcast_grp = (bit<16>)hdr.h.grp;
    }
    if (hdr.h.op == 2) {
        mark_to_drop(sm);    // also clears mcast_grp
    }
}
";
    let egress = r"
apply {
    hdr.h.rid = (bit<8>)sm.egress_rid;
    hdr.h.itype = (bit<8>)sm.instance_type;
    hdr.h.eport = (bit<8>)sm.egress_port;
}
";
    s.program(Program::new("multicast", "multicast groups, nodes with replication ids, instance_type 5 for replicas",
                           decls, ingress)
        .egress(egress));
    let mut t = Stf::new("multicast: group 1 = node 0 (rid 10: ports 2, 3) + node 1 (rid 20: port 4); group 2 = node 2");
    for line in ["mc_mgrp_create 1", "mc_node_create 10 2 3", "mc_node_create 20 4", "mc_node_associate 1 0",
                 "mc_node_associate 1 1", "mc_mgrp_create 2", "mc_node_create 30 5", "mc_node_associate 2 2"] {
        t.raw(line);
    }
    // A replica of (op, grp) with replication id `rid` leaving on `port`.
    let replica = |op, grp, rid, port| h(&[(op, 8), (grp, 8), (rid, 8), (REPLICATION, 8), (port, 8)]);
    t.comment("group 1: three copies");
    t.packet(0, &h(&[(1, 8), (1, 8), (0, 24)]));
    t.expect(2, &replica(1, 1, 10, 2));
    t.expect(3, &replica(1, 1, 10, 3));
    t.expect(4, &replica(1, 1, 20, 4));
    t.comment("group 2: one copy");
    t.packet(0, &h(&[(1, 8), (2, 8), (0, 24)]));
    t.expect(5, &replica(1, 2, 30, 5));
    t.comment("mark_to_drop after setting mcast_grp: nothing leaves");
    t.packet(0, &h(&[(2, 8), (1, 8), (0, 24)]));
    t.comment("no multicast: unicast to port 1");
    t.packet(0, &h(&[(0, 8), (1, 8), (0, 24)]));
    t.expect(1, &h(&[(0, 8), (1, 8), (0, 8), (NORMAL, 8), (1, 8)]));
    s.stf("multicast", t);
}

fn truncate(s: &mut Suite) {
    let decls = r"
header h_t {
    bit<8> len;     // truncate to this many bytes (0: do not truncate)
    bit<8> mark;
}
struct headers_t { h_t h; }
struct meta_t { }
";
    let ingress = r"
apply {
    hdr.h.mark = 0x5A;
    if (hdr.h.len != 0) {
        truncate((bit<32>)hdr.h.len);
    }
    sm.egress_spec = 1;
}
";
    s.program(Program::new("truncate", "truncate(n): the packet leaves cut to n bytes", decls, ingress));
    let mut t = Stf::new("truncate");
    let payload: Vec<u8> = (0x10..0x18).collect();
    let with = |len, mark, payload: &[u8]| [h(&[(len, 8), (mark, 8)]), payload.to_vec()].concat();
    t.comment("cut to 6 bytes: the 2-byte header (modified) and 4 payload bytes");
    t.packet(0, &with(6, 0, &payload));
    t.expect(1, &with(6, 0x5a, &payload[..4]));
    t.comment("a length beyond the packet changes nothing");
    t.packet(0, &with(100, 0, &payload));
    t.expect(1, &with(100, 0x5a, &payload));
    t.packet(0, &with(0, 0, &payload));
    t.expect(1, &with(0, 0x5a, &payload));
    s.stf("truncate", t);
}

fn drops(s: &mut Suite) {
    let decls = r"
header h_t {
    bit<8>  op;
    bit<32> plen;    // standard_metadata.packet_length
}
struct headers_t { h_t h; }
struct meta_t { }
";
    let ingress = r"
apply {
    hdr.h.plen = sm.packet_length;
    sm.egress_spec = 1;
    if (hdr.h.op == 1) {
        mark_to_drop(sm);
    } else if (hdr.h.op == 2) {
        sm.egress_spec = 511;       // the drop port, without mark_to_drop
    } else if (hdr.h.op == 4) {
        mark_to_drop(sm);
        sm.egress_spec = 2;         // a later assignment undoes the drop
    }
}
";
    let egress = r"
apply {
    if (hdr.h.op == 3) {
        mark_to_drop(sm);
    }
}
";
    s.program(Program::new("drops", "dropping: mark_to_drop in ingress and egress, egress_spec 511; packet_length",
                           decls, ingress)
        .egress(egress));
    let mut t = Stf::new("drops");
    t.comment("forwarded; packet_length counts every byte received");
    t.packet(0, &h(&[(0, 8), (0, 32)]));
    t.expect(1, &h(&[(0, 8), (5, 32)]));
    t.packet(0, &h(&[(0, 8), (0, 32), (0, 160)]));
    t.expect(1, &h(&[(0, 8), (25, 32), (0, 160)]));
    t.comment("ops 1, 2 and 3 drop");
    for op in [1, 2, 3] {
        t.packet(0, &h(&[(op, 8), (0, 32)]));
    }
    t.comment("op 4: egress_spec reassigned after mark_to_drop");
    t.packet(0, &h(&[(4, 8), (0, 32)]));
    t.expect(2, &h(&[(4, 8), (5, 32)]));
    s.stf("drops", t);
}

fn digest_log_assert(s: &mut Suite) {
    let decls = r"
header h_t {
    bit<8>  a;
    bit<16> b;
}
struct headers_t { h_t h; }
struct meta_t { }

struct learn_t {
    bit<8>  a;
    bit<9>  port;
}
";
    let ingress = r#"
apply {
    digest<learn_t>(1, { hdr.h.a, sm.ingress_port });
    log_msg("plain message");
    log_msg("a={} b={}", { hdr.h.a, hdr.h.b });
    assume(hdr.h.b != 0xFFFF);
    assert(hdr.h.a != 0xFF);
    hdr.h.b = hdr.h.b + 1;
    sm.egress_spec = 1;
}
"#;
    s.program(Program::new("digest_log_assert",
                           "digest, log_msg and assert/assume do not disturb forwarding; a failed assert drops the packet",
                           decls, ingress));
    let mut t = Stf::new("digest_log_assert");
    t.packet(3, &h(&[(1, 8), (0x10, 16)]));
    t.expect(1, &h(&[(1, 8), (0x11, 16)]));
    t.comment("assert fails: the packet is dropped");
    t.packet(3, &h(&[(0xff, 8), (0x10, 16)]));
    t.comment("assume fails: likewise");
    t.packet(3, &h(&[(2, 8), (0xffff, 16)]));
    s.stf("digest_log_assert", t);
}

fn clone_field_list(s: &mut Suite) {
    let decls = r"
header h_t {
    bit<8> itype;
    bit<8> kept;     // egress copies meta.kept here
    bit<8> lost;     // egress copies meta.lost here
}
struct headers_t { h_t h; }
struct meta_t {
    @field_list(1)
    bit<8> kept;
    bit<8> lost;
}
";
    let ingress = r"
apply {
    meta.kept = 0x77;
    meta.lost = 0x99;
    clone_preserving_field_list(CloneType.I2E, 7, 1);
    sm.egress_spec = 1;
}
";
    let egress = r"
apply {
    hdr.h.itype = (bit<8>)sm.instance_type;
    hdr.h.kept = meta.kept;
    hdr.h.lost = meta.lost;
}
";
    s.program(Program::new("clone_field_list",
                           "clone_preserving_field_list keeps only the listed metadata; a clone session can point at \
                            a multicast group (mirroring_add_mc)",
                           decls, ingress)
        .egress(egress));
    let mut t = Stf::new("clone_field_list: the original keeps all its metadata; each clone only the @field_list(1) field");
    for line in ["mc_mgrp_create 3", "mc_node_create 0 4 5", "mc_node_associate 3 0", "mirroring_add_mc 7 3"] {
        t.raw(line);
    }
    t.packet(0, &h(&[(0, 24)]));
    t.expect(1, &h(&[(NORMAL, 8), (0x77, 8), (0x99, 8)]));
    t.expect(4, &h(&[(I2E_CLONE, 8), (0x77, 8), (0, 8)]));
    t.expect(5, &h(&[(I2E_CLONE, 8), (0x77, 8), (0, 8)]));
    s.stf("clone_field_list", t);
}

fn default_port(s: &mut Suite) {
    let decls = r"
header h_t { bit<8> a; }
struct headers_t { h_t h; }
struct meta_t { }
";
    let ingress = r"
apply {
    hdr.h.a = hdr.h.a + 1;    // egress_spec is never assigned: the packet goes to port 0
}
";
    s.program(Program::new("default_port", "egress_spec starts at 0: a packet nobody steers leaves on port 0", decls,
                           ingress));
    let mut t = Stf::new("default_port");
    t.packet(3, &h(&[(7, 8)]));
    t.expect(0, &h(&[(8, 8)]));
    s.stf("default_port", t);
}
