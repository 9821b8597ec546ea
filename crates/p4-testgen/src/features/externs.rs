//! v1model externs: registers, counters, meters, hash, checksums.

use super::{Program, Stf, Suite};
use crate::checksum::{crc16_arc, crc32_ieee, csum16, xor16};
use crate::packet::{h, hx};

pub(super) const ALL: &[fn(&mut Suite)] = &[registers, counters, meters, hashes, checksums, checksum_payload_verify];

fn registers(s: &mut Suite) {
    let decls = r"
header h_t {
    bit<8>  idx;
    bit<32> add;
    bit<32> old;    // the cell before this packet
    bit<32> new;    // the cell after this packet
}
struct headers_t { h_t h; }
struct meta_t { }
";
    let ingress = r"
register<bit<32>>(8) r;

apply {
    bit<32> v;
    r.read(v, (bit<32>)hdr.h.idx);
    hdr.h.old = v;
    v = v + hdr.h.add;
    r.write((bit<32>)hdr.h.idx, v);
    hdr.h.new = v;
    sm.egress_spec = 1;
}
";
    s.program(Program::new("registers",
                           "register read/write keeps state across packets; control-plane read/write/reset", decls,
                           ingress));
    let mut t = Stf::new("registers: cells start at 0");
    let mut cells = [0u128; 8];
    // One packet adding `add` to cell `idx`: the expected old and new cell values track `cells`.
    fn pkt(t: &mut Stf, cells: &mut [u128; 8], idx: usize, add: u128) {
        let old = cells[idx];
        cells[idx] = (old + add) & 0xffff_ffff;
        t.packet(0, &h(&[(idx as u128, 8), (add, 32), (0, 64)]));
        t.expect(1, &h(&[(idx as u128, 8), (add, 32), (old, 32), (cells[idx], 32)]));
    }
    t.comment("accumulate in cell 0");
    pkt(&mut t, &mut cells, 0, 5);
    pkt(&mut t, &mut cells, 0, 7);
    pkt(&mut t, &mut cells, 0, 0xfffffff0);
    t.comment("the control plane writes cell 2, the packet sees it");
    t.raw("register_write r 2 100");
    cells[2] = 100;
    pkt(&mut t, &mut cells, 2, 1);
    t.raw(format!("register_read r 0 == {}", cells[0]));
    t.raw("register_read r 2 == 101");
    t.raw("register_read r 7 == 0");
    t.comment("reset clears every cell");
    t.raw("register_reset r");
    cells = [0; 8];
    pkt(&mut t, &mut cells, 2, 3);
    t.raw("register_read r 0 == 0");
    s.stf("registers", t);
}

fn counters(s: &mut Suite) {
    let decls = r"
header h_t {
    bit<8> idx;
    bit<8> k;
}
struct headers_t { h_t h; }
struct meta_t { }
";
    let ingress = r"
counter(4, CounterType.packets_and_bytes) c;
counter(4, CounterType.packets) cp;
direct_counter(CounterType.packets_and_bytes) dc;

action hit_it() { }
table t {
    key = { hdr.h.k: exact; }
    actions = { hit_it; NoAction; }
    default_action = NoAction();
    counters = dc;
}
apply {
    c.count((bit<32>)hdr.h.idx);
    cp.count((bit<32>)hdr.h.idx);
    t.apply();
    sm.egress_spec = 1;
}
";
    s.program(Program::new("counters", "indexed counters (packets, bytes) and a direct counter attached to a table",
                           decls, ingress));
    let mut t = Stf::new("counters: bytes count the whole packet as received");
    t.raw("add t hdr.h.k:1 hit_it() = e1");
    t.raw("add t hdr.h.k:2 hit_it() = e2");
    for (idx, k, size) in [(1, 1, 4u8), (1, 2, 10), (3, 1, 6), (3, 9, 5)] {
        let data = [h(&[(idx, 8), (k, 8)]), (0..size - 2).collect()].concat();
        t.packet(0, &data);
        t.expect(1, &data);
    }
    t.comment("c(1): 2 packets, 14 bytes; c(3): 2 packets, 11 bytes; c(0) untouched");
    for line in ["check_counter c(1) packets == 2", "check_counter c(1) bytes == 14", "check_counter c(3) packets == 2",
                 "check_counter c(3) bytes == 11", "check_counter c(0) packets == 0", "check_counter cp(1) packets == 2"] {
        t.raw(line);
    }
    t.comment("direct counter: entry k=1 hit twice (4 + 6 bytes), k=2 once (10 bytes); misses count nowhere");
    for line in ["check_counter dc(e1) packets == 2", "check_counter dc(e1) bytes == 10",
                 "check_counter dc(e2) packets == 1", "check_counter dc(e2) bytes == 10"] {
        t.raw(line);
    }
    s.stf("counters", t);
}

