//! Deparsers that choose what to emit with control flow the generated code leaves to closures
//! (`switch`, loops bounded by a header field, `for`-in over a stack, a sub-control applied, a
//! function called) between emits it writes itself: the switch (machine code and its closures
//! alone), on the elaborated and the lowered program, one packet at a time and in batches, and the
//! reference interpreter (`p4-reference`) on both forms, give the bytes a model of the program
//! computes. Closures and generated code append to the same output; a closure that grew it while
//! generated code held a pointer into it once put the process's heap on the wire.

use std::sync::Arc;

use p4_dataplane::batch::{BatchOut, PacketIn};
use p4_dataplane::control::PacketIo;
use p4_dataplane::Switch;
use p4_reference::Interpreter;
use proptest::prelude::*;


/// Cases per property test: `default`, or `P4F_PROPTEST_CASES` (fewer under valgrind,
/// `tests/valgrind/run.sh`).
fn cases(default: u32) -> u32 {
    std::env::var("P4F_PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(default)
}
const PROGRAM: &str = r#"
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> kind; bit<8> n; }
header a_t { bit<32> a; }
header b_t { bit<64> b; }
struct headers_t { h_t h; a_t a; b_t b; a_t[4] s; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h); pkt.extract(hdr.a); pkt.extract(hdr.b);
        pkt.extract(hdr.s[0]); pkt.extract(hdr.s[1]); pkt.extract(hdr.s[2]); pkt.extract(hdr.s[3]);
        transition accept;
    }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (hdr.h.n[7:7] == 1) { hdr.s[1].setInvalid(); }
        if (hdr.h.n[6:6] == 1) { hdr.a.setInvalid(); }
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
void emit_twice(packet_out pkt, in a_t x) { pkt.emit(x); pkt.emit(x); }
control EmitPair(packet_out pkt, in a_t x, in b_t y) { apply { pkt.emit(y); pkt.emit(x); } }
control D(packet_out pkt, in headers_t hdr) {
    EmitPair() pair;
    apply {
        pkt.emit(hdr.h);
        switch (hdr.h.kind) {
            1: { pkt.emit(hdr.a); pkt.emit(hdr.b); }
            2: { KIND2 }
            3: {
                if (hdr.h.n[3:0] > 2) {
                    pkt.emit(hdr.b);
                    if (hdr.h.n[3:0] > 4) { pkt.emit(hdr.a); }
                } else {
                    pkt.emit(hdr.a);
                }
            }
            4: { KIND4 }
            default: { pkt.emit(hdr.a); }
        }
        for (bit<4> i = 0; i < hdr.h.n[3:0]; i = i + 1) { pkt.emit(hdr.b); }
        for (a_t x in hdr.s) { pkt.emit(x); }
        pkt.emit(hdr.s);
    }
}
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#;

const A: [u8; 4] = [0x11; 4];
const B: [u8; 8] = [0x22; 8];
const S: [[u8; 4]; 4] = [[0x33; 4], [0x44; 4], [0x55; 4], [0x66; 4]];

/// A packet of the program's headers with `kind` and `n`, then `payload`.
fn packet(kind: u8, n: u8, payload: &[u8]) -> Vec<u8> {
    let mut p = vec![kind, n];
    p.extend_from_slice(&A);
    p.extend_from_slice(&B);
    S.iter().for_each(|s| p.extend_from_slice(s));
    p.extend_from_slice(payload);
    p
}

