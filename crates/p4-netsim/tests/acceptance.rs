//! The DTP, PTP, MinProbe and profiler experiments with short simulated durations (the long
//! reproductions are the commands in RESULTS.md).

use p4_netsim::dtp::DtpConfig;
use p4_netsim::experiments::{
    run_dtp, run_minprobe, run_profile, Cross, DtpOptions, Load, MinProbeOptions, ProfileOptions, Scenario,
};
use p4_netsim::minprobe::{rate_range, ProbeConfig};
use p4_netsim::oscillator::Wander;
use p4_netsim::time::from_ns;
use p4_netsim::NetConfig;

fn dtp(topology: &str, seconds: f64, load: Load, ptp: bool) -> p4_netsim::experiments::DtpSummary {
    let o = DtpOptions {
        scenario: Scenario { topology: topology.into(), seconds, load, ..Default::default() },
        ptp,
        ..Default::default()
    };
    run_dtp(&o).unwrap().0
}

#[test]
fn dtp_tree_2_3_full_load_stays_within_4td() {
    let s = dtp("tree:2:3", 0.05, Load::Heavy, false);
    assert_eq!((s.nodes, s.dtp.max_hops, s.dtp.bound_ticks), (13, 4, 16));
    assert!(s.dtp.max_offset_ticks <= 16, "{:?}", s.dtp);
    // every pair is also within 4 ticks per hop between them, and neighbours within 4
    assert_eq!(s.dtp.pair_bound_violations, Some(0));
    assert!(s.dtp.max_adjacent_offset_ticks <= 4);
    // 10 m of cable (50 ns) plus 36 cycles of PHY latency, halved round trip minus α
    assert_eq!(s.dtp.owd_cycles, (43, 44));
    // full load: beacons wait for MTU frames (192 blocks), so they leave every 200..400 cycles
    assert!(s.dtp.max_beacon_interval_cycles <= 400 && s.dtp.mean_beacon_interval_cycles > 250.0, "{:?}", s.dtp);
    assert!(s.dtp.deferred > 100_000);
    assert_eq!(s.dtp.samples, 49_951);
    assert!(s.net.dropped > 0 && s.net.delivered > 100_000, "the load must saturate links: {:?}", s.net);
}

#[test]
fn dtp_beacons_wait_longer_behind_jumbo_frames() {
    let o = DtpOptions {
        scenario: Scenario { seconds: 0.004, load: Load::Heavy, load_len: 9018, ..Default::default() },
        ptp: false,
        ..Default::default()
    };
    let s = run_dtp(&o).unwrap().0;
    // a 9018-byte frame is 9026 bytes on the wire: 1129 blocks; the seed's worst case is ~1200
    assert!(s.dtp.max_beacon_interval_cycles > 1129 && s.dtp.max_beacon_interval_cycles <= 1200 + 200, "{:?}", s.dtp);
    assert!(s.dtp.max_offset_ticks <= 16, "{:?}", s.dtp);
}

#[test]
fn dtp_fat_tree_with_1024_hosts_stays_within_4td() {
    let mut o = DtpOptions {
        scenario: Scenario {
            topology: "fat-tree:16".into(),
            seconds: 0.000_12,
            load: Load::Heavy,
            ..Default::default()
        },
        ptp: false,
        ..Default::default()
    };
    o.dtp.sample_interval = from_ns(5000.0);
    let s = run_dtp(&o).unwrap().0;
    assert_eq!((s.hosts, s.dtp.max_hops, s.dtp.bound_ticks), (1024, 6, 24));
    assert!(s.dtp.max_offset_ticks <= 24, "{:?}", s.dtp);
    // with many paths a device can be raised through one neighbour between two beacons to
    // another: adjacent offsets reach 5 here now and then (RESULTS.md), the 4TD bound holds
    assert!(s.dtp.max_adjacent_offset_ticks <= 5);
    assert_eq!(s.dtp.samples, 15);
}

#[test]
fn ptp_error_grows_with_load_while_dtp_does_not() {
    let idle = dtp("tree:2:3", 0.012, Load::Idle, true);
    let heavy = dtp("tree:2:3", 0.012, Load::Heavy, true);
    let (pi, ph) = (idle.ptp.unwrap(), heavy.ptp.unwrap());
    assert!(pi.exchanges >= 80 && ph.exchanges >= 70);
    assert!(pi.max_abs_error_ns < 1_000.0, "idle PTP {pi:?}");
    assert!(ph.max_abs_error_ns > 10_000.0, "heavy PTP {ph:?}");
    assert!(idle.dtp.max_offset_ticks <= 16 && heavy.dtp.max_offset_ticks <= 16);
}

#[test]
fn dtp_with_wander_per_port_clocks_and_payload_wrap() {
    let net = NetConfig {
        wander: Some(Wander { step_ppm: 2.0, step_edges: 15_625 }),
        per_port_oscillators: true,
        ..Default::default()
    };
    // counters start just below 2^52 and cross it: BEACONs carry only the 52 low bits
    let dtp = DtpConfig {
        initial_base: (1u128 << p4_netsim::dtp::PAYLOAD_BITS) - 2_000,
        initial_spread: 1000,
        ..Default::default()
    };
    let o = DtpOptions {
        scenario: Scenario { seconds: 0.004, load: Load::Medium, net, ..Default::default() },
        dtp,
        ptp: false,
        ..Default::default()
    };
    let s = run_dtp(&o).unwrap().0;
    assert!(s.dtp.max_offset_ticks <= 16, "{:?}", s.dtp);
    assert_eq!(s.dtp.rejected, 0);
}

