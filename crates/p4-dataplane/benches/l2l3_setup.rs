//! The l2l3 switch and 64-byte trace of the `l2l3` bench, shared with the tests that need the same
//! workload (`tests/allocations.rs`): included by path from both.

use std::path::PathBuf;
use std::sync::Arc;

use p4_dataplane::control::{ActionArgs, ControlPlane, KeyValue, Keys};
use p4_dataplane::hashing::csum16;
use p4_dataplane::Switch;

const ROUTER_MAC: u64 = 0x0000_0000_0100;

/// l2l3 with its router MAC, 1,000 MAC entries and 10,000 routes, as `p4forge` runs it: lowered
/// by the mid-end.
pub fn build() -> Switch {
    build_with(Switch::new, true)
}

/// [`build`], recording traces.
#[allow(dead_code)]
pub fn build_traced() -> Switch {
    build_with(Switch::new_traced, true)
}

/// [`build`] on the program as elaborated, not lowered.
#[allow(dead_code)]
pub fn build_elaborated() -> Switch {
    build_with(Switch::new, false)
}

/// l2l3 as elaborated or, when `lowered`, as the mid-end lowers it.
pub fn program(lowered: bool) -> Arc<p4_ir::Program> {
    let root = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let compiled = p4_sema::compile_file(&root.join("examples/l2l3/l2l3.p4"), &[root.join("p4include")]);
    let Some(program) = compiled.program else { panic!("l2l3.p4: {}", compiled.render_diagnostics()) };
    Arc::new(if lowered { p4_midend::lower(program).expect("l2l3 lowers") } else { program })
}

fn build_with(new: fn(Arc<p4_ir::Program>) -> Result<Switch, p4_dataplane::DataplaneError>, lowered: bool) -> Switch {
    let mut sw = new(program(lowered)).expect("switch");
    // Ten times the routes its ipv4_lpm declares room for.
    sw.ignore_table_sizes();
    add_entries(&mut sw);
    sw
}

/// The router MAC, 1,000 MAC entries and 10,000 routes (the dataplane must take more entries than
/// ipv4_lpm's size).
pub fn add_entries(dp: &mut dyn ControlPlane) {
    let pos = |v: Vec<u64>| ActionArgs::Positional(v.into_iter().map(Into::into).collect());
    dp.table_add("router_mac", Keys::Positional(vec![KeyValue::Value(ROUTER_MAC.into())]), "routable", pos(vec![]), None)
        .expect("router_mac");
    for i in 0..1000u64 {
        let mac = 0x0200_0000_0000 + i;
        dp.table_add("mac_table", Keys::Positional(vec![KeyValue::Value(mac.into())]), "forward", pos(vec![i % 8]), None)
            .expect("mac_table");
    }
    // 10,000 routes: 2,500 each of /16, /20, /24 and /32 under 10.0.0.0/8.
    for i in 0..10_000u32 {
        let (addr, len) = match i % 4 {
            0 => (0x0a00_0000 | (i << 16) & 0x00ff_0000, 16),
            1 => (0x0a00_0000 | (i << 12) & 0x00ff_f000, 20),
            2 => (0x0a00_0000 | (i << 8) & 0x00ff_ff00, 24),
            _ => (0x0a00_0000 | i, 32),
        };
        let r = dp.table_add(
            "ipv4_lpm",
            Keys::Positional(vec![KeyValue::Prefix(addr.into(), len)]),
            "set_nexthop",
            pos(vec![0x0000_0000_0001, ROUTER_MAC, u64::from(i % 8)]),
            None,
        );
        // Different i can produce the same prefix; duplicates are refused, which is fine here.
        let _ = r;
    }
}

/// 256 packets of 64 bytes: even ones routed (to a random address under 10/8), odd ones switched.
pub fn trace() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut seed = 1u32;
    for i in 0..256u32 {
        seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
        let mut p = Vec::with_capacity(64);
        if i % 2 == 0 {
            p.extend_from_slice(&ROUTER_MAC.to_be_bytes()[2..]);
            p.extend_from_slice(&[0, 0, 0, 0, 0, 9, 0x08, 0x00]);
            let dst = 0x0a00_0000 | (seed >> 8) & 0x00ff_ffff;
            let mut ip = vec![0x45, 0, 0, 50, 0, 0, 0x40, 0, 64, 17, 0, 0, 192, 168, 0, 1];
            ip.extend_from_slice(&dst.to_be_bytes());
            let sum = csum16(&ip);
            ip[10..12].copy_from_slice(&sum.to_be_bytes());
            p.extend_from_slice(&ip);
        } else {
            let mac = 0x0200_0000_0000u64 + u64::from(seed % 1000);
            p.extend_from_slice(&mac.to_be_bytes()[2..]);
            p.extend_from_slice(&[0, 0, 0, 0, 0, 9, 0x86, 0xdd]);
            // An IPv6/UDP header (which l2l3 does not parse) whose source address differs per
            // packet: one flow each, as flow sharding would see them.
            p.extend_from_slice(&[0x60, 0, 0, 0, 0, 10, 17, 64]);
            p.extend_from_slice(&[0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0]);
            p.extend_from_slice(&seed.to_be_bytes());
            p.extend_from_slice(&[0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
        }
        p.resize(64, 0xab);
        out.push(p);
    }
    out
}

