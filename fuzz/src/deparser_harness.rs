//! Shared by the `deparser` fuzz target and the `deparser_loop` binary: a deparser drawn from the
//! input's bytes (emits under `if`, `switch`, loops of constant and run-time bounds, `for`-in over a
//! stack and functions, nested; every field read guarded by its header's validity, so that only
//! behaviour the spec defines is compared), compiled with a fixed parser and headers, and run on every
//! executor, as written and lowered by the mid-end, over packets cut from the rest of the input:
//! every executor must send the same bytes. (Generated code and closures both emit in such a
//! deparser; when they disagreed about where the output ends, process memory went on the wire.)
//!
//! Input layout: byte 0 is the number of statement bytes `n` (mod 64); bytes 1..=n draw the
//! deparser (each byte one choice, in order; running out means "a plain emit"); the rest is
//! packet data, cut into up to four packets at the byte values 0xa5.

use std::sync::Arc;

use p4_dataplane::batch::{BatchOut, PacketIn};
use p4_dataplane::Switch;

const HEADERS: &str = r#"
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> kind; bit<8> n; }
header a_t { bit<32> a; }
header b_t { bit<24> b; bit<8> c; }
struct headers_t { h_t h; a_t a; b_t b; a_t[3] s; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition select(hdr.h.kind[0:0]) { 0: more; default: accept; }
    }
    state more {
        pkt.extract(hdr.a); pkt.extract(hdr.b);
        pkt.extract(hdr.s.next); pkt.extract(hdr.s.next); pkt.extract(hdr.s.next);
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
"#;

/// Draws statements from a byte string: each call takes the next byte (0 when none is left).
struct Draw<'a> {
    bytes: &'a [u8],
    at: usize,
    /// Fresh names for loop variables and functions.
    fresh: usize,
    /// Functions drawn so far, declared before the deparser.
    functions: String,
}

impl Draw<'_> {
    fn byte(&mut self) -> u8 {
        let b = self.bytes.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b
    }

    /// A header the deparser emits: a header, the stack, or a stack element.
    fn target(&mut self) -> &'static str {
        ["hdr.h", "hdr.a", "hdr.b", "hdr.s", "hdr.s[0]", "hdr.s[2]"][usize::from(self.byte()) % 6]
    }

    /// A statement, at most `depth` levels of control flow deep.
    fn statement(&mut self, depth: u32) -> String {
        let choice = self.byte();
        if depth == 0 || choice < 96 {
            return format!("pkt.emit({});", self.target());
        }
        let n = self.fresh;
        self.fresh += 1;
        match choice % 7 {
            0 => {
                let (a, b) = (self.block(depth - 1), self.block(depth - 1));
                format!("if (hdr.b.isValid() && hdr.b.c[0:0] == 1) {{ {a} }} else {{ {b} }}")
            }
            1 => {
                let (a, b, c) = (self.block(depth - 1), self.block(depth - 1), self.block(depth - 1));
                format!("if (hdr.h.isValid()) {{ switch (hdr.h.kind) {{ 0: {{ {a} }} 2: {{ {b} }} default: {{ {c} }} }} }}")
            }
            2 => {
                let rounds = self.byte() % 4;
                let body = self.block(depth - 1);
                format!("for (bit<8> i{n} = 0; i{n} < {rounds}; i{n} = i{n} + 1) {{ {body} }}")
            }
            3 => {
                let body = self.block(depth - 1);
                format!("if (hdr.h.isValid()) {{ for (bit<4> i{n} = 0; i{n} < hdr.h.n[3:0]; i{n} = i{n} + 1) {{ {body} }} }}")
            }
            4 => format!("for (a_t x{n} in hdr.s) {{ pkt.emit(x{n}); }}"),
            5 => {
                let body = self.block(depth - 1);
                self.functions.push_str(&format!("void emit{n}(packet_out pkt, in headers_t hdr) {{ {body} }}\n"));
                format!("emit{n}(pkt, hdr);")
            }
            _ => {
                let body = self.block(depth - 1);
                format!("if (hdr.s[1].isValid()) {{ {body} }}")
            }
        }
    }

    /// One to three statements.
    fn block(&mut self, depth: u32) -> String {
        let count = 1 + self.byte() % 3;
        (0..count).map(|_| self.statement(depth)).collect::<Vec<_>>().join(" ")
    }
}

/// The program of `statements` (the deparser drawn from them) and the packets after them.
pub fn program_and_packets(data: &[u8]) -> (String, Vec<Vec<u8>>) {
    let n = usize::from(data.first().copied().unwrap_or(0) % 64);
    let statements = data.get(1..1 + n.min(data.len().saturating_sub(1))).unwrap_or(&[]);
    let mut draw = Draw { bytes: statements, at: 0, fresh: 0, functions: String::new() };
    let body = (0..4).map(|_| draw.statement(3)).collect::<Vec<_>>().join("\n        ");
    let text = format!(
        "{HEADERS}{}control D(packet_out pkt, in headers_t hdr) {{\n    apply {{\n        {body}\n    }}\n}}\nV1Switch(P(), V(), I(), E(), C(), D()) main;\n",
        draw.functions
    );
    let rest = data.get(1 + n..).unwrap_or(&[]);
    let packets = rest.split(|&b| b == 0xa5).take(4).map(<[u8]>::to_vec).collect();
    (text, packets)
}

/// What a switch sends for `packets` (port and bytes, then drops as text), in order.
fn outcome(sw: &mut Switch, packets: &[Vec<u8>]) -> Vec<(u32, Vec<u8>)> {
    let batch: Vec<PacketIn> = packets.iter().map(|data| PacketIn { port: 0, data, now_ns: 0 }).collect();
    let mut out = BatchOut::default();
    sw.process_batch(&batch, &mut out);
    let mut seen: Vec<(u32, Vec<u8>)> = out.packets.iter().map(|p| (p.port, out.data(p).to_vec())).collect();
    seen.extend(out.drops.iter().map(|d| (u32::MAX, sw.drop_text(&d.reason).into_bytes())));
    seen
}

/// Runs one input; panics when two executors send different bytes.
pub fn run(data: &[u8]) {
    let (text, packets) = program_and_packets(data);
    let include = std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../p4include"));
    let compiled = p4_sema::compile_str("deparser.p4", &text, &[include]);
    let Some(program) = compiled.program else { panic!("a drawn deparser did not compile:\n{}\n{text}", compiled.render_diagnostics()) };
    let lowered = p4_midend::lower(program.clone()).unwrap_or_else(|e| panic!("the mid-end failed: {e:?}\n{text}"));
    let (written, lowered) = (Arc::new(program), Arc::new(lowered));
    let mut switches = vec![("closure executor, as written", Switch::reference(written.clone()).expect("reference switch"))];
    for (name, program) in [("as written", written), ("lowered", lowered)] {
        // As written, a function that emits keeps the program off the wire-format executor.
        let Ok(native) = Switch::new(program.clone()) else { continue };
        let mut closures = Switch::new(program.clone()).expect("switch");
        closures.use_machine_code(false);
        let mut reference = Switch::new(program).expect("switch");
        reference.use_wire_format(false);
        switches.extend([(name, native), (name, closures), (name, reference)]);
    }
    let (first, rest) = switches.split_first_mut().expect("at least the reference");
    let want = outcome(&mut first.1, &packets);
    for (name, sw) in rest.iter_mut() {
        let got = outcome(sw, &packets);
        assert!(got == want, "{name} on {} ({:?}) differs from the closure executor:\n{got:02x?}\nagainst\n{want:02x?}\n{text}", sw.executor(), sw.machine_code());
    }
}