fn meters(s: &mut Suite) {
    let decls = r"
header h_t {
    bit<8> idx;
    bit<8> k;
    bit<8> color;    // from the indexed meter: 0 green, 1 yellow, 2 red
    bit<8> dcolor;   // from the direct meter, when the table hits
}
struct headers_t { h_t h; }
struct meta_t { }
";
    let ingress = r"
meter(4, MeterType.packets) m;
direct_meter<bit<8>>(MeterType.packets) dm;

action read_color() {
    dm.read(hdr.h.dcolor);
}
table t {
    key = { hdr.h.k: exact; }
    actions = { read_color; NoAction; }
    default_action = NoAction();
    meters = dm;
}
apply {
    m.execute_meter((bit<32>)hdr.h.idx, hdr.h.color);
    t.apply();
    sm.egress_spec = 1;
}
";
    s.program(Program::new("meters", "two-rate three-colour meters, indexed and direct, in packets", decls, ingress));
    let mut t = Stf::new("meters: a rate of 1e-7 packets/us refills nothing during the test, so only the bursts count.\n\
                          # Committed burst 1, peak burst 2: green, yellow, then red.");
    t.raw("meter_set_rates m 2 0.0000001:1 0.0000001:2");
    t.raw("add t hdr.h.k:1 read_color()");
    t.raw("meter_set_rates dm 0 0.0000001:1 0.0000001:2");
    t.comment("indexed meter cell 2; the table misses, dcolor stays AA");
    for color in [0, 1, 2, 2] {
        t.packet(0, &h(&[(2, 8), (0, 8), (0xff, 8), (0xaa, 8)]));
        t.expect(1, &h(&[(2, 8), (0, 8), (color, 8), (0xaa, 8)]));
    }
    t.comment("cell 1 has no rates: always green; the direct meter of entry k=1 goes green, yellow, red");
    for color in [0, 1, 2] {
        t.packet(0, &h(&[(1, 8), (1, 8), (0xff, 8), (0xaa, 8)]));
        t.expect(1, &h(&[(1, 8), (1, 8), (0, 8), (color, 8)]));
    }
    s.stf("meters", t);
}

