//! What `inject` allocates per packet, counted with a counting global allocator, so the
//! documentation can state it exactly: one unicast packet through tables costs the output list and
//! the output bytes; a dropped one the drop list and its reason text.

mod common;

use common::{args, keys, program, switch, v};
use p4_dataplane::control::{ControlPlane, PacketIo};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations_of(f: impl FnOnce()) -> usize {
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    f();
    ALLOCATIONS.load(Ordering::Relaxed) - before
}

#[test]
fn per_packet_allocations() {
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
