//! `cargo run --release -p p4-dataplane --example soak -- [PACKETS]`: a soak run (100 million
//! packets by default) through a router whose routes change every thousand packets, checking every
//! output, the direct and indexed counters, and the resident memory (see `tests/common/soak.rs`).
//! Exits 1 when an output or a counter differs from the tally, or memory grew by more than 1 MiB
//! after the first tenth of the run.

#[path = "../tests/common/soak.rs"]
#[allow(dead_code)]
mod soak;

/// Growth of resident memory after the first tenth of the run taken as not flat.
const MAX_GROWTH: u64 = 1 << 20;

fn main() {
    let packets = match std::env::args().nth(1).map(|a| a.replace('_', "").parse::<u64>()) {
        None => 100_000_000,
        Some(Ok(n)) if n > 0 => n,
        Some(_) => {
            p4_io::eprintln_safe!("usage: soak [PACKETS]  (a positive number; default 100000000)");
            std::process::exit(2);
        }
    };
    let include = std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../p4include"));
    let mib = |b: u64| b as f64 / (1u64 << 20) as f64;
    let result = soak::run(&include, packets, |sent, rate, rss| {
        p4_io::eprintln_safe!("{sent:>12} packets  {:6.2} M packets/s  resident {:.1} MiB", rate / 1e6, mib(rss));
    });
    match result {
        Ok(s) => {
            let growth = s.rss_end.saturating_sub(s.rss_early);
            // A closed standard output (`| head`) does not change the verdict, which is the exit status.
            let _ = p4_io::stdio::print(&format!(
                "soak: {} packets, {} outputs, {} route changes in {:.1} s ({:.2} M packets/s); every output port and counter as tallied; resident {:.1} MiB after the first tenth, {:.1} MiB at the end\n",
                s.packets, s.outputs, s.updates, s.seconds, s.packets as f64 / s.seconds / 1e6, mib(s.rss_early), mib(s.rss_end)
            ));
            if growth > MAX_GROWTH {
                p4_io::eprintln_safe!("soak: resident memory grew by {:.1} MiB after the first tenth of the run", mib(growth));
                std::process::exit(1);
            }
        }
        Err(e) => {
            p4_io::eprintln_safe!("soak: {e}");
            std::process::exit(1);
        }
    }
}
