//! Ctrl-C during a long run: the run stops early and says its results are partial. In a test
//! binary of its own, since the SIGINT flag is process-wide.

use clap::Parser;
use p4_netsim::cli::{sim_to, SimArgs};

#[derive(Parser)]
struct Top {
    #[command(flatten)]
    sim: SimArgs,
}

#[test]
fn ctrl_c_stops_a_simulation_with_a_partial_summary() {
    p4_io::interrupt::simulate_ctrl_c();
    assert!(p4_io::interrupt::interrupted(), "SIGINT arrived");
    // 10 simulated seconds of heavy load would take minutes; interrupted, it stops within the
    // first 65536 events.
    let a = Top::try_parse_from(["sim", "--topology", "tree:2:3", "--seconds", "10"]).unwrap().sim;
    let summary = p4_netsim::experiments::run_sim(&a.scenario.scenario().unwrap()).unwrap();
    assert!(summary.interrupted);
    assert!(summary.sim_seconds < 0.01, "{}", summary.sim_seconds);
    assert!(summary.net.events >= 65_536 && summary.net.events < 70_000, "{}", summary.net.events);
    let mut out = Vec::new();
    // After the partial summary, an error the binary turns into exit status 130.
    let e = sim_to(&a, &mut out).unwrap_err();
    assert!(e.is::<p4_netsim::cli::Interrupted>());
    assert_eq!(e.to_string(), "interrupted by Ctrl-C: the results above are partial");
    let text = String::from_utf8(out).unwrap();
    assert!(text.starts_with("interrupted: results are partial ("), "{text}");
    assert!(text.lines().next().unwrap().ends_with(" of 10 simulated s)"), "{text}");
}