fn hashes(s: &mut Suite) {
    let decls = r"
header h_t {
    bit<16> a;
    bit<16> b;
    bit<16> crc16;
    bit<32> crc32;
    bit<16> csum16;
    bit<16> ident;
    bit<16> xor16;
    bit<16> bucket;   // 100 + crc16 % 10
}
struct headers_t { h_t h; }
struct meta_t { }
";
    let ingress = r"
apply {
    hash(hdr.h.crc16, HashAlgorithm.crc16, 16w0, { hdr.h.a, hdr.h.b }, 32w65536);
    hash(hdr.h.crc32, HashAlgorithm.crc32, 32w0, { hdr.h.a, hdr.h.b }, 64w0x100000000);
    hash(hdr.h.csum16, HashAlgorithm.csum16, 16w0, { hdr.h.a, hdr.h.b }, 32w65536);
    hash(hdr.h.ident, HashAlgorithm.identity, 16w0, { hdr.h.a, hdr.h.b }, 32w65536);
    hash(hdr.h.xor16, HashAlgorithm.xor16, 16w0, { hdr.h.a, hdr.h.b }, 32w65536);
    hash(hdr.h.bucket, HashAlgorithm.crc16, 16w100, { hdr.h.a, hdr.h.b }, 32w10);
    sm.egress_spec = 1;
}
";
    s.program(Program::new("hashes", "hash(): crc16, crc32, csum16, identity, xor16; result = base + H % max", decls,
                           ingress));
    let mut t = Stf::new("hashes: crc16 is CRC-16/ARC (BB3D for \"123456789\"), crc32 the IEEE CRC (CBF43926)");
    for (a, b) in [(0x0102u128, 0x0304u128), (0xffff, 0x0000), (0x1234, 0xabcd)] {
        let d = h(&[(a, 16), (b, 16)]);
        let c16 = u128::from(crc16_arc(&d));
        t.comment(format!("a={a:#06x} b={b:#06x}"));
        t.packet(0, &h(&[(a, 16), (b, 16), (0, 16 * 7)]));
        t.expect(1, &h(&[(a, 16), (b, 16), (c16, 16), (crc32_ieee(&d).into(), 32), (csum16(&d).into(), 16), (b, 16),
                         (xor16(&d).into(), 16), (100 + c16 % 10, 16)]));
    }
    s.stf("hashes", t);
}

/// One `checksums` packet and its expected output. `flags == 1` makes ingress bump `a` and every
/// checksum be recomputed; `good == false` corrupts the arriving csum16.
fn checksums_case(t: &mut Stf, a: u128, b: u128, c: u128, flags: u128, good: bool) {
    let payload = hx("0102030405");
    let covered = |a: u128| h(&[(a, 16), (b, 16), (c, 8), (flags, 8)]);
    let mut cs = u128::from(csum16(&covered(a)));
    if !good {
        cs ^= 0x0100;
    }
    let bad = u128::from(!good);
    let rest_bits = 16 + 32 + 16 + 16 + 16 + 8 + 8;
    let inp = [h(&[(a, 16), (b, 16), (c, 8), (flags, 8), (cs, 16), (0, rest_bits)]), payload.clone()].concat();
    let out = if flags == 1 {
        let a2 = (a + 1) & 0xffff;
        let ab = h(&[(a2, 16), (b, 16)]);
        let ab_payload = [ab.clone(), payload.clone()].concat();
        h(&[(a2, 16), (b, 16), (c, 8), (flags, 8), (csum16(&covered(a2)).into(), 16), (crc16_arc(&ab).into(), 16),
            (crc32_ieee(&ab).into(), 32), (a2, 16), (xor16(&ab).into(), 16), (csum16(&ab_payload).into(), 16),
            (bad, 8), (0, 8)])
    } else {
        h(&[(a, 16), (b, 16), (c, 8), (flags, 8), (cs, 16), (0, 16 + 32 + 16 + 16 + 16), (bad, 8), (0, 8)])
    };
    t.packet(0, &inp);
    t.expect(1, &[out, payload].concat());
}

