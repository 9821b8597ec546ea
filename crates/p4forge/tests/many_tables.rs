//! Memory per table of a program with many tables, through what `p4forge test` does (front end,
//! mid-end, software switch, one packet), counted by a global allocator that keeps the peak of the
//! bytes live: at most 8.8 KB of heap per table, a tenth of what a program of 10,000 tables once
//! took (879 MB, 88 KB per table). The bound is a property of the data structures, not a timing.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use p4_dataplane::control::PacketIo;

struct Peak;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(by: usize) {
    let live = LIVE.fetch_add(by, Ordering::Relaxed) + by;
    PEAK.fetch_max(live, Ordering::Relaxed);
}

unsafe impl GlobalAlloc for Peak {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size >= layout.size() {
            grew(new_size - layout.size());
        } else {
            LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
        }
        // SAFETY: forwarded unchanged to the system allocator, with the caller's guarantees.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Peak = Peak;

/// A v1model program applying `n` tables in one ingress control (every other under an `if`), as
/// `tests/programs/gen_many_tables.sh` prints it.
fn many_tables(n: usize) -> String {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/programs/gen_many_tables.sh");
    let out = std::process::Command::new("bash").arg(script).arg(n.to_string()).output().expect("bash runs the generator");
    assert!(out.status.success(), "{script} {n}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("the generator prints text")
}

/// The peak of live heap bytes while `text` is compiled, lowered, built into a switch and given
/// one packet (which must come out on port 0).
fn peak_of(text: &str) -> usize {
    let include = std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../p4include"));
    PEAK.store(LIVE.load(Ordering::Relaxed), Ordering::Relaxed);
    let compiled = p4_sema::compile_str("many_tables.p4", text, &[include]);
    let Some(program) = compiled.program else { panic!("{}", compiled.render_diagnostics()) };
    let lowered = p4_midend::lower(program).expect("lowered");
    let mut sw = p4_dataplane::Switch::new(Arc::new(lowered)).expect("switch");
    let frame = [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 2, 0x08, 0x00];
    let out = sw.inject(0, &frame, 0);
    assert_eq!(out.outputs.into_iter().map(|p| (p.port, p.data)).collect::<Vec<_>>(), vec![(0, frame.to_vec())]);
    drop(sw);
    PEAK.load(Ordering::Relaxed)
}

#[test]
fn a_program_of_ten_thousand_tables_takes_under_a_tenth_of_88_kb_per_table() {
    let one = peak_of(&many_tables(1));
    let many = peak_of(&many_tables(10_000));
    let per_table = (many - one) / 9_999;
    println!("heap peak: one table {one} B, 10,000 tables {many} B: {per_table} B per table");
    assert!(per_table < 8_800, "{per_table} bytes of heap per table (one table: {one} B, 10,000: {many} B)");
}