/// What the program sends for [`packet`]`(kind, n, payload)`, worked out from its text.
fn expected(kind: u8, n: u8, payload: &[u8]) -> Vec<u8> {
    let a_valid = n & 0x40 == 0;
    let s_valid = [true, n & 0x80 == 0, true, true];
    let count = n & 0x0f;
    let mut out = vec![kind, n];
    let a = |out: &mut Vec<u8>| {
        if a_valid {
            out.extend_from_slice(&A)
        }
    };
    let b = |out: &mut Vec<u8>| out.extend_from_slice(&B);
    match kind {
        1 => {
            a(&mut out);
            b(&mut out);
        }
        2 => {
            b(&mut out);
            a(&mut out);
        }
        3 if count > 2 => {
            b(&mut out);
            if count > 4 {
                a(&mut out);
            }
        }
        4 => {
            a(&mut out);
            a(&mut out);
        }
        _ => a(&mut out),
    }
    for _ in 0..count {
        b(&mut out);
    }
    for _ in 0..2 {
        for (s, valid) in S.iter().zip(s_valid) {
            if valid {
                out.extend_from_slice(s);
            }
        }
    }
    out.extend_from_slice(payload);
    out
}

#[test]
fn exact_bytes_for_a_few_packets() {
    // The model itself, checked against bytes written out by hand.
    let hex = |s: &str| -> Vec<u8> { (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect() };
    let s = "33333333444444445555555566666666";
    assert_eq!(expected(1, 0, &[0xee]), hex(&format!("0100{}{}{s}{s}ee", "11111111", "2222222222222222")));
    assert_eq!(expected(2, 1, &[]), hex(&format!("0201{}{}{}{s}{s}", "2222222222222222", "11111111", "2222222222222222")));
    // n = 0xc3: `a` and `s[1]` invalid, three more `b`s after the one kind 3 emits.
    let b4 = "22".repeat(32);
    assert_eq!(expected(3, 0xc3, &[]), hex(&format!("03c3{b4}333333335555555566666666333333335555555566666666")));
    assert_eq!(expected(4, 0, &[]), hex(&format!("04001111111111111111{s}{s}")));
    let mut switches = switches();
    let mut references = references();
    let all = switches
        .iter_mut()
        .map(|sw| (format!("{:?}", sw.machine_code()), sw as &mut dyn PacketIo))
        .chain(references.iter_mut().map(|(name, r)| (name.clone(), r as &mut dyn PacketIo)));
    for (name, dp) in all {
        for (kind, n) in [(1, 0), (2, 1), (3, 0xc3), (4, 0), (9, 15)] {
            let got = dp.inject(0, &packet(kind, n, &[0xee, 0xff]), 0);
            assert_eq!(got.drops, Vec::<String>::new());
            assert_eq!(got.outputs.len(), 1, "{name}");
            assert_eq!(got.outputs[0].data, expected(kind, n, &[0xee, 0xff]), "kind {kind}, n {n:#x} on {name}");
        }
    }
}

/// What kinds 2 and 4 do: emit their headers themselves, or through a sub-control and a function.
const INLINE: (&str, &str) = ("pkt.emit(hdr.b); pkt.emit(hdr.a);", "pkt.emit(hdr.a); pkt.emit(hdr.a);");
const CALLS: (&str, &str) = ("pair.apply(pkt, hdr.a, hdr.b);", "emit_twice(pkt, hdr.a);");

fn program_with(kind2: &str, kind4: &str) -> p4_ir::Program {
    let include = std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../p4include"));
    let source = PROGRAM.replace("KIND2", kind2).replace("KIND4", kind4);
    let compiled = p4_sema::compile_str("deparser_control_flow.p4", &source, &[include]);
    let Some(program) = compiled.program else { panic!("{}", compiled.render_diagnostics()) };
    program
}

fn program(calls: bool) -> p4_ir::Program {
    let (kind2, kind4) = if calls { CALLS } else { INLINE };
    program_with(kind2, kind4)
}

/// The switch with machine code and with its closures alone, on the program as written and as
/// the mid-end lowers it. Emits through a sub-control run on the lowered program only (the
/// mid-end inlines it; the switch refuses a sub-block as written); emits through a function run
/// as written too (the function alone, the deparser's other statements inline: the same packets).
fn switches() -> Vec<Switch> {
    let mut all = Vec::new();
    for calls in [false, true] {
        let written = Arc::new(program(calls));
        let mut programs = vec![Arc::new(p4_midend::lower((*written).clone()).expect("lowered"))];
        programs.push(if calls { Arc::new(program_with(INLINE.0, CALLS.1)) } else { written });
        for program in programs {
            let native = Switch::new(program.clone()).expect("switch");
            assert!(native.machine_code().is_some_and(|m| m.contains("whole packet")), "{:?}", native.machine_code());
            let mut closures = Switch::new(program).expect("switch");
            assert!(!closures.use_machine_code(false));
            all.extend([native, closures]);
        }
    }
    assert_eq!(all.len(), 8);
    all
}

/// The reference interpreter on every program, as written and as lowered, with what it runs.
fn references() -> Vec<(String, Interpreter)> {
    let mut all = Vec::new();
    for calls in [false, true] {
        let written = program(calls);
        let lowered = p4_midend::lower(written.clone()).expect("lowered");
        for (form, program) in [("as written", written), ("lowered", lowered)] {
            let reference = Interpreter::new(Arc::new(program)).expect("the reference interpreter");
            all.push((format!("the reference, {form}, calls {calls}"), reference));
        }
    }
    all
}

#[test]
fn a_sub_control_that_emits_keeps_the_program_as_written_off_the_switch() {
    // The switch takes it only as the mid-end inlines it (`switches`); a function that emits it
    // runs as written.
    let refusal = |kind2: &str, kind4: &str| Switch::new(Arc::new(program_with(kind2, kind4))).err().map(|e| e.message);
    assert_eq!(refusal(CALLS.0, INLINE.1).as_deref(), Some("control D: a sub-block application"));
    assert_eq!(refusal(INLINE.0, CALLS.1), None);
}

#[test]
fn the_deparser_as_written_mixes_generated_code_and_closures() {
    // What the test is about: generated code and closures (the `switch` and the loops) both
    // emitting in one deparser.
    let sw = Switch::new(Arc::new(program(false))).expect("switch");
    assert_eq!(sw.machine_code(), Some("parser, 2 of 2 controls, whole packet"));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(48)))]
    #[test]
    fn the_switch_and_the_reference_emit_what_the_model_says(packets in proptest::collection::vec((0u8..7, any::<u8>(), proptest::collection::vec(any::<u8>(), 0..40)), 1..40)) {
        let inputs: Vec<Vec<u8>> = packets.iter().map(|(kind, n, payload)| packet(*kind, *n, payload)).collect();
        let want: Vec<Vec<u8>> = packets.iter().map(|(kind, n, payload)| expected(*kind, *n, payload)).collect();
        // Built once for every case: compiling six switches per case is most of the time under
        // valgrind (`tests/valgrind.sh`).
        static SWITCHES: std::sync::OnceLock<std::sync::Mutex<Vec<Switch>>> = std::sync::OnceLock::new();
        static REFERENCES: std::sync::OnceLock<std::sync::Mutex<Vec<(String, Interpreter)>>> = std::sync::OnceLock::new();
        let mut switches = SWITCHES.get_or_init(|| std::sync::Mutex::new(switches())).lock().unwrap_or_else(|e| e.into_inner());
        let mut references = REFERENCES.get_or_init(|| std::sync::Mutex::new(references())).lock().unwrap_or_else(|e| e.into_inner());
        for sw in switches.iter_mut() {
            let batch: Vec<PacketIn> = inputs.iter().map(|data| PacketIn { port: 0, data, now_ns: 0 }).collect();
            let mut out = BatchOut::default();
            sw.process_batch(&batch, &mut out);
            let got: Vec<Vec<u8>> = out.packets.iter().map(|p| out.data(p).to_vec()).collect();
            prop_assert_eq!(&got, &want, "{:?}", sw.machine_code());
        }
        for (name, reference) in references.iter_mut() {
            let got: Vec<Vec<u8>> = inputs.iter().flat_map(|data| reference.inject(0, data, 0).outputs).map(|o| o.data).collect();
            prop_assert_eq!(&got, &want, "{}", name);
        }
    }
}
