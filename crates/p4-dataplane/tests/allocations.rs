//! What the switch allocates per packet, counted with a counting global allocator: nothing on the
//! batch path once its buffers have grown (`zero_alloc_*`); through `inject`, one unicast packet
//! costs the output list and the output bytes, a dropped one the drop list and its reason text.

mod common;

#[path = "../benches/l2l3_setup.rs"]
mod l2l3_setup;

use common::{args, keys, program, switch, v};
use p4_dataplane::batch::{BatchOut, DropReason, PacketIn};
use p4_dataplane::control::{ControlPlane, PacketIo};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    /// Allocations made by this thread: the tests run in parallel, each counts only its own.
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn count_one() {
    // `try_with`: the allocator may be called while the thread's locals are being torn down.
    let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count_one();
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count_one();
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations_of(f: impl FnOnce()) -> usize {
    let before = ALLOCATIONS.with(Cell::get);
    f();
    ALLOCATIONS.with(Cell::get) - before
}

fn forward_or_drop() -> p4_dataplane::Switch {
    let src = program(
        "bit<8> k; bit<8> r;",
        "",
        "",
        "action fwd(bit<9> port) { sm.egress_spec = port; hdr.h.r = hdr.h.r + 1; }
         action drop() { mark_to_drop(sm); }
         table t { key = { hdr.h.k: exact; } actions = { fwd; drop; } default_action = drop(); }
         apply { t.apply(); }",
        "apply { }",
    );
    let mut sw = switch(&src);
    sw.table_add("t", keys(vec![v(1)]), "fwd", args(&[2]), None).expect("entry");
    sw
}

#[test]
fn per_packet_allocations() {
    let mut sw = forward_or_drop();
    // Warm up the reused buffers (packet copy, output header buffer).
    drop(sw.inject(0, &[1, 0, 9, 9], 0));
    drop(sw.inject(0, &[2, 0, 9, 9], 0));
    let mut forwarded = None;
    let n = allocations_of(|| forwarded = Some(sw.inject(0, &[1, 0, 9, 9], 0)));
    assert_eq!(forwarded.map(|o| o.outputs.len()), Some(1));
    assert_eq!(n, 2, "the outputs Vec and the output packet's bytes");
    let mut dropped = None;
    let n = allocations_of(|| dropped = Some(sw.inject(0, &[2, 0, 9, 9], 0)));
    assert_eq!(dropped.map(|o| o.drops), Some(vec!["mark_to_drop in I".to_string()]));
    assert_eq!(n, 2, "the drops Vec and the reason String");
}

#[test]
fn zero_alloc_batch_forward_and_drop() {
    let mut sw = forward_or_drop();
    let packets: Vec<[u8; 4]> = (0..64u8).map(|i| [1 + i % 2, i, 9, 9]).collect();
    let batch: Vec<PacketIn> = packets.iter().map(|p| PacketIn { port: 0, data: p, now_ns: 0 }).collect();
    let mut out = BatchOut::default();
    sw.process_batch(&batch, &mut out);
    let n = allocations_of(|| {
        for _ in 0..100 {
            sw.process_batch(&batch, &mut out);
        }
    });
    assert_eq!(n, 0, "steady state: no allocation per packet");
    assert_eq!(out.packets.len(), 32);
    assert_eq!(out.drops.len(), 32);
    // Packet 1 (key 2) is dropped by `drop()`; packet 2 (key 1) leaves on port 2 with r + 1.
    assert_eq!(out.drops[0].input, 1);
    assert_eq!(out.drops[0].reason, DropReason::Marked { control: out_control(&sw, &out.drops[0].reason), error: 0 });
    assert_eq!(sw.drop_text(&out.drops[0].reason), "mark_to_drop in I");
    assert_eq!((out.packets[1].input, out.packets[1].port), (2, 2));
    assert_eq!(out.data(&out.packets[1]), &[1, 3, 9, 9]);
}

/// The control index a `Marked` reason names (checked by its text above).
fn out_control(_sw: &p4_dataplane::Switch, reason: &DropReason) -> u32 {
    match reason {
        DropReason::Marked { control, .. } => *control,
        _ => u32::MAX,
    }
}

#[test]
fn zero_alloc_l2l3_batch() {
    let mut sw = l2l3_setup::build();
    let trace = l2l3_setup::trace();
    let batch: Vec<PacketIn> = trace.iter().map(|p| PacketIn { port: 1, data: p, now_ns: 0 }).collect();
    let mut out = BatchOut::default();
    sw.process_batch(&batch, &mut out);
    let forwarded = out.packets.len();
    let n = allocations_of(|| {
        for _ in 0..20 {
            sw.process_batch(&batch, &mut out);
        }
    });
    assert_eq!(n, 0, "steady state: no allocation per packet");
    // The same packets leave as through `inject`, byte for byte.
    assert_eq!(out.packets.len(), forwarded);
    let mut one_by_one = Vec::new();
    for p in &trace {
        one_by_one.extend(sw.inject(1, p, 0).outputs);
    }
    let batched: Vec<(u32, Vec<u8>)> = out.packets.iter().map(|p| (p.port, out.data(p).to_vec())).collect();
    let injected: Vec<(u32, Vec<u8>)> = one_by_one.into_iter().map(|o| (o.port, o.data)).collect();
    assert_eq!(batched, injected);
    // Every switched packet (128, to known MACs) and the 57 routed ones whose address a route covers.
    assert_eq!((forwarded, out.drops.len()), (185, 71));
}

/// The traffic manager's copies reuse their buffers: clones both ways, a resubmission and a
/// recirculation on the wire-format executor allocate nothing per packet once the pool has grown.
#[test]
fn zero_alloc_traffic_manager_copies() {
    let src = program(
        "bit<8> op; bit<8> n;",
        "@field_list(1) bit<8> kept;",
        "",
        "apply {
             sm.egress_spec = 2;
             meta.kept = hdr.h.op;
             if (hdr.h.op == 1) { clone_preserving_field_list(CloneType.I2E, 5, 1); }
             if (hdr.h.op == 2 && sm.instance_type == 0) { resubmit_preserving_field_list(1); }
         }",
        "apply {
             hdr.h.n = hdr.h.n + 1;
             if (hdr.h.op == 3 && sm.instance_type == 0) { clone_preserving_field_list(CloneType.E2E, 5, 1); }
             if (hdr.h.op == 4 && sm.instance_type == 0) { recirculate_preserving_field_list(1); }
         }",
    );
    let mut sw = switch(&src);
    sw.mirroring_add(5, 3).expect("session");
    let packets: Vec<[u8; 3]> = (0..64u8).map(|i| [i % 5, 0, 0xaa]).collect();
    let batch: Vec<PacketIn> = packets.iter().map(|p| PacketIn { port: 0, data: p, now_ns: 0 }).collect();
    let mut out = BatchOut::default();
    sw.process_batch(&batch, &mut out);
    let n = allocations_of(|| {
        for _ in 0..50 {
            sw.process_batch(&batch, &mut out);
        }
    });
    assert_eq!(n, 0, "steady state: no allocation per copy");
    // 64 packets, one copy each, and a clone more for ops 1 and 3 (13 packets each).
    assert_eq!((out.packets.len(), out.drops.len()), (64 + 26, 0));
    // op 4: recirculated once, so egress counted n up twice.
    let recirculated = out.packets.iter().find(|p| out.data(p)[0] == 4).expect("op 4 out");
    assert_eq!(out.data(recirculated), &[4, 2, 0xaa]);
}
