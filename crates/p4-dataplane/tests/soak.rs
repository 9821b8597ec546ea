//! A short soak run (the `soak` example runs 100 million packets): routes change every thousand
//! packets while traffic flows; every output port, every direct counter (checked before each
//! route is removed and at the end) and the per-port counter match the tally.

mod common;

#[test]
fn routes_changing_under_traffic_keep_outputs_and_counters_exact() {
    let packets = 300_000;
    let s = common::soak::run(&common::include_dir(), packets, |_, _, _| {}).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((s.packets, s.outputs), (packets, packets));
    assert_eq!(s.updates, packets / common::soak::UPDATE_EVERY);
}