#[test]
fn dtp_ignores_corrupted_messages_under_bit_errors() {
    let net = NetConfig { ber: 1e-5, ..Default::default() };
    let o = DtpOptions {
        scenario: Scenario { seconds: 0.003, load: Load::Idle, net, ..Default::default() },
        ptp: false,
        ..Default::default()
    };
    let s = run_dtp(&o).unwrap().0;
    assert!(s.dtp.corrupted + s.dtp.rejected > 10, "{:?}", s.dtp);
    assert!(s.dtp.max_offset_ticks <= 16 + 8, "{:?}", s.dtp);
}

fn minprobe(topology: &str, cross: Cross, samples: u32) -> p4_netsim::experiments::MinProbeSummary {
    // rates from 1 Gb/s keep the run short; the estimator sees the same shape
    let probe = ProbeConfig { rates: rate_range(1.0, 9.6, 0.1), ..ProbeConfig::baseline(100, samples) };
    run_minprobe(&MinProbeOptions { topology: topology.into(), cross, probe, ..Default::default() }).unwrap()
}

#[test]
fn minprobe_dumbbell_cbr1_within_0_1_gbps() {
    for rate in [2.0, 5.0, 8.0] {
        let s = minprobe("dumbbell", Cross::Cbr1(rate), 3);
        assert_eq!(s.truth_gbps, 10.0 - rate);
        assert!(s.error_gbps.abs() <= 0.1, "cross {rate}: estimate {} truth {}", s.estimate_gbps, s.truth_gbps);
        assert_eq!(s.probes_received as u64, s.app_probes + s.dummy_probes - lost(&s));
    }
}

fn lost(s: &p4_netsim::experiments::MinProbeSummary) -> u64 {
    s.app_probes + s.dummy_probes - s.probes_received as u64
}

#[test]
fn minprobe_reports_cbr2_and_parking_lot_error() {
    let cbr2 = minprobe("dumbbell", Cross::Cbr2 { gbps: 4.0, d_size: 0.5, d_len: 0.5 }, 2);
    assert_eq!(cbr2.truth_gbps, 6.0);
    assert!(cbr2.error_gbps.is_finite() && cbr2.error_gbps.abs() < 1.5, "{}", cbr2.estimate_gbps);
    let pl = minprobe("parking-lot", Cross::Cbr1(4.0), 2);
    assert_eq!(pl.truth_gbps, 6.0);
    assert!(pl.error_gbps.abs() < 1.0, "{}", pl.estimate_gbps);
}

#[test]
fn profiler_cut_through_jitters_far_less_than_store_and_forward() {
    let (s, samples) = run_profile(&ProfileOptions { frames: 4000, ..Default::default() }).unwrap();
    // 1538 wire bytes at 9 Gb/s, rounded to whole lanes: 1708 byte times
    assert_eq!(s.target_ipd_ns, 1366.4);
    assert!(s.generated.stdev_ns < 1e-9, "{:?}", s.generated);
    assert_eq!((s.generated.min_ns, s.generated.max_ns), (1366.4, 1366.4));
    assert_eq!(samples.store_and_forward.len(), 3999);
    for run in [&s.store_and_forward, &s.cut_through] {
        assert!((run.mean_ns - 1366.4).abs() < 0.2, "{run:?}");
    }
    assert!(s.cut_through.stdev_ns * 5.0 < s.store_and_forward.stdev_ns, "{s:?}");
    assert!(s.store_and_forward.stdev_ns > 50.0);
}

#[test]
fn minprobe_uses_application_packets_and_pads_with_dummies_after_a_timeout() {
    let run = |timeout_ns: f64, app_gbps: f64| {
        let probe = ProbeConfig {
            rates: rate_range(3.0, 9.6, 0.2),
            timeout: from_ns(timeout_ns),
            ..ProbeConfig::baseline(100, 1)
        };
        run_minprobe(&MinProbeOptions { cross: Cross::Cbr1(5.0), probe, app_gbps, ..Default::default() }).unwrap()
    };
    let eager = run(0.0, 2.0);
    let patient = run(1_000_000.0, 2.0);
    assert_eq!(eager.app_probes + eager.dummy_probes, 3400);
    assert_eq!(patient.app_probes + patient.dummy_probes, 3400);
    // waiting for application packets replaces most dummies
    assert!(patient.dummy_probes * 4 < eager.dummy_probes, "{} vs {}", patient.dummy_probes, eager.dummy_probes);
    assert!(patient.error_gbps.abs() <= 0.1 && eager.error_gbps.abs() <= 0.1);
    // no application traffic at all: explicit probes only
    let idle = run(50_000.0, 0.0);
    assert_eq!((idle.app_probes, idle.dummy_probes), (0, 3400));
}
