//! Arithmetic on values wider than 128 bits, end to end through the v1model switch, checked as an
//! STF test with exact expected bytes (computed independently with arbitrary-precision integers).

use p4_dataplane::Switch;
use p4_stf::{parse_stf, run_stf};
use std::path::PathBuf;
use std::sync::Arc;

const PROGRAM: &str = r#"
#include <core.p4>
#include <v1model.p4>
header in_t { bit<256> a; bit<256> b; }
header out_t {
    bit<256> sum; bit<256> diff; bit<256> prod; bit<256> x; bit<256> shl; bit<256> shr; bit<256> sar;
    bit<256> neg; bit<200> narrow; bit<64> slice; bit<8> flags; bit<256> cat; bit<256> sat;
    bit<256> ext; bit<256> quot; bit<256> rem; bit<256> patched;
}
struct headers_t { in_t i; out_t o; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.i); transition accept; }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        bit<256> a = hdr.i.a;
        bit<256> b = hdr.i.b;
        hdr.o.setValid();
        hdr.o.sum = a + b;
        hdr.o.diff = b - a;
        hdr.o.prod = a * b;
        hdr.o.x = a ^ b;
        hdr.o.shl = a << 130;
        hdr.o.shr = a >> 129;
        hdr.o.sar = (bit<256>)((int<256>)a >> 129);
        hdr.o.neg = -a;
        hdr.o.narrow = (bit<200>)(a + b);
        hdr.o.slice = a[191:128];
        hdr.o.flags = (a > b ? 8w0x80 : 8w0) | (a < b ? 8w0x40 : 8w0) | (a == b ? 8w0x20 : 8w0)
                    | (a != b ? 8w0x10 : 8w0) | ((int<256>)a < (int<256>)b ? 8w0x08 : 8w0)
                    | (a[0:0] == 1 ? 8w0x04 : 8w0);
        hdr.o.cat = a[127:0] ++ b[127:0];
        hdr.o.sat = a |+| a;
        int<8> minus_two = -2;
        hdr.o.ext = (bit<256>)(int<256>)minus_two;
        hdr.o.quot = a / 256w16;
        hdr.o.rem = a % 256w16;
        hdr.o.patched = b;
        hdr.o.patched[135:128] = 0xAB;
        sm.egress_spec = 1;
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.i); pkt.emit(hdr.o); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#;

const A: &str = "8000000000000000000000000000000100000000000000000000000000000005";
const B: &str = "0000000000000100000000000000000000000000000000000000000000000003";
/// sum, diff, prod, x, shl, shr, sar, neg, narrow, slice, flags, cat, sat, ext, quot, rem, patched.
const RESULTS: [&str; 17] = [
    "8000000000000100000000000000000100000000000000000000000000000008",
    "80000000000000fffffffffffffffffefffffffffffffffffffffffffffffffe",
    "800000000000050000000000000000030000000000000000000000000000000f",
    "8000000000000100000000000000000100000000000000000000000000000006",
    "0000000000000000000000000000001400000000000000000000000000000000",
    "0000000000000000000000000000000040000000000000000000000000000000",
    "ffffffffffffffffffffffffffffffffc0000000000000000000000000000000",
    "7ffffffffffffffffffffffffffffffefffffffffffffffffffffffffffffffb",
    "00000000000000000100000000000000000000000000000008",
    "0000000000000001",
    "9c",
    "0000000000000000000000000000000500000000000000000000000000000003",
    "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
    "fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe",
    "0800000000000000000000000000000010000000000000000000000000000000",
    "0000000000000000000000000000000000000000000000000000000000000005",
    "000000000000010000000000000000ab00000000000000000000000000000003",
];

fn switch(program: &str) -> Result<Switch, p4_dataplane::DataplaneError> {
    let include = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../p4include"));
    let compiled = p4_sema::compile_str("wide.p4", program, &[include]);
    let diagnostics = compiled.render_diagnostics();
    let program = compiled.program.unwrap_or_else(|| panic!("{diagnostics}"));
    Switch::new(Arc::new(program))
}

#[test]
fn arithmetic_on_256_bit_values_gives_exact_results() {
    let mut sw = switch(PROGRAM).unwrap_or_else(|e| panic!("{e}"));
    let stf = format!("packet 0 {A} {B}\nexpect 1 {A} {B} {}$\n", RESULTS.join(" "));
    let report = run_stf(&mut sw, &parse_stf(&stf).unwrap());
    assert!(report.passed(), "{}", report.render());
}

/// A program using a 256-bit value where the dataplane needs at most 128 bits.
const UNSUPPORTED: &str = r#"
#include <core.p4>
#include <v1model.p4>
header in_t { bit<256> a; bit<256> b; }
struct headers_t { in_t i; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.i); transition accept; }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        switch (hdr.i.a + hdr.i.b) {
            1: { sm.egress_spec = 1; }
            default: { sm.egress_spec = 2; }
        }
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.i); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#;

#[test]
fn what_remains_unsupported_is_located_in_the_program() {
    let error = switch(UNSUPPORTED).err().expect("a 256-bit switch selector is refused");
    assert_eq!(
        error.to_string(),
        "unsupported by the v1model dataplane: control I: a bit<256> value where at most 128 bits can be used (as a table key, index, condition or extern argument)"
    );
    let span = error.span.expect("the error carries where it is");
    assert_eq!(&UNSUPPORTED[span.lo as usize..span.hi as usize], "hdr.i.a + hdr.i.b");
}

#[test]
fn wide_constants_and_conditions() {
    let program = UNSUPPORTED.replace(
        r#"switch (hdr.i.a + hdr.i.b) {
            1: { sm.egress_spec = 1; }
            default: { sm.egress_spec = 2; }
        }"#,
        r#"hdr.i.b = 256w0x0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20;
        if (hdr.i.a > 256w0xff) { hdr.i.a = hdr.i.a - 256w1; } else { hdr.i.a = ~hdr.i.a; }
        sm.egress_spec = 1;"#,
    );
    let mut sw = switch(&program).unwrap_or_else(|e| panic!("{e}"));
    let zero = "0".repeat(64);
    let b = "0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20";
    let stf = format!(
        "packet 0 {}0100 {zero}\nexpect 1 {}00ff {b}$\npacket 0 {}0005 {zero}\nexpect 1 {}fffa {b}$\n",
        "0".repeat(60),
        "0".repeat(60),
        "0".repeat(60),
        "f".repeat(60)
    );
    let report = run_stf(&mut sw, &parse_stf(&stf).unwrap());
    assert!(report.passed(), "{}", report.render());
}

#[test]
fn a_wide_select_key_is_located_at_the_key() {
    let program = UNSUPPORTED.replace(
        "state start { pkt.extract(hdr.i); transition accept; }",
        "state start { pkt.extract(hdr.i); transition select(hdr.i.b) { 256w1: reject; default: accept; } }",
    );
    let error = switch(&program).err().expect("a 256-bit select key is refused");
    assert_eq!(
        error.message,
        "a bit<256> value where at most 128 bits can be used (as a table key, index, condition or extern argument)"
    );
    let span = error.span.expect("located");
    assert_eq!(&program[span.lo as usize..span.hi as usize], "hdr.i.b");
}