fn checksums(s: &mut Suite) {
    let decls = r"
header h_t {
    bit<16> a;
    bit<16> b;
    bit<8>  c;
    bit<8>  flags;      // 1: ingress changes `a` and every checksum is recomputed
    bit<16> csum;       // csum16 over {a, b, c, flags}, verified on arrival
    bit<16> crc16v;     // crc16 over {a, b}
    bit<32> crc32v;     // crc32 over {a, b}
    bit<16> ident;      // identity over {a}
    bit<16> xorv;       // xor16 over {a, b}
    bit<16> csum_pl;    // csum16 over {a, b} and the payload
    bit<8>  bad;        // ingress copies standard_metadata.checksum_error here
    bit<8>  pad;
}
struct headers_t { h_t h; }
struct meta_t { }
";
    let verify = r"
verify_checksum(true, { hdr.h.a, hdr.h.b, hdr.h.c, hdr.h.flags }, hdr.h.csum, HashAlgorithm.csum16);
";
    let ingress = r"
apply {
    hdr.h.bad = (bit<8>)sm.checksum_error;
    if (hdr.h.flags == 1) {
        hdr.h.a = hdr.h.a + 1;
    }
    sm.egress_spec = 1;
}
";
    let compute = r"
update_checksum(hdr.h.flags == 1, { hdr.h.a, hdr.h.b, hdr.h.c, hdr.h.flags }, hdr.h.csum, HashAlgorithm.csum16);
update_checksum(hdr.h.flags == 1, { hdr.h.a, hdr.h.b }, hdr.h.crc16v, HashAlgorithm.crc16);
update_checksum(hdr.h.flags == 1, { hdr.h.a, hdr.h.b }, hdr.h.crc32v, HashAlgorithm.crc32);
update_checksum(hdr.h.flags == 1, { hdr.h.a }, hdr.h.ident, HashAlgorithm.identity);
update_checksum(hdr.h.flags == 1, { hdr.h.a, hdr.h.b }, hdr.h.xorv, HashAlgorithm.xor16);
update_checksum_with_payload(hdr.h.flags == 1, { hdr.h.a, hdr.h.b }, hdr.h.csum_pl, HashAlgorithm.csum16);
";
    s.program(Program::new("checksums",
                           "verify_checksum / update_checksum(_with_payload) with csum16, crc16, crc32, identity, xor16",
                           decls, ingress)
        .verify(verify)
        .compute(compute));
    let mut t = Stf::new("checksums");
    t.comment("good checksum, nothing recomputed");
    checksums_case(&mut t, 0x1234, 0x5678, 0x9a, 0, true);
    t.comment("bad checksum: checksum_error = 1, the packet is not dropped");
    checksums_case(&mut t, 0x1234, 0x5678, 0x9a, 0, false);
    t.comment("a changes; every checksum recomputed; the payload 0102030405 feeds csum_pl");
    checksums_case(&mut t, 0xfffe, 0x0001, 0x00, 1, true);
    checksums_case(&mut t, 0x4500, 0x0073, 0x40, 1, true);
    s.stf("checksums", t);
}

fn checksum_payload_verify(s: &mut Suite) {
    let decls = r"
header h_t {
    bit<16> x;
    bit<16> csum;    // csum16 over {x} and the payload that follows the header
    bit<8>  bad;     // ingress copies standard_metadata.checksum_error here
}
struct headers_t { h_t h; }
struct meta_t { }
";
    let verify = r"
verify_checksum_with_payload(true, { hdr.h.x }, hdr.h.csum, HashAlgorithm.csum16);
";
    let ingress = r"
apply {
    hdr.h.bad = (bit<8>)sm.checksum_error;
    sm.egress_spec = 1;
}
";
    s.program(Program::new("checksum_payload_verify",
                           "verify_checksum_with_payload covers the bytes after the parsed headers", decls, ingress)
        .verify(verify));
    let mut t = Stf::new("checksum_payload_verify");
    let payload = hx("DEADBEEF01");
    let changed = hx("DEADBEEF02");
    let x = h(&[(0x1234, 16)]);
    // The header with checksum `cs` and error flag `bad`, then `payload`.
    let pkt = |cs: u16, bad: u128, payload: &[u8]| {
        [h(&[(0x1234, 16), (cs.into(), 16), (bad, 8)]), payload.to_vec()].concat()
    };
    let good = csum16(&[x.clone(), payload.clone()].concat());
    t.comment("correct checksum over x and the 5 payload bytes");
    t.packet(0, &pkt(good, 0, &payload));
    t.expect(1, &pkt(good, 0, &payload));
    t.comment("the same checksum with one payload byte changed: error");
    t.packet(0, &pkt(good, 0, &changed));
    t.expect(1, &pkt(good, 1, &changed));
    t.comment("the checksum of x alone does not cover the payload: error");
    let alone = csum16(&x);
    t.packet(0, &pkt(alone, 0, &payload));
    t.expect(1, &pkt(alone, 1, &payload));
    s.stf("checksum_payload_verify", t);
}
