//! Helpers for the end-to-end tests: compile P4 text with `p4-sema`, build a switch or the
//! reference interpreter (`p4-reference`) on it, and run packets through either. Each test binary
//! uses some of them.
#![allow(dead_code)]

pub mod random_program;
pub mod soak;

use std::path::PathBuf;
use std::sync::Arc;

use p4_dataplane::control::{ActionArgs, KeyValue, Keys};
use p4_dataplane::Switch;

pub fn include_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../p4include"))
}

/// Compiles `text` (which must include v1model.p4) as elaborated; panics with diagnostics.
pub fn compile(text: &str) -> Arc<p4_ir::Program> {
    let compiled = p4_sema::compile_str("test.p4", text, &[include_dir()]);
    let Some(program) = compiled.program else {
        panic!("program did not compile:\n{}", compiled.render_diagnostics());
    };
    Arc::new(program)
}

/// Compiles `text` and lowers it with the mid-end (which inlines function calls).
pub fn compile_lowered(text: &str) -> Arc<p4_ir::Program> {
    match p4_midend::lower((*compile(text)).clone()) {
        Ok(p) => Arc::new(p),
        Err(e) => panic!("lowering failed: {e}"),
    }
}

/// Compiles `text` (which must include v1model.p4) and builds a switch; panics with diagnostics.
pub fn switch(text: &str) -> Switch {
    match Switch::new(compile(text)) {
        Ok(s) => s,
        Err(e) => panic!("Switch::new failed: {e}"),
    }
}

/// The reference interpreter running `program`; panics when it refuses it.
pub fn interpreter(program: Arc<p4_ir::Program>) -> p4_reference::Interpreter {
    match p4_reference::Interpreter::new(program) {
        Ok(r) => r,
        Err(e) => panic!("the reference interpreter refused the program: {e}"),
    }
}

/// Compiles `text` and gives the reference interpreter running it as elaborated.
pub fn reference(text: &str) -> p4_reference::Interpreter {
    interpreter(compile(text))
}

/// A v1model program with one header type `h_t { fields }`, a parser extracting it, the given
/// ingress and egress bodies, and a deparser emitting it. `decls` go before the controls.
pub fn program(fields: &str, meta: &str, decls: &str, ingress: &str, egress: &str) -> String {
    format!(
        r#"
#include <core.p4>
#include <v1model.p4>
header h_t {{ {fields} }}
struct headers_t {{ h_t h; }}
struct meta_t {{ {meta} }}
{decls}
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{
    state start {{ pkt.extract(hdr.h); transition accept; }}
}}
control V(inout headers_t hdr, inout meta_t meta) {{ apply {{ }} }}
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{
    {ingress}
}}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{
    {egress}
}}
control C(inout headers_t hdr, inout meta_t meta) {{ apply {{ }} }}
control D(packet_out pkt, in headers_t hdr) {{ apply {{ pkt.emit(hdr.h); }} }}
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#
    )
}

/// Runs `frames`, arriving on `port`, through `sw` as one batch and returns per input its outputs
/// `(input, port, bytes)`, its drops `(input, u32::MAX, reason text)` and its log lines `(input,
/// u32::MAX - 1, line)`, sorted: what two executors must agree on.
pub fn outcome(sw: &mut Switch, frames: &[Vec<u8>], port: u32) -> Vec<(u32, u32, Vec<u8>)> {
    use p4_dataplane::batch::{BatchOut, PacketIn};
    let batch: Vec<PacketIn> = frames.iter().map(|f| PacketIn { port, data: f, now_ns: 0 }).collect();
    let mut out = BatchOut::default();
    sw.process_batch(&batch, &mut out);
    let mut seen: Vec<(u32, u32, Vec<u8>)> = out.packets.iter().map(|p| (p.input, p.port, out.data(p).to_vec())).collect();
    seen.extend(out.drops.iter().map(|d| (d.input, u32::MAX, sw.drop_text(&d.reason).into_bytes())));
    seen.extend(out.log.iter().map(|(input, line)| (*input, u32::MAX - 1, line.clone().into_bytes())));
    seen.sort();
    seen
}

pub fn v(x: u64) -> KeyValue {
    KeyValue::Value(x.into())
}

pub fn keys(k: Vec<KeyValue>) -> Keys {
    Keys::Positional(k)
}

pub fn args(a: &[u64]) -> ActionArgs {
    ActionArgs::Positional(a.iter().map(|x| (*x).into()).collect())
}

/// The copies the traffic-manager tests configure: clone session 5 to port 9, and multicast
/// group 7 with one node, replication id 3 on ports 4 and 6.
pub fn mirror_and_group(dp: &mut dyn p4_dataplane::control::ControlPlane) {
    dp.mirroring_add(5, 9).expect("mirror session");
    dp.mc_mgrp_create(7).expect("group");
    let node = dp.mc_node_create(3, &[4, 6]).expect("node");
    dp.mc_node_associate(7, node).expect("associate");
}

/// Per packet (by its position), injected one at a time on port 0, its outputs `(i, port,
/// bytes)`, drops `(i, u32::MAX, reason)` and log lines `(i, u32::MAX - 1, line)`, each kind in
/// the order it came: what any dataplane (the reference interpreter too) gives.
pub fn injected(dp: &mut dyn p4_dataplane::control::PacketIo, packets: &[Vec<u8>]) -> Vec<(u32, u32, Vec<u8>)> {
    injected_on(dp, 0, packets)
}

/// [`injected`], the packets arriving on `port`.
pub fn injected_on(dp: &mut dyn p4_dataplane::control::PacketIo, port: u32, packets: &[Vec<u8>]) -> Vec<(u32, u32, Vec<u8>)> {
    let mut seen = Vec::new();
    for (i, data) in packets.iter().enumerate() {
        let p4_dataplane::control::Injected { outputs, drops, log, .. } = dp.inject(port, data, 0);
        let i = i as u32;
        seen.extend(outputs.into_iter().map(|o| (i, o.port, o.data)));
        seen.extend(drops.into_iter().map(|d| (i, u32::MAX, d.into_bytes())));
        seen.extend(log.into_iter().map(|l| (i, u32::MAX - 1, l.into_bytes())));
    }
    seen
}

/// [`injected_on`], sorted as [`outcome`] sorts what a batch gives: to compare with the exact
/// results written for it.
pub fn injected_sorted(dp: &mut dyn p4_dataplane::control::PacketIo, port: u32, packets: &[Vec<u8>]) -> Vec<(u32, u32, Vec<u8>)> {
    let mut seen = injected_on(dp, port, packets);
    seen.sort();
    seen
}
